// The Landlock supervisor's attacks against a root server (landlock-supervisor-suite.ts).
import { landlockSupervisorSuite } from './landlock-supervisor-suite.js';

landlockSupervisorSuite('root');
