/**
 * bench/results/chart.svg, built by hand (no dependencies): one group of bars per figure, each bar the driver's
 * number divided by raw node-pty's, on a log scale so 0.1× and 1000× both read. Ratio targets are drawn as red
 * ticks; the scenario figure, which has no raw floor, is summarised in text below.
 */

const COLORS = {
  raw: '#7f7f7f',
  'ue-input-wait': '#1f77b4',
  'ue-input-wait-tty': '#1f77b4',
  'ue-input-wait-concurrent': '#1f77b4',
  'ue-input-wait-pipes': '#9ecae1',
  'ue-input-wait-sequential': '#9467bd',
  'ue-deadline': '#ff7f0e',
  'ue-deadline-tty': '#ff7f0e',
  'ue-deadline-concurrent': '#ff7f0e',
  tmux: '#2ca02c',
  'raw-bwrap': '#bcbd22',
  'ue-sandboxed': '#d6616b',
  'ue-sandboxed-tty': '#d6616b',
  'ue-sandboxed-pipes': '#f2a7ad',
  'ue-local': '#1f77b4',
  'ue-local-tty': '#1f77b4',
  'ue-local-pipes': '#9ecae1',
  'ue-ours': '#17becf',
  'ue-ours-base64': '#9edae5',
  'ue-ours-tty': '#17becf',
  'ue-ours-pipes': '#9edae5',
  'ue-codex': '#8c564b',
  'ue-codex-tty': '#8c564b',
  'ue-codex-pipes': '#c49c94',
  'ue-container': '#e377c2',
  'ue-container-tty': '#e377c2',
  'ue-container-pipes': '#f7b6d2',
  'ue-login-real': '#ffbb78',
  'ue-login-snapshot': '#1f77b4',
  'ue-login-plain': '#aec7e8',
  'ue-mcp': '#393b79',
  'ue-screens': '#1f77b4',
  'ue-no-screens': '#637939',
  'ue-screen-false': '#e7ba52',
  'ue-screen-true': '#1f77b4',
  'ue-screen-keys': '#7b4173',
  'ue-no-screens-keys': '#a55194',
};

const LEGEND = [
  ['raw', 'raw node-pty (floor = 1.0)'],
  ['ue-input-wait', 'unified-exec, input-wait'],
  ['ue-input-wait-pipes', 'unified-exec, tty: false'],
  ['ue-input-wait-sequential', 'unified-exec, sequential opens'],
  ['ue-deadline', 'unified-exec, deadline (Codex rule)'],
  ['tmux', 'tmux send-keys / capture-pane'],
  ['raw-bwrap', 'raw node-pty + bwrap'],
  ['ue-sandboxed', 'unified-exec sandboxed (workspace-write)'],
  ['ue-sandboxed-pipes', 'sandboxed, tty: false'],
  ['ue-ours', 'via our exec-server'],
  ['ue-ours-base64', 'via our exec-server, base64 JSON'],
  ['ue-codex', 'via codex exec-server'],
  ['ue-container', 'in a container (Podman)'],
  ['ue-login-real', 'real login shell'],
  ['ue-login-plain', 'login: false'],
  ['ue-mcp', 'over MCP stdio (SDK client)'],
  ['ue-no-screens', 'screens: false (manager)'],
  ['ue-screen-false', 'screen: false (reply)'],
  ['ue-screen-keys', "keys: ['Down']"],
];

