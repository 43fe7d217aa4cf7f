// The Landlock supervisor's attacks against a server run as nobody (landlock-supervisor-suite.ts).
import { it } from 'vitest';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';
import { landlockSupervisorSuite } from './landlock-supervisor-suite.js';

if (CANNOT_SWITCH_USER === undefined) landlockSupervisorSuite('nobody');
else it.skip(`skipped: ${CANNOT_SWITCH_USER}`, () => undefined);
