// The pure pieces under the server: file URIs, strict base64, the serde-style params validator, the chunk log, the
// binary output frame.
import fc from 'fast-check';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { decodeBase64Strict } from '../../src/exec-server/base64.js';
import { ChunkLog } from '../../src/exec-server/chunk-log.js';
import {
  decodeOutputFrame,
  encodeOutputFrame,
  fileUriToPath,
  fitsOutputFrame,
  pathToFileUri,
  type OutputFrame,
  type WireSandbox,
} from '../../src/exec-server/protocol.js';
import {
  readParams,
  signalParams,
  startParams,
  writeParams,
  type InitializeParams,
  type ProcessStartParams,
  type ProcessWriteParams,
  type StartParams,
} from '../../src/exec-server/schemas.js';
import { osErrorMessage, spawnError } from '../../src/exec-server/rpc-error.js';

const paramsError = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return { code: (error as { code: number }).code, message: (error as Error).message };
  }
  throw new Error('no error');
};

describe('file URIs', () => {
  it('turn into paths and back, and refuse what is not a file URI in the real server words', () => {
    expect(fileUriToPath('file:///home/dev/a%20b')).toBe('/home/dev/a b');
    expect(pathToFileUri('/home/dev/a b')).toBe('file:///home/dev/a%20b');
    expect(() => fileUriToPath('/home/dev')).toThrow('invalid URI: relative URL without a base');
    expect(() => fileUriToPath('http://x/y')).toThrow('unsupported path URI scheme `http`');
  });
});

describe('decodeBase64Strict', () => {
  it('decodes canonical base64 and names the first bad symbol like the real server', () => {
    expect(decodeBase64Strict('aGVsbG8K').toString()).toBe('hello\n');
    expect(decodeBase64Strict('').length).toBe(0);
    expect(() => decodeBase64Strict('!!!')).toThrow('Invalid symbol 33, offset 0.');
    expect(() => decodeBase64Strict('YQ')).toThrow('Invalid padding');
    expect(() => decodeBase64Strict('YQ=')).toThrow('Invalid padding');
    expect(() => decodeBase64Strict('Y')).toThrow('Invalid input length: 1');
  });
});

describe('params validation', () => {
  const start = { processId: 'p', argv: ['true'], cwd: 'file:///tmp', env: {}, tty: false };

  it('reports types and missing fields as serde does, in the order sent, missing ones last', () => {
    expect(paramsError(() => startParams(undefined))).toEqual({
      code: -32602,
      message: 'invalid type: null, expected struct WireExecParams',
    });
    expect(paramsError(() => startParams({ ...start, tty: 'yes' })).message).toBe(
      'invalid type: string "yes", expected a boolean',
    );
    expect(paramsError(() => startParams({ ...start, argv: 'true' })).message).toBe(
      'invalid type: string "true", expected a sequence',
    );
    expect(paramsError(() => startParams({ ...start, env: { A: 1 } })).message).toBe(
      'invalid type: number, expected a string',
    );
    expect(paramsError(() => startParams({ processId: 7, argv: ['x'] })).message).toBe(
      'invalid type: number, expected a string',
    );
    const { env: _env, tty: _tty, ...noEnv } = start;
    expect(paramsError(() => startParams(noEnv)).message).toBe('missing field `env`');
    expect(paramsError(() => readParams({ processId: 'p', afterSeq: -1 })).message).toBe('invalid number');
    expect(paramsError(() => readParams({ processId: 'p', afterSeq: 'x' })).message).toBe(
      'invalid type: string "x", expected u64',
    );
    expect(paramsError(() => signalParams({ processId: 'p', signal: 'kill' })).message).toBe(
      'unknown variant `kill`, expected `interrupt`',
    );
    expect(paramsError(() => startParams({ ...start, envPolicy: { inherit: 'bogus' } })).message).toBe(
      'unknown variant `bogus`, expected one of `core`, `all`, `none`',
    );
  });

  it('takes null and absent optional fields as absent, converts URIs and decodes base64', () => {
    expect(readParams({ processId: 'p', afterSeq: null, maxBytes: null })).toEqual({ processId: 'p' });
    expect(startParams({ ...start, arg0: null, extra: 1 })).toMatchObject({ cwd: '/tmp', processId: 'p' });
    expect(writeParams({ processId: 'p', chunk: 'aGk=', writeId: '1' }).chunk.toString()).toBe('hi');
  });

  it("types what a client sends by each validator's JSON form, and what the server reads by its output", () => {
    const sent: ProcessWriteParams = { processId: 'p', chunk: 'aGk=', writeId: '1' };
    const read = writeParams(sent);
    expect(read.chunk.toString()).toBe('hi');
    // Checked by the compiler: a change to a validator changes these types with it.
    expectTypeOf(sent.chunk).toEqualTypeOf<string>();
    expectTypeOf(read.chunk).toEqualTypeOf<Buffer>();
    expectTypeOf<ProcessStartParams['sandbox']>().toEqualTypeOf<WireSandbox | null | undefined>();
    expectTypeOf<StartParams['sandbox']>().toEqualTypeOf<unknown>();
    expectTypeOf<ProcessStartParams['arg0']>().toEqualTypeOf<string | null | undefined>();
    expectTypeOf<StartParams['arg0']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<InitializeParams>().toEqualTypeOf<{
      clientName: string;
      resumeSessionId?: string | null;
      unifiedExec?: { inputWait?: boolean | null; binaryOutput?: boolean | null } | null;
    }>();
  });
});

