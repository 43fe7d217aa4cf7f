import { describe, expect, it } from 'vitest';
import { selectInterruptTargets } from '../../src/linux/interrupt.js';
import type { ProcStat } from '../../src/linux/process-tree.js';

const proc = (pid: number, ppid: number, pgid: number, state = 'S'): ProcStat => ({
  pid,
  ppid,
  pgid,
  sid: pgid,
  tpgid: -1,
  state,
});

describe('selectInterruptTargets', () => {
  // 100 leads (bwrap), 101 is its init, 102 the shell, 103 and 104 what the shell started; 200 belongs elsewhere.
  const table = [proc(100, 1, 100), proc(101, 100, 100), proc(102, 101, 100), proc(103, 102, 100), proc(104, 103, 100)];

  it('takes the whole process group when nothing wraps the command', () => {
    expect(selectInterruptTargets(table, 100, 0)).toEqual([100, 101, 102, 103, 104]);
  });

  it('passes by the wrappers, so they do not die of the signal in the program’s place', () => {
    expect(selectInterruptTargets(table, 100, 2)).toEqual([102, 103, 104]);
  });

  it('leaves out processes of other groups, and zombies', () => {
    const more = [...table, proc(200, 102, 200), proc(105, 102, 100, 'Z')];
    expect(selectInterruptTargets(more, 100, 2)).toEqual([102, 103, 104]);
  });

  it('keeps a member of the group whose parent is gone (reparented to init)', () => {
    expect(selectInterruptTargets([...table, proc(106, 1, 100)], 100, 2)).toContain(106);
  });
});
