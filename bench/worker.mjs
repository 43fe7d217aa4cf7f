/**
 * Runs one figure for one driver in a process of its own, so peak RSS and event-loop lag belong to that driver
 * alone. Started by run.mjs with a job as argv[2], e.g.
 *   node bench/worker.mjs '{"module":"unified","figure":"flood","params":{"bytes":20000000,"returnOn":"input-wait"}}'
 * (build first). Answers over IPC, or on stdout when started by hand; ends everything it started before leaving.
 */
import { readFileSync } from 'node:fs';
import { cleanupAll, cleanupOnSignals } from './lib/cleanup.mjs';
import { descendants, statusBytes } from './lib/proc.mjs';

// The same known prompt for every driver (bash reads PS1 from its environment; nothing else uses it).
process.env.PS1 = '$ ';
cleanupOnSignals();
// The runner went away (killed, Ctrl-C): end what this worker started instead of running on alone.
process.on('disconnect', () => void cleanupAll().finally(() => process.exit(1)));

const job = JSON.parse(process.argv[2]);
const driver = await import(`./drivers/${job.module}.mjs`);

let result;
let error;
const t0 = performance.now();
try {
  result = await driver[job.figure](job.params);
} catch (err) {
  error = err instanceof Error ? err.stack : String(err);
}
const ms = performance.now() - t0;
await cleanupAll();

const leftovers = await waitForLeftovers();
const answer = { result, error, ms, workerPeakRss: statusBytes('self', 'VmHWM'), leftovers };
// Started by run.mjs: answer over IPC. Started by hand (e.g. under --cpu-prof): print the answer.
if (process.send) process.send(answer, () => process.exit(0));
else process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);

/**
 * Processes of ours still alive after cleanup (given a moment to be reaped). The library's watchdog is expected:
 * it lives as long as this process and leaves when its pipe closes.
 */
async function waitForLeftovers() {
  let left = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    left = descendants().filter((pid) => !commandLine(pid).includes('watchdog.mjs'));
    if (left.length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return left.map((pid) => ({ pid, cmd: commandLine(pid) }));
}

function commandLine(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}
