import { readdirSync } from 'node:fs';
import { hasProcessTag } from './process-tag.js';
import { readProcText } from './proc-read.js';
import { delay } from '../util/delay.js';

export interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Foreground process group of the process's controlling terminal (-1 when it has none). */
  tpgid: number;
  state: string;
}

/** Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so split after the last `)`. */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  const pid = Number(text.slice(0, open).trim());
  const fields = text.slice(close + 2).split(' ');
  const [state, ppid, pgid, sid, , tpgid] = fields;
  if (state === undefined || tpgid === undefined) return undefined;
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), tpgid: Number(tpgid) };
}

/** Undefined when the process is gone (between listing and reading) or this is not Linux. */
export function readProcStat(pid: number): ProcStat | undefined {
  const text = readProcText(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseProcStat(text);
}

export function listProcesses(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const name of names) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const stat = readProcStat(Number(name));
    if (stat) out.push(stat);
  }
  return out;
}

/**
 * Every process that belongs to the session led by `leader`: same session id or process group, plus descendants
 * (by parent pid) of any of those, which catches children that called setsid while their parent still lives.
 * `isTagged` finds escapees whose link is gone (setsid'd or double-forked, then orphaned): it is asked only about
 * orphans and session leaders, the shapes an escape leaves. Pure: works on a snapshot, tested with plain data.
 */
export function selectSessionTree(
  processes: readonly ProcStat[],
  leader: number,
  self = process.pid,
  isTagged?: (pid: number) => boolean,
): number[] {
  const members = new Set<number>();
  for (const p of processes) {
    if (p.pid !== self && (p.sid === leader || p.pgid === leader || p.pid === leader)) members.add(p.pid);
  }
  const addDescendants = () => {
    for (let grew = true; grew;) {
      grew = false;
      for (const p of processes) {
        if (!members.has(p.pid) && members.has(p.ppid) && p.pid !== self) {
          members.add(p.pid);
          grew = true;
        }
      }
    }
  };
  addDescendants();
  if (isTagged) {
    const before = members.size;
    for (const p of processes) {
      if (p.pid !== self && !members.has(p.pid) && (p.ppid <= 1 || p.pid === p.sid) && isTagged(p.pid))
        members.add(p.pid);
    }
    if (members.size > before) addDescendants();
  }
  return [...members];
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/**
 * Ends a session's whole tree: `first` signals (SIGHUP wakes interactive shells, which ignore SIGTERM), a grace
 * period polled every few ms, then SIGKILL for whatever is left. Resolves once nothing of the tree remains.
 */
export async function killSessionTree(
  leader: number,
  { graceMs = 250, first = ['SIGHUP', 'SIGTERM'] as NodeJS.Signals[], tag = undefined as string | undefined } = {},
): Promise<void> {
  const isTagged = tag === undefined ? undefined : (pid: number) => hasProcessTag(pid, tag);
  const live = () =>
    selectSessionTree(
      listProcesses().filter((p) => p.state !== 'Z'),
      leader,
      process.pid,
      isTagged,
    );
  let pids = live();
  if (pids.length === 0) return;
  for (const sig of first) {
    signal(-leader, sig);
    for (const pid of pids) signal(pid, sig);
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await delay(10);
    pids = live();
    if (pids.length === 0) return;
  }
  for (let round = 0; round < 20 && pids.length > 0; round++) {
    signal(-leader, 'SIGKILL');
    for (const pid of pids) signal(pid, 'SIGKILL');
    await delay(10);
    pids = live();
  }
}
