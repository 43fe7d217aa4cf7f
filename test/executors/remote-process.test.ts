import { describe, expect, it } from 'vitest';
import type { ProcessReadResult } from '../../src/exec-server/protocol.js';
import type { ExecServerClient } from '../../src/executors/exec-server-client.js';
import { RemoteProcess } from '../../src/executors/remote-process.js';

/**
 * The order in which a reconnected exec-server's words reach a process, on plain data: the connection is a stand-in
 * that answers `process/read` when the test says. The real reconnections run in remote-executor.test.ts.
 */
class Connection {
  readonly reads: { afterSeq: number; answer(result: ProcessReadResult): void }[] = [];
  readonly serverInfo = undefined;

  request<R>(method: string, params: { afterSeq: number }): Promise<R> {
    if (method !== 'process/read') return Promise.resolve({} as R);
    return new Promise<R>((resolve) => this.reads.push({ afterSeq: params.afterSeq, answer: (r) => resolve(r as R) }));
  }

  unregister(): void {}
}

const chunk = (seq: number) => ({
  seq,
  stream: 'stdout' as const,
  chunk: Buffer.from(`line-${seq}\n`).toString('base64'),
});
const output = (seq: number) => ({ processId: 'p', ...chunk(seq) });
const readResult = (seqs: number[], nextSeq: number): ProcessReadResult => ({
  chunks: seqs.map(chunk),
  nextSeq,
  exited: false,
  exitCode: null,
  closed: false,
  failure: null,
  sandboxDenied: false,
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function start() {
  const connection = new Connection();
  const proc = new RemoteProcess(connection as unknown as ExecServerClient, 'p', false, false);
  const seen: string[] = [];
  proc.onData((bytes) => seen.push(...bytes.toString().split('\n').filter(Boolean)));
  return { connection, proc, seen };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('a process of a reconnected exec-server', () => {
  it('tells what was printed during the drop before what the new connection brings first', async () => {
    const { connection, proc, seen } = start();
    for (const seq of range(1, 3)) proc.notify('process/output', output(seq));
    proc.disconnected();
    // The resumed connection's first notification comes before the catch-up read is answered.
    proc.notify('process/output', output(30));
    proc.resumed();
    expect(connection.reads.map((r) => r.afterSeq)).toEqual([3]);
    connection.reads[0]!.answer(readResult(range(4, 30), 31));
    await settle();
    connection.reads[1]!.answer(readResult([], 31));
    await settle();
    proc.notify('process/output', output(31));
    expect(seen).toEqual(range(1, 31).map((n) => `line-${n}`));
  });

  it('reads again after a second drop during the catch-up', async () => {
    const { connection, proc, seen } = start();
    proc.notify('process/output', output(1));
    proc.disconnected();
    proc.resumed();
    proc.notify('process/output', output(5));
    // The connection drops again before the read is answered; the server answers it on the next one.
    proc.disconnected();
    proc.notify('process/output', output(9));
    proc.resumed();
    connection.reads[0]!.answer(readResult(range(2, 5), 6));
    await settle();
    connection.reads[1]!.answer(readResult(range(6, 9), 10));
    await settle();
    connection.reads[2]!.answer(readResult([], 10));
    await settle();
    connection.reads[3]!.answer(readResult([], 10));
    await settle();
    expect(connection.reads.map((r) => r.afterSeq)).toEqual([1, 5, 9, 9]);
    proc.notify('process/output', output(10)); // caught up: told as it comes
    expect(seen).toEqual(range(1, 10).map((n) => `line-${n}`));
  });
});
