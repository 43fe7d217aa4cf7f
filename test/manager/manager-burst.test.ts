import { describe, expect, it } from 'vitest';
import { BASH, useManagers } from '../helpers/manager.js';

const newManager = useManagers();

/** How many bursts per mode; BURST_RUNS=1000 makes a soak test of it. */
const RUNS = Number(process.env.BURST_RUNS ?? 100);
const BURST_BYTES = 1_000_000;
const BURST = `head -c ${BURST_BYTES} /dev/zero | tr '\\0' a`;

describe('UnifiedExecManager under an output burst followed by exit', () => {
  it.each([true, false])(
    `delivers every byte of a 1 MB burst and the exit, ${RUNS} times in a row (tty: %s)`,
    async (tty) => {
      // Budgets above the burst, so nothing is dropped or truncated on purpose.
      const manager = newManager({ outputMaxBytes: 4 * 1024 * 1024 });
      const request = { ...BASH, command: BURST, tty, yieldTimeMs: 30_000, maxOutputTokens: 1_000_000 };
      let bytesLost = 0;
      const badRuns: string[] = [];
      for (let run = 0; run < RUNS; run++) {
        const { exitCode, output, originalTokenCount } = await manager.execCommand(request);
        const onlyA = /^a*$/.test(output);
        if (exitCode !== 0 || originalTokenCount !== BURST_BYTES / 4 || output.length !== BURST_BYTES || !onlyA) {
          bytesLost += BURST_BYTES - output.length;
          badRuns.push(
            `run ${run}: exit ${exitCode}, ${output.length} chars, ${originalTokenCount} tokens, only a: ${onlyA}`,
          );
        }
      }
      expect({ bytesLost, badRuns }).toEqual({ bytesLost: 0, badRuns: [] });
      expect(manager.size).toBe(0);
    },
    120_000,
  );
});
