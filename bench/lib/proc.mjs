/** What the bench reads about processes from /proc: peak memory, descendants, and group kills. */
import { readFileSync, readdirSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';

/** A /proc/<pid>/status field in bytes (VmHWM = peak RSS, VmRSS = now), or null when it cannot be read. */
export function statusBytes(pid, field) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Samples this process's RSS every `intervalMs`; stop() returns the highest value seen (bytes). */
export function sampleRss(intervalMs = 20) {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

let collectGarbage;

/**
 * This process's RSS (bytes) after two full garbage collections: what it holds, not what it has yet to collect.
 * Workers run without --expose-gc, so gc is exposed here, the first time it is needed.
 */
export function settledRss() {
  return settledMemory().rss;
}

/**
 * After two full garbage collections: this process's RSS, and what its JavaScript holds (`held`: the V8 heap in use
 * plus memory outside it that objects own, Buffers included). RSS also counts memory freed but not yet given back
 * to the system (the allocator keeps it for reuse), so after a burst of output it is the larger of the two.
 */
export function settledMemory() {
  if (!collectGarbage) {
    v8.setFlagsFromString('--expose-gc');
    collectGarbage = vm.runInNewContext('gc');
  }
  collectGarbage();
  collectGarbage();
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rss, held: heapUsed + external };
}

/**
 * How long a process must have allocated little before its RSS is what it holds at rest. V8 keeps its young
 * generation at the size a burst of allocation grew it (opening 1024 sessions at once: ~30 MiB more) until a
 * collection finds the allocation rate of the last 5 s low; measured here, the RSS after GC was the same 1 s and 3 s
 * after such a burst, and back down at 6 s, in raw node-pty's process as in ours.
 */
export const IDLE_SETTLE_MS = 6000;

/** settledRss() once this process has been idle for `ms` more (see IDLE_SETTLE_MS). */
export async function restingRss(ms = IDLE_SETTLE_MS) {
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settledRss();
}

/** CPU time (user + system, ms) this process has spent since `before` (a `process.cpuUsage()`). */
export function cpuMsSince(before) {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

/** CPU time (user + system, ms) this process spends over `ms` of wall time in which the driver does nothing. */
export async function idleCpuMs(ms) {
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return cpuMsSince(before);
}

/** pid → ppid for every live process (a process can vanish mid-scan; it is skipped). */
function parentTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z' || fields[0] === 'X') continue;
      table.set(Number(name), Number(fields[1]));
    } catch {
      // gone
    }
  }
  return table;
}

/** Live (non-zombie) descendants of `root`. */
export function descendants(root = process.pid) {
  const table = parentTable();
  const found = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop();
    for (const [pid, ppid] of table) {
      if (ppid === parent) {
        found.push(pid);
        frontier.push(pid);
      }
    }
  }
  return found;
}

/** Signals a process group; a group that is already gone is fine. */
export function killGroup(pid, signal = 'SIGKILL') {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}
