import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOAK, startServer, type ServerUnderTest } from './harness.js';

// One line of a million and one `a`s, printed as fast as the pipe or terminal takes it, then exit: the race between
// the last bytes and the exit is where output gets lost. It fits the default 1 MiB session buffer whole.
const BURST_BYTES = 1_000_001;
const BURST = `head -c ${BURST_BYTES} /dev/zero | tr '\\0' a`;
const RUNS = SOAK ? 500 : 50;
// Tool replies keep at most 10000 tokens (40 KB) of output, so the reply shows the burst's head and tail. Every
// byte is still counted: original_token_count is ceil(bytes / 4) of all that arrived, and with 4k + 1 bytes sent,
// losing any number of bytes from 1 up lowers it.
const EXPECTED_TOKENS = Math.ceil(BURST_BYTES / 4);
const TRUNCATION =
  /^Warning: truncated output \(original token count: (\d+)\)\nTotal output lines: 1\n\n(a+)…(\d+) tokens truncated…(a+)$/;

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
        const reply = await server.exec({
          cmd: BURST,
          tty,
          login: false,
          yield_time_ms: 30_000,
          max_output_tokens: 1e9,
        });
        expect(reply.exit_code).toBe(0);
        const shown = TRUNCATION.exec(reply.output);
        // Whatever is shown is the burst's own bytes: nothing foreign (a drain marker, another session's output).
        if (!shown) extra += reply.output.length;
        const missing = Math.max(0, BURST_BYTES - reply.original_token_count * 4);
        const arrivedTokens = reply.original_token_count;
        if (arrivedTokens !== EXPECTED_TOKENS) {
          lost += Math.max(1, missing);
          worst = Math.max(worst, Math.max(1, missing));
        }
      }
      const seconds = (performance.now() - started) / 1000;
      figures.push(
        `${kind} ${RUNS} runs, ${RUNS * BURST_BYTES} bytes, ${lost} lost (worst run ${worst}), ${extra} foreign chars, ${seconds.toFixed(1)} s`,
      );
      expect({ lost, extra }).toEqual({ lost: 0, extra: 0 });
    });
  }
});
