import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PROCESS_TAG_VAR, newProcessTag, readProcessTag } from '../../src/linux/process-tag.js';
import { killIfAlive } from '../helpers/processes.js';

describe('readProcessTag', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pid of started.splice(0)) killIfAlive(pid);
  });

  /**
   * A `sleep` whose environment is exactly `env`, in that order, once the kernel shows it: spawn returns when the exec
   * has closed its close-on-exec fds, and the new environment is set up only after that. On a loaded machine
   * /proc/<pid>/environ was read empty in between (fresh-machine run 4); empty, it is not yet the program's.
   */
  const sleeper = (env: Record<string, string>) => {
    const child = spawn('/bin/sleep', ['30'], { env, stdio: 'ignore' });
    const pid = child.pid!;
    started.push(pid);
    const deadline = Date.now() + 5_000;
    while (readFileSync(`/proc/${pid}/environ`).length === 0 && Date.now() < deadline) {
      // the exec is still setting up the new program
    }
    return pid;
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
