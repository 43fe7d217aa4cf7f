// The session watchdog: a tiny process that outlives the server. The server writes "+<pid>" / "-<pid>" lines for
// every session leader it starts and ends. When the server's end of the pipe closes — normal exit, crash, or
// SIGKILL, where no cleanup code of the server can run — it SIGKILLs every session still registered: the
// process group, every process of that session, and their descendants. Plain JS, no imports of the project:
// it must run the same from src/ (tests) and dist/.
import { readdirSync, readFileSync } from 'node:fs';

const leaders = new Set();
let pending = '';

function snapshot() {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      if (f[0] !== 'Z') out.push({ pid: Number(name), ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]) });
    } catch {
      // gone already
    }
  }
  return out;
}

function killAll() {
  for (let round = 0; round < 3 && leaders.size > 0; round++) {
    const procs = snapshot();
    const doomed = new Set(procs.filter((p) => leaders.has(p.sid) || leaders.has(p.pgid)).map((p) => p.pid));
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of procs) if (!doomed.has(p.pid) && doomed.has(p.ppid)) grew = doomed.add(p.pid) && true;
    }
    for (const leader of leaders) try { process.kill(-leader, 'SIGKILL'); } catch {}
    for (const pid of doomed) if (pid !== process.pid) try { process.kill(pid, 'SIGKILL'); } catch {}
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  pending += chunk;
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 0) continue;
    if (line[0] === '+') leaders.add(pid);
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
