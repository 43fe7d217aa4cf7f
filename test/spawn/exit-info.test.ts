import { describe, expect, it } from 'vitest';
import { toExitInfo } from '../../src/spawn/exit-info.js';

describe('toExitInfo', () => {
  it('passes a normal exit code through', () => {
    expect(toExitInfo(0, null)).toEqual({ exitCode: 0 });
    expect(toExitInfo(17, 0)).toEqual({ exitCode: 17 });
  });

  it('reports death by a signal number as 128 + the number, with the signal name', () => {
    expect(toExitInfo(0, 9)).toEqual({ exitCode: 137, signal: 'SIGKILL' });
    expect(toExitInfo(0, 15)).toEqual({ exitCode: 143, signal: 'SIGTERM' });
  });

  it('reports death by a signal name the same way', () => {
    expect(toExitInfo(null, 'SIGKILL')).toEqual({ exitCode: 137, signal: 'SIGKILL' });
    expect(toExitInfo(null, 'SIGHUP')).toEqual({ exitCode: 129, signal: 'SIGHUP' });
  });

  it('treats a missing code without a signal as success', () => {
    expect(toExitInfo(null, null)).toEqual({ exitCode: 0 });
    expect(toExitInfo(null, undefined)).toEqual({ exitCode: 0 });
  });
});
