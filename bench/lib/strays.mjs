/**
 * The end-of-run check: every process the bench starts carries UE_BENCH_RUN=<id> in its environment (workers,
 * their PTYs and pipes, tmux servers and their shells, the library's watchdog). Anything still alive with this
 * run's id after the workers finished was left behind by a driver; it is reported and ended by pid.
 */
import { readFileSync, readdirSync } from 'node:fs';

function carriesRunId(pid, runId) {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`UE_BENCH_RUN=${runId}`);
  } catch {
    return false;
  }
}

function isLive(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

function scan(runId) {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid && isLive(pid) && carriesRunId(pid, runId));
}

/** Processes of this run still alive, after giving them up to `graceMs` to go (the watchdog leaves last). */
export async function findOurProcesses(runId, graceMs) {
  const until = performance.now() + graceMs;
  let found = scan(runId);
  while (found.length > 0 && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    found = scan(runId);
  }
  return found.map((pid) => ({ pid, cmd: commandLine(pid) }));
}

export function killStrays(strays) {
  for (const { pid } of strays) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}
