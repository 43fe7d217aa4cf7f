import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { PROCESS_TAG_VAR, newProcessTag, readProcessTag } from '../../src/linux/process-tag.js';
import { killIfAlive } from '../helpers/processes.js';

describe('readProcessTag', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pid of started.splice(0)) killIfAlive(pid);
  });

  /** A `sleep` whose environment is exactly `env`, in that order. */
  const sleeper = (env: Record<string, string>) => {
    const child = spawn('/bin/sleep', ['30'], { env, stdio: 'ignore' });
    started.push(child.pid!);
    return child.pid!;
  };

  it('reads the tag wherever it is in the environment', () => {
    const tag = newProcessTag();
    expect(readProcessTag(sleeper({ [PROCESS_TAG_VAR]: tag, A: '1' }))).toBe(tag);
    expect(readProcessTag(sleeper({ A: '1', [PROCESS_TAG_VAR]: tag, B: '2' }))).toBe(tag);
    expect(readProcessTag(sleeper({ A: '1', [PROCESS_TAG_VAR]: tag }))).toBe(tag);
  });

  it('is undefined without a tag, for a look-alike name, and for a process that is gone', () => {
    expect(readProcessTag(sleeper({ A: '1' }))).toBeUndefined();
    expect(readProcessTag(sleeper({ [`X${PROCESS_TAG_VAR}`]: 'no' }))).toBeUndefined();
    expect(readProcessTag(0)).toBeUndefined();
  });
});
