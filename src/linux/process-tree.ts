import { readdirSync } from 'node:fs';
import { readProcessTag } from './process-tag.js';
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

/**
 * Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so the fields are read after the last
 * `)`, only as far as needed (input-wait reads several of these per probe).
 */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // state ppid pgrp session tty_nr tpgid: the six fields after the name.
  const fields: string[] = [];
  let at = close + 2;
  while (fields.length < 6 && at <= text.length) {
    const end = text.indexOf(' ', at);
    fields.push(text.slice(at, end < 0 ? text.length : end));
    if (end < 0) break;
    at = end + 1;
  }
  if (fields.length < 6) return undefined;
  const [state, ppid, pgid, sid, , tpgid] = fields as [string, string, string, string, string, string];
  const pid = Number(text.slice(0, open).trim());
  return { pid, state, ppid: Number(ppid), pgid: Number(pgid), sid: Number(sid), tpgid: Number(tpgid) };
}

/** The number of threads in a /proc/<pid>/stat (its 20th field, the 18th after the name); NaN when there is none. */
export function procStatThreads(text: string): number {
  let at = text.lastIndexOf(')') + 2;
  for (let field = 0; field < 17; field++) {
    at = text.indexOf(' ', at) + 1;
    if (at === 0) return Number.NaN;
  }
  const end = text.indexOf(' ', at);
  return Number(text.slice(at, end < 0 ? text.length : end));
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
 * orphans and session leaders, the shapes an escape leaves, and never about children of `self` (the other sessions
 * we started: an escapee is never our own child), so one kill reads no environment per open session. Pure: works
 * on a snapshot, tested with plain data.
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
      const escapeShaped = p.ppid <= 1 || (p.pid === p.sid && p.ppid !== self);
      if (p.pid !== self && !members.has(p.pid) && escapeShaped && isTagged(p.pid)) members.add(p.pid);
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

/** The live processes and the process tags read this event-loop turn: see processTableThisTurn. */
let thisTurn: { processes: ProcStat[]; tags: Map<number, string | undefined> } | undefined;
let scans = 0;

/** How many times killSessionTree has scanned /proc so far in this process (diagnostics and tests). */
export function processTableScans(): number {
  return scans;
}

/**
 * The live (non-zombie) processes, scanned once per event-loop turn and shared: kills in flight together (a shutdown
 * ends every session at once) poll /proc in the same turn, and would otherwise each scan all of it and read the
 * environment of every process they ask about. A `leader` that must be in it and is not (spawned after the scan, in
 * the same turn) takes a fresh scan.
 */
function processTableThisTurn(leader?: number): NonNullable<typeof thisTurn> {
  if (!thisTurn || (leader !== undefined && !thisTurn.processes.some((p) => p.pid === leader))) {
    if (!thisTurn) setImmediate(() => (thisTurn = undefined));
    thisTurn = { processes: listProcesses().filter((p) => p.state !== 'Z'), tags: new Map() };
    scans++;
  }
  return thisTurn;
}

/**
 * Ends a session's whole tree: `first` signals (SIGHUP wakes interactive shells, which ignore SIGTERM), a grace
 * period polled every few ms, then SIGKILL for whatever is left. Resolves once nothing of the tree remains.
 */
export async function killSessionTree(
  leader: number,
  { graceMs = 250, first = ['SIGHUP', 'SIGTERM'] as NodeJS.Signals[], tag = undefined as string | undefined } = {},
): Promise<void> {
  // Whether the last look met an escapee-shaped process that may be an escapee in the middle of an exec: running,
  // its environment not there yet. It is looked at again before the tree is taken for gone.
  let unsure = false;
  const lookedAgain = new Set<number>();
  const live = (atStart = false) => {
    const table = processTableThisTurn(atStart ? leader : undefined);
    unsure = false;
    const isTagged = (pid: number) => {
      if (!table.tags.has(pid)) table.tags.set(pid, readProcessTag(pid));
      const found = table.tags.get(pid);
      if (found === '') {
        // Every one is judged at each look, so that many of them cost one look more, not one each.
        const seen = environmentState(pid);
        // An environment that reads empty while its process runs is looked at once more: an exec sets it up so
        // for an instant (measured: 1 of 5 500 empty reads of a process that execs in a loop).
        if (seen === 'changing' || (seen === 'empty, running' && !lookedAgain.has(pid))) unsure = true;
        if (seen === 'empty, running') lookedAgain.add(pid);
      }
      return found !== '' && found === tag;
    };
    return selectSessionTree(table.processes, leader, process.pid, tag === undefined ? undefined : isTagged);
  };
  // Gone: nothing of the tree is left, and no process that may be an escapee in an exec, or no more looks for one
  // (a process that runs with no environment, and is not ours, costs a kill no more than these).
  let looksLeft = MID_EXEC_LOOKS;
  const gone = () => pids.length === 0 && (!unsure || looksLeft-- <= 0);
  let pids = live(true);
  while (pids.length === 0 && unsure && looksLeft-- > 0) {
    await delay(1);
    pids = live(true);
  }
  if (pids.length === 0) return;
  for (const sig of first) {
    signal(-leader, sig);
    for (const pid of pids) signal(pid, sig);
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await delay(10);
    pids = live();
    if (gone()) return;
  }
  for (let round = 0; round < 20 && !gone(); round++) {
    // The leader's group only while something of the tree is left: once it is all gone, its number may be another's.
    if (pids.length > 0) signal(-leader, 'SIGKILL');
    for (const pid of pids) signal(pid, 'SIGKILL');
    await delay(10);
    pids = live();
  }
}

/** How many more looks a kill takes, in all, at processes that may be escapees in an exec. */
const MID_EXEC_LOOKS = 20;

/**
 * What /proc/<pid>/stat says of the environment of a process whose environment read empty (its fields arg_start to
 * env_end, which an exec sets once the new memory is in place): `changing`, not set up (the middle of an exec; or no
 * memory at all: an exit, a kernel thread) or set up since the read (an exec that just ended); `empty` indeed (a
 * process started with none, `env -i`), or `empty, running`, which an exec also shows for an instant, as it sets
 * env_start and env_end to one value before it copies the environment. Undefined: gone, unreadable, or init or
 * kthreadd (parent 0), never an escapee.
 */
export function environmentState(pid: number): 'changing' | 'empty' | 'empty, running' | undefined {
  const text = readProcText(`/proc/${pid}/stat`);
  if (text === undefined) return undefined;
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid] = fields;
  // Fields 50 and 51 of the man page (env_start, env_end), counted here from field 3 (state).
  const envStart = fields[47];
  const envEnd = fields[48];
  if (envStart === undefined || envEnd === undefined || ppid === '0') return undefined;
  if (envStart === '0' || envStart !== envEnd) return 'changing';
  return state === 'R' || state === 'D' ? 'empty, running' : 'empty';
}
