import { listProcesses, type ProcStat } from './process-tree.js';

/**
 * The processes a Ctrl-C reaches in a session without a terminal: those of the leader's process group, less the
 * `supervisorDepth` levels from the leader down that only relay (the sandbox's bubblewrap and its init), which would
 * otherwise die of the signal and report it instead of the program's own exit. Pure: works on a snapshot.
 */
export function selectInterruptTargets(
  processes: readonly ProcStat[],
  leader: number,
  supervisorDepth: number,
): number[] {
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  /** Levels below the leader, or undefined when `p` is not under it. */
  const depth = (p: ProcStat): number | undefined => {
    let levels = 0;
    for (let at: ProcStat | undefined = p; at; at = byPid.get(at.ppid), levels++) {
      if (at.pid === leader) return levels;
      if (levels > processes.length) return undefined;
    }
    return undefined;
  };
  return processes
    .filter((p) => p.pgid === leader && p.state !== 'Z')
    .filter((p) => (depth(p) ?? supervisorDepth) >= supervisorDepth)
    .map((p) => p.pid);
}

/**
 * Sends SIGINT to a session's process group, as the terminal does for Ctrl-C: the program's trap runs, or it ends
 * with 130. Without supervisors the kernel signals the whole group at once; with them, each process below them.
 */
export function interruptProcessGroup(leader: number, supervisorDepth = 0): void {
  const targets = supervisorDepth === 0 ? [-leader] : selectInterruptTargets(listProcesses(), leader, supervisorDepth);
  for (const pid of targets) {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // gone meanwhile
    }
  }
}
