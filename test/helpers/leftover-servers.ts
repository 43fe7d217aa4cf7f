// Loaded before every test file (vitest `setupFiles`): a `serve` that a failed test did not stop is killed, by its
// pid, when the file is done, so no server outlives its test file.
import { afterAll } from 'vitest';
import { killLeftoverServes } from './live-serves.js';

afterAll(killLeftoverServes);