describe('ChunkLog', () => {
  const chunk = (seq: number, text: string) => ({ seq, stream: 'stdout' as const, bytes: Buffer.from(text) });

  it('keeps the newest whole chunks within its byte budget, always the newest one', () => {
    const log = new ChunkLog(10);
    log.push(chunk(1, 'aaaa'));
    log.push(chunk(2, 'bbbb'));
    log.push(chunk(4, 'cccc'));
    expect(log.after(0).chunks.map((c) => c.seq)).toEqual([2, 4]);
    log.push(chunk(5, 'x'.repeat(20)));
    expect(log.after(0).chunks.map((c) => c.seq)).toEqual([5]);
    expect(log.bytes).toBe(20);
  });

  it('cuts a read at maxBytes in whole chunks, at least one, and says it cut', () => {
    const log = new ChunkLog(1000);
    for (const [seq, text] of [
      [1, 'AAAA'],
      [2, 'BBBBBBBB'],
      [3, 'CC'],
    ] as const)
      log.push(chunk(seq, text));
    expect(log.after(0, 5)).toMatchObject({ chunks: [{ seq: 1 }], cut: true });
    expect(log.after(0, 0)).toMatchObject({ chunks: [{ seq: 1 }], cut: true });
    expect(log.after(1)).toMatchObject({ chunks: [{ seq: 2 }, { seq: 3 }], cut: false });
    expect(log.after(3)).toEqual({ chunks: [], cut: false });
    expect([log.hasAfter(2), log.hasAfter(3)]).toEqual([true, false]);
    expect(log.text()).toBe('AAAABBBBBBBBCC');
  });

  it('keeps at most maxChunks chunks however small', () => {
    const log = new ChunkLog(1000, 3);
    for (let seq = 1; seq <= 5000; seq++) log.push(chunk(seq, 'x'));
    expect(log.after(0).chunks.map((c) => c.seq)).toEqual([4998, 4999, 5000]);
  });
});

describe('osErrorMessage', () => {
  it('says what Rust says for system errors', () => {
    expect(osErrorMessage(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBe(
      'No such file or directory (os error 2)',
    );
    expect(osErrorMessage(Object.assign(new Error('x'), { code: 'ENOTEMPTY' }))).toBe(
      'Directory not empty (os error 39)',
    );
    expect(osErrorMessage(new Error('plain'))).toBe('plain');
  });
});

describe('spawnError', () => {
  const failure = (code?: string) => Object.assign(new Error('plain'), code === undefined ? {} : { code });
  // The kinds codex exec-server 0.171.0 answered: a missing program or cwd, a program without the execute bit or a
  // directory as the program, a cwd that is a file.
  it.each([
    ['ENOENT', 'spawnNotFound', 'No such file or directory (os error 2)'],
    ['EACCES', 'spawnPermissionDenied', 'Permission denied (os error 13)'],
    ['EPERM', 'spawnPermissionDenied', 'Operation not permitted (os error 1)'],
    ['ENOTDIR', 'spawnFailed', 'Not a directory (os error 20)'],
    [undefined, 'spawnFailed', 'plain'],
  ])('%s is -32603 with data.kind %s', (code, kind, message) => {
    const error = spawnError(failure(code));
    expect({ code: error.code, data: error.data, message: error.message }).toEqual({
      code: -32603,
      data: { kind },
      message,
    });
  });
});

describe('the binary output frame', () => {
  const chunks = fc.record({
    // A few ids often, so a frame holds runs of one id (encoded once) and changes between them.
    processId: fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('', 'p-1', 'ŝ-2')),
    seq: fc.oneof(fc.nat(), fc.constant(2 ** 48 - 1)),
    stream: fc.constantFrom('stdout' as const, 'stderr' as const, 'pty' as const),
    bytes: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)),
  });

  it('decodes to the chunks encoded, in their order, for any ids, seqs, streams and bytes', () => {
    fc.assert(
      fc.property(fc.array(chunks, { minLength: 1, maxLength: 6 }), (sent: OutputFrame[]) => {
        const decoded = decodeOutputFrame(encodeOutputFrame(sent));
        expect(decoded).toEqual(sent.map((c) => ({ ...c, processId: Buffer.from(c.processId).toString() })));
      }),
      { numRuns: 5_000 },
    );
  });

  it('is not read from a binary frame holding JSON, nor from one cut short or naming an unknown stream', () => {
    expect(decodeOutputFrame(Buffer.from('{"method":"process/output"}'))).toBeUndefined();
    const hi = { processId: 'p-1', seq: 7, stream: 'pty' as const, bytes: Buffer.from('hi') };
    const frame = encodeOutputFrame([hi, { ...hi, seq: 8, bytes: Buffer.from('there') }]);
    expect(decodeOutputFrame(frame)).toEqual([hi, { ...hi, seq: 8, bytes: Buffer.from('there') }]);
    for (const cut of [1, 10, 16, 18, frame.length - 1])
      expect(decodeOutputFrame(frame.subarray(0, cut))).toBe(undefined);
    const unknownStream = Buffer.from(frame);
    unknownStream[1] = 3;
    expect(decodeOutputFrame(unknownStream)).toBeUndefined();
    expect(decodeOutputFrame(Buffer.from([0]))).toBeUndefined();
  });

  it('holds no chunk its header cannot: those go as JSON', () => {
    const bytes = Buffer.from('x');
    expect(fitsOutputFrame({ processId: 'p', seq: 2 ** 48 - 1, stream: 'stdout', bytes })).toBe(true);
    expect(fitsOutputFrame({ processId: 'é'.repeat(40_000), seq: 1, stream: 'stdout', bytes })).toBe(false);
    expect(fitsOutputFrame({ processId: 'p', seq: 2 ** 48, stream: 'stdout', bytes })).toBe(false);
  });
});