/** The chart's groups: which number of which figure, and which way is better. */
const GROUPS = [
  { figure: 'rt-bash', label: 'round trip bash', what: 'median', better: 'lower' },
  { figure: 'rt-python', label: 'round trip python', what: 'median', better: 'lower' },
  { figure: 'exec-short', label: "exec 'echo hi'", what: 'median', better: 'lower' },
  { figure: 'flood', label: 'flood throughput', what: 'MB/s', better: 'higher' },
  // tmux's output lives in its server, a C program without node's ~50 MiB baseline: not comparable, left out.
  {
    figure: 'flood',
    label: 'flood peak RSS',
    what: 'MiB',
    better: 'lower',
    field: 'rssRatio',
    absolute: (r) => `${r.peakRssMiB} MiB`,
    exclude: ['tmux'],
  },
  { figure: 'open-64', label: 'open 64 sessions', what: 'median', better: 'lower' },
  { figure: 'lag', label: 'event-loop lag p99', what: 'p99', better: 'lower' },
  { figure: 'rt-elsewhere', label: 'round trip elsewhere', what: 'median (marker)', better: 'lower' },
  { figure: 'exec-elsewhere', label: 'exec elsewhere', what: 'median', better: 'lower' },
  { figure: 'flood-elsewhere', label: 'flood via exec-server', what: 'MB/s', better: 'higher' },
  { figure: 'login-fixture', label: 'login, 300 ms profile', what: 'median', better: 'lower' },
  { figure: 'login-machine', label: 'login, this machine', what: 'median', better: 'lower' },
  { figure: 'open-many', label: (count) => `open ${count} sessions`, what: 'wall time', better: 'lower' },
  { figure: 'idle-rt', label: (count) => `round trip, ${count} idle`, what: 'median', better: 'lower' },
  { figure: 'idle-lag', label: (count) => `lag p99, ${count} idle`, what: 'p99', better: 'lower' },
  { figure: 'idle-rss', label: 'RSS per idle session', what: 'KiB', better: 'lower' },
  { figure: 'rt-mcp', label: 'round trip over MCP', what: 'median', better: 'lower' },
  { figure: 'screen-flood', label: 'flood, screens', what: 'MB/s', better: 'higher' },
  { figure: 'screen-flood-alt', label: 'flood, alt. screen', what: 'MB/s', better: 'higher' },
  { figure: 'screen-rss', label: 'RSS/session, prompt', what: 'KiB', better: 'lower' },
  { figure: 'screen-rss-alt', label: 'RSS/session, less', what: 'KiB', better: 'lower' },
  { figure: 'screen-keys', label: 'key in less', what: 'median', better: 'lower' },
];

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));

