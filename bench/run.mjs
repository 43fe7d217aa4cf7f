/**
 * `npm run bench`: every figure for every driver, each in a worker process of its own, one after another (never
 * two at once on this 2-core machine). Prints a table with targets, writes bench/results/latest.json plus a
 * timestamped copy, and bench/results/chart.svg. BENCH_QUICK=1 runs a ~2.5 min smoke version into
 * bench/results/quick/; BENCH_ONLY=14,flood runs only the figures it names (into bench/results/only/).
 */
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probeLandlock, probeSandbox } from '../dist/sandbox/backend-probe.js';
import { DRIVERS, checkTarget, figures, pickFigures } from './plan.mjs';
import { renderChart } from './lib/chart.mjs';
import { codexUnavailable } from './lib/elsewhere.mjs';
import { TS_CACHE_VAR } from './lib/test-modules.mjs';
import { findOurProcesses, killStrays } from './lib/strays.mjs';
import { formatTable } from './lib/report.mjs';
import { round } from './lib/stats.mjs';

const QUICK = process.env.BENCH_QUICK === '1';
// Some figures only (see pickFigures): the results go to results/only/, so latest.json stays a whole run's.
const ONLY = process.env.BENCH_ONLY || undefined;
const WORKER_TIMEOUT_MS = 150_000;
const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));
// Every process the bench starts inherits this, so the end-of-run check can find anything left behind.
const RUN_ID = randomBytes(6).toString('hex');

// Test-suite modules the workers load (scenarios, exec-server and Podman set-up) are transpiled once per run.
const tsCache = mkdtempSync(join(tmpdir(), 'ue-bench-ts-'));
process.env[TS_CACHE_VAR] = tsCache;
process.on('exit', () => rmSync(tsCache, { recursive: true, force: true }));

const startedAt = new Date();
const t0 = performance.now();
const loadAtStart = loadavg().map((l) => round(l, 2));
if (loadAtStart[0] > cpus().length / 2) {
  process.stdout.write(
    `note: load average ${loadAtStart.join(' ')} on ${cpus().length} CPUs: other work is running, expect noise\n`,
  );
}
const hasTmux = commandWorks('tmux', ['-V']);
const sandbox = probeSandbox();
const landlock = probeLandlock();
const hasPodman = commandWorks('podman', ['--version']);
/**
 * Why a driver that needs a tool cannot run here (undefined: it can). Whether Podman can run (installed, root, a
 * container that starts) is the test suite's set-up to say: the container rows' worker tries it and skips with it.
 */
const unavailable = {
  tmux: hasTmux ? undefined : 'tmux is not on PATH',
  bwrap: sandbox.ok ? undefined : `the sandbox cannot run here: ${sandbox.reason}`,
  landlock: landlock.ok ? undefined : `the Landlock backend cannot run here: ${landlock.reason}`,
  codex: await codexUnavailable(),
};
const plan = ONLY ? pickFigures(figures(QUICK), ONLY) : figures(QUICK);
const out = [];
/** Each figure's variants with their workers' results, for the figures built `from` it. */
const measured = new Map();

for (const figure of plan) {
  process.stdout.write(`${figure.title}\n`);
  const figureStart = performance.now();
  const states = figure.from ? measured.get(figure.from) : await runVariants(figure);
  measured.set(figure.id, states);
  const rows = rowsOf(figure, states);
  const seconds = round((performance.now() - figureStart) / 1000, 1);
  process.stdout.write(`  (${seconds} s)\n`);
  addRatios(figure, rows);
  const targets = figure.targets.map((target) => {
    const row = rows.find((r) => r.key === target.variant);
    if (!row || row.value === undefined) return { ...target, text: '', pass: false, missing: true };
    return { ...target, ...checkTarget(target, row) };
  });
  out.push({ id: figure.id, title: figure.title, valueLabel: figure.valueLabel, seconds, rows, targets });
}

const strays = await findOurProcesses(RUN_ID, 3_000);
if (strays.length > 0) killStrays(strays);
const durationSeconds = round((performance.now() - t0) / 1000, 1);
const report = {
  startedAt: startedAt.toISOString(),
  durationSeconds,
  quick: QUICK,
  ...(ONLY ? { only: ONLY } : {}),
  loadAverage: { start: loadAtStart, end: loadavg().map((l) => round(l, 2)) },
  library: libraryVersion(),
  machine: {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memGiB: round(totalmem() / 2 ** 30, 1),
    kernel: release(),
    node: process.version,
    tmux: hasTmux ? execFileSync('tmux', ['-V']).toString().trim() : null,
    bwrap: sandbox.ok ? execFileSync(sandbox.bwrap, ['--version']).toString().trim() : null,
    podman: hasPodman ? execFileSync('podman', ['--version']).toString().trim() : null,
  },
  leftoverProcesses: strays,
  figures: out,
};

process.stdout.write(`\n${formatTable(report)}\n`);
// A quick run (tests, CI) must not overwrite the committed full results: it writes under results/quick/. A run of
// some figures writes its latest.json and chart under results/only/; a full-mode one also `<date>-only.json` here.
const sub = QUICK ? 'quick/' : ONLY ? 'only/' : '';
const dir = `${RESULTS_DIR}${sub}`;
mkdirSync(dir, { recursive: true });
const json = `${JSON.stringify(report, null, 2)}\n`;
const stamp = startedAt
  .toISOString()
  .replace(/:/g, '-')
  .replace(/\.\d+Z$/, 'Z');
