import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  killSessionTree,
  parseProcStat,
  processTableScans,
  readProcStat,
  selectSessionTree,
  type ProcStat,
} from '../../src/linux/process-tree.js';
import { PATIENT, isAlive, killIfAlive, printedPid, waitUntilGone } from '../helpers/processes.js';

const proc = (pid: number, ppid: number, pgid: number, sid: number): ProcStat => ({
  pid,
  ppid,
  pgid,
  sid,
  tpgid: -1,
  state: 'S',
});

describe('parseProcStat', () => {
  it('reads pid, state, parent, group, session and terminal group', () => {
    const stat = '4242 (bash) S 4200 4242 4242 34816 4250 4194560 1000 0 0 0 1 2 0 0 20 0 1 0 12345';
    expect(parseProcStat(stat)).toEqual({ pid: 4242, state: 'S', ppid: 4200, pgid: 4242, sid: 4242, tpgid: 4250 });
  });

  it('handles a command name with spaces and parentheses', () => {
    const stat = '77 (my (odd) cmd) ) R 1 77 70 0 -1 4194560 0 0';
    expect(parseProcStat(stat)).toEqual({ pid: 77, state: 'R', ppid: 1, pgid: 77, sid: 70, tpgid: -1 });
  });

  it('returns undefined for text that is not a stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('12 no parens S 1 2 3')).toBeUndefined();
    expect(parseProcStat('12 (short) S 1')).toBeUndefined();
  });

  it('reads this very process from /proc', () => {
    expect(readProcStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid });
    expect(readProcStat(0)).toBeUndefined();
  });
});

describe('selectSessionTree', () => {
  const snapshot = [
    proc(1, 0, 1, 1), // init
    proc(50, 1, 50, 50), // the manager (self)
    proc(100, 50, 100, 100), // session leader
    proc(101, 100, 100, 100), // its child
    proc(102, 101, 102, 102), // a child that called setsid
    proc(103, 102, 102, 102), // and its child
    proc(104, 1, 104, 104), // a setsid'd process already reparented to init: unreachable
    proc(105, 1, 100, 100), // reparented to init but still in the session
    proc(200, 1, 200, 200), // unrelated
  ];

  it('finds the leader, its session and group, and every descendant by parent pid', () => {
    expect(selectSessionTree(snapshot, 100, 50).sort((a, b) => a - b)).toEqual([100, 101, 102, 103, 105]);
  });

  it('finds a setsid descendant only through its parent', () => {
    const withoutParent = snapshot.filter((p) => p.pid !== 101);
    expect(selectSessionTree(withoutParent, 100, 50)).not.toContain(102);
  });

  it('finds an escapee whose link is gone by its session tag, and its children', () => {
    const withChild = [...snapshot, proc(106, 104, 104, 104)];
    const asked: number[] = [];
    const tagged = (pid: number) => {
      asked.push(pid);
      return pid === 104;
    };
    expect(selectSessionTree(withChild, 100, 50, tagged).sort((a, b) => a - b)).toEqual([
      100, 101, 102, 103, 104, 105, 106,
    ]);
    // Only orphans and session leaders outside the tree are worth reading the environment of.
    expect(asked.sort((a, b) => a - b)).toEqual([1, 104, 200]);
  });

  it('never asks about the other sessions the calling process started: an escapee is never its own child', () => {
    const withSiblings = [...snapshot, proc(300, 50, 300, 300), proc(301, 50, 301, 301), proc(302, 300, 300, 300)];
    const asked: number[] = [];
    selectSessionTree(withSiblings, 100, 50, (pid) => {
      asked.push(pid);
      return false;
    });
    expect(asked.sort((a, b) => a - b)).toEqual([1, 104, 200]);
  });

  it('never includes the calling process', () => {
    const selfInSession = [...snapshot, proc(300, 100, 100, 100)];
    expect(selectSessionTree(selfInSession, 100, 300)).not.toContain(300);
  });

  it('returns nothing for a leader that is gone', () => {
    expect(selectSessionTree(snapshot, 999, 50)).toEqual([]);
  });
});

describe('killSessionTree', () => {
  const started: number[] = [];
  afterEach(() => {
    for (const pid of started.splice(0)) killIfAlive(pid);
  });

  it('ends a session leader, its background child and a setsid descendant', async () => {
    const child = spawn('/bin/bash', ['-c', 'sleep 1000 & echo PID=$!; setsid sleep 1000 & echo PID=$!; wait'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const leader = child.pid!;
    started.push(leader);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await vi.waitFor(() => expect(output.match(/PID=\d+/g)).toHaveLength(2), PATIENT);
    const [background, setsidded] = output.match(/PID=\d+/g)!.map(printedPid);
    started.push(background!, setsidded!);
    await vi.waitFor(() => expect(readProcStat(setsidded!)?.sid).toBe(setsidded), PATIENT);
    expect([leader, background, setsidded].every((pid) => isAlive(pid!))).toBe(true);

    await killSessionTree(leader);

    for (const pid of [leader, background!, setsidded!]) await waitUntilGone(pid, 2_000);
  });

  it('shares one /proc scan per event-loop turn among the kills in flight together', async () => {
    const leaders = Array.from({ length: 24 }, () => {
      // Ignores SIGHUP and SIGTERM: every kill polls through its whole grace period before its SIGKILL.
      const child = spawn('/bin/bash', ['-c', "trap '' HUP TERM; while :; do sleep 1; done"], {
        detached: true,
        stdio: 'ignore',
      });
      started.push(child.pid!);
      return child.pid!;
    });
    await vi.waitFor(() => expect(leaders.every((pid) => readProcStat(pid)?.state !== undefined)).toBe(true));
    const before = processTableScans();

    await Promise.all(leaders.map((pid) => killSessionTree(pid, { graceMs: 100 })));

    for (const pid of leaders) await waitUntilGone(pid, 2_000);
    // Alone, each kill scans at its start and every 10 ms of its grace period, then after its SIGKILL: over 24 × 10.
    expect(processTableScans() - before).toBeLessThan(40);
  });
});
