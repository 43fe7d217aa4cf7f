import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOAK, startServer, type ServerUnderTest } from './harness.js';

const BURST_BYTES = 1_000_000;
// One line of a million `a`s, printed as fast as the pipe or terminal takes it, then exit: the race between the
// last bytes and the exit is where output gets lost. It fits the default 1 MiB session buffer whole.
const BURST = `head -c ${BURST_BYTES} /dev/zero | tr '\\0' a`;
const RUNS = SOAK ? 500 : 50;
/** Tokens are ceil(bytes / 4): this many let the whole burst through untruncated. */
const MAX_OUTPUT_TOKENS = Math.ceil(BURST_BYTES / 4) + 1_000;

function countA(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 97) count++;
  return count;
}

describe('a 1 MB burst right before exit', () => {
  let server: ServerUnderTest;
  const figures: string[] = [];
  beforeAll(async () => {
    server = await startServer('exit-bursts');
  });
  afterAll(async () => {
    await server?.close();
    console.log(`exit-bursts: ${figures.join('; ')}`);
  });

  for (const tty of [true, false]) {
    const kind = tty ? 'tty' : 'pipes';
    it(`reaches the caller whole over ${kind}, ${RUNS} runs`, { timeout: RUNS * 3_000 }, async () => {
      let lost = 0;
      let extra = 0;
      let worst = 0;
      const started = performance.now();
      for (let run = 0; run < RUNS; run++) {
        const reply = await server.exec({ cmd: BURST, tty, login: false, yield_time_ms: 30_000, max_output_tokens: MAX_OUTPUT_TOKENS });
        expect(reply.exit_code).toBe(0);
        expect(reply.original_token_count).toBe(BURST_BYTES / 4);
        const count = countA(reply.output);
        lost += BURST_BYTES - count;
        extra += reply.output.length - count;
        worst = Math.max(worst, BURST_BYTES - count);
      }
      const seconds = (performance.now() - started) / 1000;
      figures.push(
        `${kind} ${RUNS} runs, ${RUNS * BURST_BYTES} bytes, ${lost} lost (worst run ${worst}), ${extra} extra chars, ${seconds.toFixed(1)} s`,
      );
      expect({ lost, extra }).toEqual({ lost: 0, extra: 0 });
    });
  }
});
