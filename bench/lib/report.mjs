/** The text table `npm run bench` prints: one block per figure, targets and PASS/MISS next to the numbers. */

const fmt = (value, unit) => (value === null || value === undefined ? '—' : `${formatNumber(value)} ${unit}`);
/** A difference, with its sign. */
const signed = (value, unit) => `${value >= 0 ? '+' : '−'}${fmt(Math.abs(value), unit)}`;

function formatNumber(value) {
  if (value === 0) return '0';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  if (Math.abs(value) >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

const isFlood = (figureId) => ['flood', 'flood-elsewhere', 'screen-flood', 'screen-flood-alt'].includes(figureId);

/** What else a row should say, figure by figure. */
function notes(figureId, row) {
  const parts = [];
  if (row.compared) {
    const { ratio, difference, label } = row.compared;
    parts.push(`${formatNumber(ratio)}× ${label} (${signed(difference, row.unit)})`);
  }
  if (row.wrong) parts.push(`${row.wrong} wrong replies`);
  // The deadline rule never reports waiting_for_input; only say so for input-wait.
  if (row.notWaiting && !row.key.startsWith('ue-deadline'))
    parts.push(`${row.notWaiting} answers not waiting_for_input`);
  if (row.answerMs !== undefined) {
    parts.push(
      row.inputWait
        ? `the call answers in ${fmt(row.answerMs, 'ms')} (p95 ${fmt(row.answerP95Ms, 'ms')}, input-wait)`
        : `the call answers at its yield, ${fmt(row.answerMs, 'ms')} (no input-wait there)`,
    );
  }
  if (isFlood(figureId)) {
    parts.push(`peak RSS ${row.peakRssMiB} MiB${row.rssRatio !== undefined ? ` (${row.rssRatio}× raw)` : ''}`);
    if (row.rssOf !== 'bench worker (this driver only)') parts.push(`RSS of ${row.rssOf}`);
    if (row.serverPeakRssMiB !== undefined) parts.push(`exec-server peak RSS ${row.serverPeakRssMiB} MiB`);
    if (row.bytesLost) parts.push(`${row.bytesLost} bytes lost`);
    if (row.cpuMsPerMB !== undefined) parts.push(`worker CPU ${fmt(row.cpuMsPerMB, 'ms')}/MB`);
    parts.push(`${row.seconds} s, ${row.n} run${row.n > 1 ? 's' : ''}`);
  }
  if (figureId === 'open-spread') {
    parts.push(
      `${row.opened} opened; closing all took ${fmt(row.closeMs, 'ms')}; ${row.listed} still listed, ${row.left} processes left`,
    );
  }
  if (figureId === 'lag' || figureId === 'idle-lag') {
    parts.push(`p50 ${row.p50} ms, max ${row.max} ms, ${row.seconds} s`);
  }
  if (figureId === 'cold-start' && row.secondMedian !== undefined) {
    parts.push(`second call median ${fmt(row.secondMedian, 'ms')}, max ${fmt(row.secondMax, 'ms')}`);
  }
  if (figureId === 'cold-start' && row.codexBeforeMedian !== undefined) {
    parts.push(
      `Codex's rule just before each server: median ${fmt(row.codexBeforeMedian, 'ms')}, ${row.codexOverYield} of ${row.n} over the yield; ${row.missedWhileCodexInTime} first calls not exited while it was within`,
    );
  }
  if (figureId === 'open-many') {
    parts.push(`${row.opened} sessions; closing them all took ${fmt(row.closeMs, 'ms')}`);
  }
  if (figureId === 'idle-rt') {
    parts.push(
      `p99 ${fmt(row.p99Ms, 'ms')}; one session alone ${fmt(row.aloneMs, 'ms')} (p99 ${fmt(row.aloneP99Ms, 'ms')}): ${formatNumber(row.medianVsAlone)}× / ${formatNumber(row.p99VsAlone)}× alone`,
    );
  }
  if (figureId === 'idle-rss') {
    const rested = row.rssRestedMiB === undefined ? '' : ` (1 s after opening), ${row.rssRestedMiB} MiB at rest`;
    parts.push(
      `RSS ${row.rssBeforeMiB} → ${row.rssIdleMiB} MiB${rested}; CPU while idle ${fmt(row.idleCpuMs, 'ms')} in 1 s`,
    );
    if (row.rssRestedMiB !== undefined) parts.push(`1 s after opening: ${fmt(row.oneSecondKiB, 'KiB')} a session`);
  }
  if (figureId === 'screen-rss' || figureId === 'screen-rss-alt') {
    parts.push(
      `held ${fmt(row.heldKiB, 'KiB')} (heap + external); RSS ${row.rssBeforeMiB} → ${row.rssMiB} MiB with ${row.count}`,
    );
    if (row.addedKiB !== undefined)
      parts.push(
        `${signed(row.addedKiB, 'KiB')} RSS, ${signed(row.addedHeldKiB, 'KiB')} held a session over idle at the prompt`,
      );
  }
  if (row.shown !== undefined) parts.push(`${row.shown} replies showed the screen`);
  if (row.firstCallMs !== undefined) {
    parts.push(
      `first call ${fmt(row.firstCallMs, 'ms')} (sent 1 s after the start; max ${fmt(row.firstCallMaxMs, 'ms')} of ${row.firstCalls})`,
    );
  }
  if (row.fellBack) parts.push(`${row.fellBack} calls ran a real login shell (snapshot failed)`);
  if (row.profileSeen !== undefined) parts.push(`profile seen: ${row.profileSeen}`);
  if (row.teardownMs !== undefined) parts.push(`shutdown ${row.teardownMs} ms`);
  if (row.p99 !== undefined) parts.push(`p99 ${fmt(row.p99, row.unit)}`);
  if (row.inManagerMs !== undefined) {
    parts.push(
      `per call ${fmt(row.inManagerMs, 'ms')} in the manager (wall_time_seconds), ${fmt(row.outsideMs, 'ms')} outside it (MCP, both processes)`,
    );
  }
  if (figureId === 'scenarios') {
    parts.push(
      `${row.premature} premature, wasted wait median ${row.wastedMedianMs} ms (p95 ${row.wastedP95Ms} ms), n=${row.n}`,
    );
    if (row.errors) parts.push(`${row.errors} errors`);
  } else if (row.n !== undefined && !isFlood(figureId) && !['lag', 'idle-lag', 'open-spread'].includes(figureId)) {
    parts.push(`n=${row.n}`);
  }
  return parts.join('; ');
}

export function formatTable(report) {
  const lines = [];
  for (const figure of report.figures) {
    const header = ['driver', figure.valueLabel ?? 'value', 'p95', 'vs raw', 'target', '', 'notes'];
    const table = [header];
    for (const row of figure.rows) {
      const label = row.note ? `${row.label} (${row.note})` : row.label;
      if (row.skipped || row.error) {
        table.push([label, '—', '—', '—', '', '', row.skipped ? `skipped: ${row.skipped}` : `ERROR: ${row.error}`]);
        continue;
      }
      const targets = figure.targets.filter((t) => t.variant === row.key);
      table.push([
        label,
        fmt(row.value, row.unit),
        row.p95 === undefined ? '—' : fmt(row.p95, row.unit),
        row.ratio === undefined ? '—' : `${formatNumber(row.ratio)}×`,
        targets.map((t) => t.text).join(', '),
        targets.map((t) => (t.pass ? 'PASS' : 'MISS')).join(', '),
        notes(figure.id, row),
      ]);
    }
    const widths = header.map((_, i) => Math.max(...table.map((r) => r[i].length)));
    lines.push(figure.title);
    for (const r of table)
      lines.push(`  ${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')}`.trimEnd());
    lines.push('');
  }
  const all = report.figures.flatMap((f) => f.targets.map((t) => ({ ...t, figure: f.id })));
  const missed = all.filter((t) => !t.pass);
  const list = missed.map((t) => `${t.figure} ${t.variant} ${t.text}`).join('; ');
  lines.push(`targets: ${all.length - missed.length}/${all.length} PASS${missed.length ? ` — MISS: ${list}` : ''}`);
  return lines.join('\n');
}
