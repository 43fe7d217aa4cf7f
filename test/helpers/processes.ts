import { type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, vi } from 'vitest';

/** vi.waitFor options for conditions that depend on other processes being scheduled: patient on a busy machine. */
export const PATIENT = { timeout: 5_000, interval: 10 } as const;

/**
 * True while `pid` names a running process. Read straight from /proc (not through the code under test); a zombie
 * has already exited and only waits to be reaped (this machine's init reaps slowly), so it counts as gone.
 */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
  return state !== 'Z' && state !== 'X';
}

/** Waits until `pid` is gone; fails with the pid in the message if it outlives `timeout`. */
export async function waitUntilGone(pid: number, timeout = 5_000): Promise<void> {
  await vi.waitFor(
    () => {
      if (isAlive(pid)) throw new Error(`process ${pid} is still alive`);
    },
    { timeout, interval: 20 },
  );
}

/** The pid a test command printed as `PID=<n>`. */
export function printedPid(output: string): number {
  const match = /PID=(\d+)/.exec(output);
  if (!match) throw new Error(`no PID=<n> in ${JSON.stringify(output)}`);
  return Number(match[1]);
}

/** Cleanup for a process a test started itself, in case the code under test failed to end it. */
export function killIfAlive(pid: number): void {
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone meanwhile
  }
}

/** Blocks the event loop for `ms`: a deliberately slow consumer. */
export function busyWait(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // spin
  }
}

/** Output of `child` once it exits, or once `until` matches it (then a rejection if it exits first). */
export function outputOf(child: ChildProcess, until?: RegExp): Promise<string> {
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    if (until) child.stdout!.on('data', () => until.test(out) && resolve(out));
    child.once('exit', (code) => (until ? reject(new Error(`exited (${code}) with: ${out}`)) : resolve(out)));
  });
}

/**
 * A list to put the process groups a test started in (each led by a process spawned with `detached`); an afterEach
 * ends every one of them, whatever the test left running.
 */
export function endGroupsAfterEach(): number[] {
  const groups: number[] = [];
  afterEach(() => {
    for (const pgid of groups.splice(0)) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return groups;
}
