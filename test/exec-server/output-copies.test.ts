// The server reads every terminal into one reused buffer (onDataView); what it keeps for `process/read` and what it
// sends must be copies. Two terminals flood at once, so each read overwrites the buffer the other's last read was in.
import { describe, expect, it } from 'vitest';
import { bash, decode, useExecServer } from './client.js';

const start = useExecServer();

/** 6000 numbered lines tagged with `tag`, about 300 kB: within the 1 MiB kept per process. */
const script = (tag: string) => `for i in $(seq 1 6000); do printf '${tag}-%05d-%s\\n' "$i" ${'x'.repeat(36)}; done`;
const expected = (tag: string) =>
  Array.from({ length: 6000 }, (_, i) => `${tag}-${String(i + 1).padStart(5, '0')}-${'x'.repeat(36)}\r\n`).join('');

describe('output of terminals read into one reused buffer', () => {
  it('is kept and sent whole, in order, for two terminals flooding at once', async () => {
    const { dir, client } = await start();
    const c = await client();
    await c.initialize();
    await Promise.all(['a', 'b'].map((tag) => c.call('process/start', bash(tag, script(tag), dir, { tty: true }))));
    await Promise.all(['a', 'b'].map((tag) => c.waitForEvent('closed', tag, 30_000)));
    for (const tag of ['a', 'b']) {
      expect(c.output(tag)).toBe(expected(tag));
      const read = await c.call('process/read', { processId: tag, afterSeq: 0 });
      const kept = read.chunks.map((chunk: { chunk: string }) => decode(chunk.chunk)).join('');
      expect(kept).toBe(expected(tag));
    }
  }, 60_000);
});
