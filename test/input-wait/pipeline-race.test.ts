// A pipeline in the foreground (`cat | tr`): the tty reader hands each line to a pipe reader, which prints it. The
// answer must never come between the two, while the pipe reader is about to run: it would miss the pipeline's output.
import { describe, expect, it } from 'vitest';
import { SOAK } from '../reliability/harness.js';
import { BASH, useManagers } from '../helpers/manager.js';

const LINES = SOAK ? 1000 : 200;
const STARTS = SOAK ? 300 : 60;

describe('input-wait with a pipeline in the foreground', () => {
  const newManager = useManagers();

  it(`answers each of ${LINES} lines only after the pipeline's output`, async () => {
    const manager = newManager();
    const started = await manager.execCommand({ ...BASH, command: 'cat | tr a-z A-Z', tty: true, yieldTimeMs: 2_000 });
    const sessionId = started.sessionId!;
    const early: string[] = [];
    for (let i = 0; i < LINES; i++) {
      const reply = await manager.writeStdin({ sessionId, chars: `line${i}\n`, yieldTimeMs: 5_000 });
      let output = reply.output;
      if (!output.includes(`LINE${i}\r\n`)) {
        early.push(`line ${i}: ${reply.state} ${JSON.stringify(output)}`);
        // Collect the rest so the next line starts clean.
        while (!output.includes(`LINE${i}\r\n`)) output += (await manager.writeStdin({ sessionId, chars: '' })).output;
      }
    }
    expect(early).toEqual([]);
  });

  it(`answers the first line of ${STARTS} fresh pipelines only after the pipeline's output`, async () => {
    const manager = newManager();
    const early: string[] = [];
    for (let i = 0; i < STARTS; i++) {
      const started = await manager.execCommand({
        ...BASH,
        command: 'cat | tr a-z A-Z',
        tty: true,
        yieldTimeMs: 2_000,
      });
      const sessionId = started.sessionId!;
      const reply = await manager.writeStdin({ sessionId, chars: 'hello\n', yieldTimeMs: 5_000 });
      if (!reply.output.includes('HELLO\r\n')) early.push(`start ${i}: ${reply.state} ${JSON.stringify(reply.output)}`);
      await manager.closeSession(sessionId);
    }
    expect(early).toEqual([]);
  });
});