const copy = QUICK ? undefined : `${stamp}${ONLY ? '-only' : ''}.json`;
writeFileSync(`${dir}latest.json`, json);
writeFileSync(`${dir}chart.svg`, renderChart(report));
if (copy) writeFileSync(`${RESULTS_DIR}${copy}`, json);
const written = [`${sub}latest.json`, `${sub}chart.svg`, ...(copy ? [copy] : [])];
process.stdout.write(`wrote ${written.map((file) => `bench/results/${file}`).join(', ')}\n`);
process.stdout.write(
  `load average (1/5/15 min) at start ${report.loadAverage.start.join(' ')}, at end ${report.loadAverage.end.join(' ')}\n`,
);
process.stdout.write(
  `total ${durationSeconds} s${strays.length ? `; ${strays.length} stray processes were killed` : '; no processes left behind'}\n`,
);

/**
 * Runs a figure's variants. Repetitions interleave (raw, A, B, raw, A, B, ...) so that load from outside the bench,
 * which drifts, lands on every driver alike instead of on whichever ran last.
 */
async function runVariants(figure) {
  const states = figure.variants.map((variant) => {
    const driver = DRIVERS[variant.driver];
    const key = variant.key ?? variant.driver;
    const base = { key, driver: variant.driver, label: driver.label, note: variant.note };
    const skipped = driver.needs ? unavailable[driver.needs] : undefined;
    return { variant, driver, key, base, results: [], skipped, error: undefined };
  });
  const rounds = Math.max(...figure.variants.map((v) => v.reps ?? 1));
  for (let rep = 0; rep < rounds; rep++) {
    for (const state of states) {
      if (state.skipped || state.error || rep >= (state.variant.reps ?? 1)) continue;
      const job = {
        module: state.driver.module,
        figure: figure.figure,
        params: { ...state.driver.params, ...state.variant.params },
      };
      const answer = await runWorker(job);
      if (answer.leftovers?.length)
        process.stderr.write(`  ! ${state.key} left processes behind: ${JSON.stringify(answer.leftovers)}\n`);
      if (answer.error) state.error = answer.error.split('\n')[0];
      else if (answer.result.skipped) state.skipped = answer.result.skipped;
      else state.results.push({ ...answer.result, workerPeakRss: answer.workerPeakRss, workerMs: answer.ms });
    }
  }
  return states;
}

/** A figure's rows from its variants' results (or skip reasons, or errors). */
function rowsOf(figure, states) {
  return states.map(({ key, base, results, skipped, error }) => {
    if (skipped) {
      process.stdout.write(`  ${key.padEnd(26)} skipped: ${skipped}\n`);
      return { ...base, skipped };
    }
    if (error) {
      process.stdout.write(`  ${key.padEnd(26)} ERROR ${error}\n`);
      return { ...base, error };
    }
    const row = { ...base, ...figure.row(results) };
    process.stdout.write(`  ${key.padEnd(26)} ${row.value} ${row.unit}\n`);
    // A figure built `from` another shares its results: the JSON has them once, with that figure.
    return figure.from ? row : { ...row, raw: compact(results) };
  });
}

/**
 * value ÷ the raw row's value, for every row of a figure that has a raw floor; and for a row with `compareTo`,
 * value ÷ that row's value and the difference (`compared`).
 */
function addRatios(figure, rows) {
  for (const variant of figure.variants.filter((v) => v.compareTo)) {
    const row = rows.find((r) => r.key === (variant.key ?? variant.driver));
    const other = rows.find((r) => r.key === variant.compareTo.key);
    if (row?.value === undefined || other?.value === undefined) continue;
    row.compared = {
      ...variant.compareTo,
      ratio: round(row.value / other.value, 2),
      difference: round(row.value - other.value, 3),
    };
  }
  if (figure.noFloor) return;
  const raw = rows.find((r) => r.key === 'raw');
  if (!raw || raw.value === undefined) return;
  for (const row of rows) {
    if (row.value === undefined) continue;
    row.ratio = round(row.value / Math.max(raw.value, figure.ratioFloor ?? Number.EPSILON), 2);
    if (row.peakRssMiB !== undefined && raw.peakRssMiB) row.rssRatio = round(row.peakRssMiB / raw.peakRssMiB, 2);
  }
}

/** Worker results for the JSON, samples rounded to µs. */
function compact(results) {
  const toMicroseconds = (samples) => samples?.map((s) => round(s, 3));
  return results.map((r) => ({
    ...r,
    ...(r.samples ? { samples: toMicroseconds(r.samples) } : {}),
    ...(r.aloneSamples ? { aloneSamples: toMicroseconds(r.aloneSamples) } : {}),
  }));
}

function runWorker(job) {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(new URL('./worker.mjs', import.meta.url)), [JSON.stringify(job)], {
      env: { ...process.env, UE_BENCH_RUN: RUN_ID },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let answer;
    const timer = setTimeout(() => {
      // The worker cleans up on SIGTERM; SIGKILL only if it does not leave.
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    }, WORKER_TIMEOUT_MS);
    child.on('message', (message) => (answer = message));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(answer ?? { error: `worker ended (${signal ?? code}) without an answer` });
    });
  });
}

/** Which library code was measured: the commit, and whether src/ differed from it (read-only git). */
function libraryVersion() {
  try {
    const git = (...args) =>
      execFileSync('git', args, {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim();
    return {
      commit: git('rev-parse', '--short', 'HEAD'),
      srcModified: git('status', '--porcelain', '--', 'src') !== '',
    };
  } catch {
    return { commit: null, srcModified: null };
  }
}

function commandWorks(file, args) {
  try {
    execFileSync(file, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