export function renderChart(report) {
  // Figure 13's labels say how many sessions it opened (1024; fewer in a quick run).
  const manyCount = report.figures.find((f) => f.id === 'open-many')?.rows.find((r) => r.opened)?.opened;
  const groups = GROUPS.map((g) => {
    const figure = report.figures.find((f) => f.id === g.figure);
    const bars = (figure?.rows ?? [])
      .filter(
        (r) => typeof r[g.field ?? 'ratio'] === 'number' && r[g.field ?? 'ratio'] > 0 && !g.exclude?.includes(r.key),
      )
      .map((r) => ({
        key: r.key,
        ratio: r[g.field ?? 'ratio'],
        absolute: g.absolute ? g.absolute(r) : `${num(r.value)} ${r.unit}`,
      }));
    const targets = g.field ? [] : (figure?.targets ?? []).filter((t) => t.field === 'ratio');
    return { ...g, label: typeof g.label === 'function' ? g.label(manyCount ?? 'many') : g.label, bars, targets };
  }).filter((g) => g.bars.length > 0);

  const ratios = groups.flatMap((g) => g.bars.map((b) => b.ratio));
  const lo = Math.min(0.1, 10 ** Math.floor(Math.log10(Math.min(...ratios))));
  const hi = Math.max(10, 10 ** Math.ceil(Math.log10(Math.max(...ratios) * 1.5)));
  const W = Math.max(1400, 90 + 150 * groups.length); // about 150 px a group, enough for its label
  const H = 640;
  const left = 70;
  const right = 20;
  const top = 80;
  const plotH = 380;
  const bottom = top + plotH;
  const y = (v) => bottom - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotH;
  const groupW = (W - left - right) / groups.length;

  const svg = [];
  svg.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif">`,
  );
  svg.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  svg.push(
    `<text x="${W / 2}" y="28" text-anchor="middle" font-size="18" font-weight="bold">unified-exec benchmark — each bar ÷ raw node-pty (= 1.0), log scale</text>`,
  );
  const commit = report.library?.commit ? ` · ${report.library.commit}${report.library.srcModified ? '+' : ''}` : '';
  const when = `${report.startedAt.slice(0, 16).replace('T', ' ')} UTC${commit} · ${report.machine.cpus} CPUs · node ${report.machine.node} · load ${report.loadAverage.start[0]} · ${report.durationSeconds} s${report.quick ? ' · QUICK run' : ''}`;
  svg.push(
    `<text x="${W / 2}" y="50" text-anchor="middle" font-size="12" fill="#555">${esc(when)} · above 1.0 = more than raw (worse for time and memory, better for throughput)</text>`,
  );

  // Axis with a gridline per decade; the floor (1.0) dashed.
  for (let d = Math.log10(lo); d <= Math.log10(hi) + 1e-9; d++) {
    const v = 10 ** d;
    svg.push(
      `<line x1="${left}" x2="${W - right}" y1="${y(v)}" y2="${y(v)}" stroke="${v === 1 ? '#333' : '#e3e3e3'}" ${v === 1 ? 'stroke-dasharray="6 4"' : ''}/>`,
    );
    svg.push(
      `<text x="${left - 8}" y="${y(v) + 4}" text-anchor="end" font-size="11">${v >= 1 ? v : v.toPrecision(1)}×</text>`,
    );
  }
  svg.push(`<line x1="${left}" x2="${left}" y1="${top}" y2="${bottom}" stroke="#333"/>`);

  groups.forEach((g, gi) => {
    const x0 = left + gi * groupW;
    const barW = Math.min(26, (groupW - 20) / g.bars.length);
    const start = x0 + (groupW - barW * g.bars.length) / 2;
    g.bars.forEach((b, bi) => {
      const x = start + bi * barW;
      const yTop = y(Math.max(b.ratio, lo));
      svg.push(
        `<rect x="${x + 1}" y="${yTop}" width="${barW - 2}" height="${bottom - yTop}" fill="${COLORS[b.key] ?? '#999'}"><title>${esc(`${b.key}: ${b.ratio}× raw (${b.absolute})`)}</title></rect>`,
      );
      // Vertical label: inside a bar tall enough to hold it, else above it (and above its target tick).
      const label = `${num(b.ratio)}× · ${b.absolute}`;
      const inside = bottom - yTop > label.length * 6 + 8;
      const target = g.targets.find((t) => t.variant === b.key);
      const lx = x + barW / 2 + 4;
      const ly = inside ? yTop + 6 : Math.min(yTop, target ? y(target.value) : yTop) - 4;
      svg.push(
        `<text x="${lx}" y="${ly}" font-size="10" ${inside ? 'text-anchor="end" fill="#fff"' : ''} transform="rotate(-90 ${lx} ${ly})">${esc(label)}</text>`,
      );
      if (target) {
        const ty = y(target.value);
        svg.push(
          `<line x1="${x - 2}" x2="${x + barW}" y1="${ty}" y2="${ty}" stroke="#d62728" stroke-width="3"><title>target ${esc(target.text)}</title></line>`,
        );
      }
    });
    svg.push(
      `<text x="${x0 + groupW / 2}" y="${bottom + 20}" text-anchor="middle" font-size="13" font-weight="bold">${esc(g.label)}</text>`,
    );
    svg.push(
      `<text x="${x0 + groupW / 2}" y="${bottom + 36}" text-anchor="middle" font-size="11" fill="#555">${esc(`${g.what}, ${g.better} is better`)}</text>`,
    );
  });

  // Legend, then the scenario figure (no raw floor) as text.
  let lx = left;
  let ly = bottom + 62;
  for (const [key, label] of LEGEND) {
    const width = 30 + label.length * 6.3;
    if (lx + width > W - right) {
      lx = left;
      ly += 18;
    }
    svg.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${COLORS[key]}"/>`);
    svg.push(`<text x="${lx + 17}" y="${ly}" font-size="12">${esc(label)}</text>`);
    lx += width;
  }
  svg.push(
    `<line x1="${lx}" x2="${lx + 14}" y1="${ly - 4}" y2="${ly - 4}" stroke="#d62728" stroke-width="3"/><text x="${lx + 19}" y="${ly}" font-size="12">target</text>`,
  );
  const scenarios = report.figures.find((f) => f.id === 'scenarios');
  let sy = ly + 30;
  if (scenarios) {
    const source = scenarios.rows.find((r) => r.source)?.source;
    svg.push(
      `<text x="${left}" y="${sy}" font-size="13" font-weight="bold">${esc(`${scenarios.title}${source ? ` — ${source}` : ''}`)}</text>`,
    );
    for (const r of scenarios.rows.filter((row) => row.value !== undefined)) {
      sy += 18;
      const line = `${r.label} (${r.note ?? ''}): ${r.value}% correct states, ${r.premature} premature, wasted wait median ${r.wastedMedianMs} ms (p95 ${r.wastedP95Ms} ms), n=${r.n}`;
      svg.push(`<text x="${left}" y="${sy}" font-size="12">${esc(line)}</text>`);
    }
  }
  svg.push('</svg>');
  return `${svg.join('\n')}\n`;
}
