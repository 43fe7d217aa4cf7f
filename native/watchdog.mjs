// The session watchdog: a tiny process that outlives the server. The server writes "+<pid>" / "-<pid>" lines for
// every session leader it starts and ends. When the server's end of the pipe closes — normal exit, crash, or
// SIGKILL, where no cleanup code of the server can run — it SIGKILLs every session still registered: the
// process group, every process of that session, their descendants, and escapees (setsid, double fork) found by
// the UNIFIED_EXEC_TAG tag in their environment. Plain JS, no imports of the project: it must run the same
// from src/ (tests) and dist/. The protocol is "+<pid> <tag>\n" and "-<pid>\n".
import { readdirSync, readFileSync } from 'node:fs';

const leaders = new Map(); // pid -> tag
let pending = '';

function snapshot() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (f[0] !== 'Z')
        out.push({ pid: Number(name), state: f[0], ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]) });
    } catch {
      // gone already
    }
  }
  return out;
}

function kill(target) {
  try {
    process.kill(target, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** The tag in the process's environment; '' when that reads empty (as it does in the middle of an exec). */
function tagOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/environ`, 'latin1');
    if (text === '') return '';
    const environ = text.split('\0');
    const entry = environ.find((e) => e.startsWith('UNIFIED_EXEC_TAG='));
    return entry?.slice('UNIFIED_EXEC_TAG='.length);
  } catch {
    return undefined;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

function killAll() {
  const tags = new Set(leaders.values());
  // Three rounds, and more (a millisecond apart, up to 20) while a process that may be an escapee in the middle of
  // an exec is seen: running, its environment not there yet.
  let unsure = false;
  for (let round = 0; leaders.size > 0 && (round < 3 || (unsure && round < 20)); round++) {
    if (round >= 3) Atomics.wait(pause, 0, 0, 1);
    unsure = false;
    const procs = snapshot();
    const doomed = new Set(procs.filter((p) => leaders.has(p.sid) || leaders.has(p.pgid)).map((p) => p.pid));
    // Escapees are orphans or session leaders of their own; only those are worth reading the environment of.
    for (const p of procs) {
      if (doomed.has(p.pid) || !(p.ppid <= 1 || p.pid === p.sid)) continue;
      const tag = tagOf(p.pid);
      if (tag !== '' && tags.has(tag)) doomed.add(p.pid);
      else if (tag === '' && (p.state === 'R' || p.state === 'D') && p.ppid !== 0) unsure = true;
    }
    for (let grew = true; grew;) {
      grew = false;
      for (const p of procs) if (!doomed.has(p.pid) && doomed.has(p.ppid)) grew = doomed.add(p.pid) && true;
    }
    for (const leader of leaders.keys()) kill(-leader);
    for (const pid of doomed) if (pid !== process.pid) kill(pid);
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const [pidText, tag = ''] = line.slice(1).split(' ');
    const pid = Number(pidText);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (line[0] === '+') leaders.set(pid, tag);
    else if (line[0] === '-') leaders.delete(pid);
  }
});
const finish = () => {
  killAll();
  process.exit(0);
};
process.stdin.on('end', finish);
process.stdin.on('error', finish);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => undefined); // outlive the server's group
