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
