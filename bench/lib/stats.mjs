/** Small statistics over samples in milliseconds (or any unit): nearest-rank percentiles. */

export function percentile(samples, p) {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (samples) => percentile(samples, 50);

/** Median, p95, min, max and count of a sample list, rounded for reading. */
export function summarize(samples) {
  return {
    n: samples.length,
    median: round(median(samples)),
    p95: round(percentile(samples, 95)),
    min: round(samples.length ? Math.min(...samples) : null),
    max: round(samples.length ? Math.max(...samples) : null),
  };
}

export function round(value, digits = 3) {
  if (value === null || value === undefined || !Number.isFinite(value)) return value ?? null;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** An idle pause between iterations (0: none), as between an agent's tool calls. */
export function idle(ms) {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** Sampling interval of the event-loop delay histogram. */
export const LAG_RESOLUTION_MS = 2;

/**
 * Event-loop lag percentiles in ms. The histogram records whole intervals between its timer's runs, so the
 * sampling interval itself is subtracted: an idle loop reads ~0.
 */
export function lagOf(histogram) {
  const lag = (ns) => Math.max(0, ns / 1e6 - LAG_RESOLUTION_MS);
  return { p50: lag(histogram.percentile(50)), p99: lag(histogram.percentile(99)), max: lag(histogram.max) };
}
