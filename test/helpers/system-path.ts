// Loaded before every test file (vitest `setupFiles`): the programs the suite starts are the system's, not those a
// user's profile puts first on PATH. A version manager's shim (pyenv's `python3` is a bash script) took 2-3 s per
// start on a busy machine, where the system's python took 0.5 s, and the tests that time a program's start
// failed there. Node's own directory stays first, so the suite's children run the node that runs it.
import { dirname } from 'node:path';

const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];
process.env.PATH = [...new Set([dirname(process.execPath), ...SYSTEM_PATH])].join(':');
