// Replays the recorded scripts for the handshake, errors, environment, fs, resume and sandbox against our server
// (see conformance-process.test.ts for the approach).
import { describe, expect, it } from 'vitest';
import { CORE_ENV_NAMES } from '../../src/spawn/env.js';
import { SandboxLauncher } from '../../src/sandbox/launcher.js';
import { probeSandbox } from '../../src/sandbox/backend-probe.js';
import { LocalExecutor } from '../../src/spawn/local-executor.js';
import { dirname, join } from 'node:path';
import { CLIENT_BINARIES } from '../clients/clients-install.js';
import { decode, useExecServer } from './client.js';
import { replay, seqs } from './replay.js';

const start = useExecServer();
// bubblewrap from PATH, else the one the pinned Codex (test/clients/package.json) ships beside its binary.
const CODEX_RESOURCES = join(dirname(dirname(CLIENT_BINARIES.codex)), 'codex-resources');
/**
 * A missing program or working directory, as the real server answers it, member order included: 0.171.0 added
 * `data` (0.169.0 sent only code and message), measured with probe.mjs on 07-errors and 08-env.
 */
const SPAWN_NOT_FOUND =
  '{"code":-32603,"data":{"kind":"spawnNotFound"},"message":"No such file or directory (os error 2)"}';
const onPath = probeSandbox();
const sandbox = onPath.ok ? onPath : probeSandbox(`${CODEX_RESOURCES}:${process.env.PATH}`);
const startSandboxed = useExecServer(
  sandbox.ok ? { executor: new LocalExecutor({ sandbox: new SandboxLauncher(sandbox.bwrap) }) } : {},
);

const withoutTag = (lines: string[]) => lines.filter((l) => l !== '' && !l.startsWith('UNIFIED_EXEC_TAG'));

describe('conformance: handshake, errors, environment, fs, resume, sandbox', () => {
  it('01-handshake: gating texts, one initialize per connection, and an unknown notification is ignored', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '01-handshake', { cwd: dir, init: false });
    expect(t.error(1)).toEqual({ code: -32600, message: 'client must call initialize before using exec methods' });
    expect(t.error(2)).toEqual({ code: -32602, message: 'missing field `clientName`' });
    expect(t.result(3).sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(t.result(3).environmentInfo.shell).toEqual({ name: expect.any(String), path: expect.any(String) });
    expect(t.error(4)).toEqual({ code: -32600, message: 'client must send initialized before using exec methods' });
    expect(t.error(5)).toEqual({ code: -32600, message: 'initialize may only be sent once per connection' });
    expect(t.result(6)).toEqual({ status: 'ready' });
    // The real server drops the connection on `bogus/notify`; ours keeps it (closed by us at the end: 1000).
    expect(t.closes.get(0)).toBe(1000);
    expect(t.received.every(({ message }) => !('jsonrpc' in message))).toBe(true);
  });

  it('07-errors: bad params in serde words, duplicate ids, unparsable frames answered with id -1', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '07-errors', { cwd: dir });
    expect(t.error(1)).toEqual({ code: -32602, message: 'invalid URI: relative URL without a base' });
    expect(JSON.stringify(t.error(2))).toBe(SPAWN_NOT_FOUND); // the working directory
    expect(t.error(3)).toEqual({ code: -32602, message: 'argv must not be empty' });
    expect(JSON.stringify(t.error(4))).toBe(SPAWN_NOT_FOUND); // the program
    expect(t.error(5)).toEqual({ code: -32602, message: 'missing field `tty`' });
    expect(t.error(6)).toEqual({ code: -32602, message: 'missing field `env`' });
    expect(t.error(7)).toEqual({ code: -32602, message: 'invalid type: number, expected a string' });
    expect(t.error(8)).toEqual({ code: -32602, message: 'invalid type: null, expected struct WireExecParams' });
    expect(t.result(9)).toMatchObject({ processId: 'dup', sandboxType: 'none' });
    expect(t.error(10)).toEqual({ code: -32600, message: 'process dup already exists' });
    expect(t.error(11)).toEqual({ code: -32600, message: 'process dup already exists' }); // retained after close
    expect(t.error(12)).toEqual({
      code: -32601,
      message: 'unified-exec exec-server does not implement `bogus/method`',
    });
    const unparsable = t.received.filter(({ message }) => message.id === -1).map(({ message }) => message.error);
    expect(unparsable).toHaveLength(3);
    for (const error of unparsable) {
      expect(error.code).toBe(-32600);
      expect(error.message).toMatch(/^failed to parse JSON-RPC message from unified-exec exec-server websocket /);
    }
    expect(t.result(13)).toEqual({ status: 'ready' }); // a binary frame holding JSON
    expect(t.result('str-id')).toEqual({ status: 'ready' }); // string ids echoed as sent
    // A response-shaped message: ignored, the connection stays (the real server drops it).
    expect(t.closes.get(0)).toBe(1000);
  });

  it('08-env: env exact without envPolicy, lookup on the child PATH, envPolicy layers, arg0', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '08-env', { cwd: dir });
    expect(withoutTag(t.output('e1').split('\n'))).toEqual(['FOO=bar']);
    expect(withoutTag(t.output('e2').split('\r\n'))).toEqual(['FOO=bar', 'SHELL=/bin/bash']);
    expect(t.output('e3')).toMatch(/^PATH=\S+\n$/); // found with env {}; sh's own default PATH
    expect(t.output('e9')).toBe('myprog-ran\n'); // only on env.PATH
    expect(JSON.stringify(t.error(10))).toBe(SPAWN_NOT_FOUND);
    expect(t.output('e4', ['stdout']).split('\n')[0]).toBe(`HOME=${process.env.HOME} FROM_SET=env-wins FROM_ENV=e`);
    const core = t.output('e5').trim().split(' ');
    expect(core).toEqual(expect.arrayContaining(['HOME', 'PATH', 'PWD']));
    const allowed = new Set([...CORE_ENV_NAMES, 'PWD', 'SHLVL', '_', 'UNIFIED_EXEC_TAG']);
    expect(core.filter((name) => !allowed.has(name))).toEqual([]);
    expect(withoutTag(t.output('e6').trim().split(' '))).toEqual(['ONLY', 'PWD']);
    expect(t.output('e7')).toBe('custom-name\n');
  });

  it('09-fs: shapes of the fs methods, -32004 for missing paths, the rest -32601 here', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '09-fs', { cwd: dir });
    expect(t.result(1)).toEqual({});
    expect(t.error(2)).toEqual({ code: -32004, message: 'No such file or directory (os error 2)' });
    expect(t.result(3)).toEqual({});
    expect(decode(t.result(4).dataBase64)).toBe('hello\n');
    expect(t.error(5)).toEqual({ code: -32602, message: 'invalid URI: relative URL without a base' });
    expect(t.result(6)).toEqual({
      isDirectory: false,
      isFile: true,
      isSymlink: false,
      size: 6,
      createdAtMs: expect.any(Number),
      modifiedAtMs: expect.any(Number),
    });
    expect(t.error(7).code).toBe(-32004);
    const entries = [...t.result(8).entries].sort((a, b) => a.fileName.localeCompare(b.fileName));
    expect(entries).toEqual([
      { fileName: 'b', isDirectory: true, isFile: false },
      { fileName: 'hello.txt', isDirectory: false, isFile: true },
    ]);
    expect(t.error(9)).toEqual({
      code: -32600,
      message: 'fs/copy requires recursive: true when sourcePath is a directory',
    });
    expect(t.result(10)).toEqual({});
    expect(t.result(11)).toEqual({ path: `file://${dir}/fsdemo/a2/hello.txt` });
    for (const id of [12, 13, 17, 18]) expect(t.error(id).code).toBe(-32601); // fs/open and friends
    expect(t.error(20)).toEqual({ code: -32603, message: 'Directory not empty (os error 39)' });
    expect(t.result(21)).toEqual({});
    expect(t.error(22)).toEqual({ code: -32004, message: 'No such file or directory (os error 2)' });
    expect(t.result(23)).toEqual({});
    expect(t.result(24)).toMatchObject({ shell: { name: expect.any(String) }, platformOs: 'linux' });
    expect(t.result(25)).toEqual({ status: 'ready' });
  });

  it('10-detach-resume: processes outlive the connection; output while detached is read, not replayed', async () => {
    const { url, dir } = await start();
    const t = await replay(url, '10-detach-resume', { cwd: dir });
    const first = t.received.find(({ conn, message }) => conn === 0 && message.result?.sessionId)!.message;
    expect(t.result(2).sessionId).toBe(first.result.sessionId);
    const read = t.result(3);
    expect(read.chunks.map((c: { seq: number; chunk: string }) => [c.seq, decode(c.chunk)])).toEqual([
      [1, 'before\n'],
      [2, 'during-detach\n'],
    ]);
    expect(read).toMatchObject({ nextSeq: 3, exited: false });
    const onResumed = t.received.filter(({ conn, message }) => conn === 1 && message.params?.processId === 'rs1');
    expect(seqs(onResumed.map((r) => r.message))).toEqual({ kinds: ['output', 'exited', 'closed'], seqs: [3, 4, 5] });
    expect(decode(onResumed[0]!.message.params.chunk)).toBe('after\n');
    expect(t.error(4)).toEqual({
      code: -32600,
      message: 'unknown session id 00000000-0000-0000-0000-000000000000',
    });
    expect(t.result(5).sessionId).not.toBe(first.result.sessionId);
  });

  it.skipIf(!sandbox.ok)(
    `11-sandbox: Codex's sandbox objects run under bubblewrap${sandbox.ok ? '' : ` (skipped: ${sandbox.reason})`}`,
    async () => {
      const { url, dir } = await startSandboxed();
      const t = await replay(url, '11-sandbox', { cwd: dir });
      for (const id of [1, 2, 3, 4, 5]) expect(t.result(id).sandboxType).toBe('linuxSeccomp');
      expect(t.output('ro1')).toContain('Read-only file system');
      expect(t.exited('ro1')).toMatchObject({ exitCode: 1, sandboxDenied: true });
      expect(t.output('ww1')).toBe('wrote-cwd\n');
      expect(t.exited('ww1')).toMatchObject({ exitCode: 0, sandboxDenied: false });
      expect(t.output('ww2')).toContain('Read-only file system');
      expect(t.exited('ww2')).toMatchObject({ exitCode: 1, sandboxDenied: true });
      expect(t.output('ww3')).not.toContain('connected');
      expect(t.exited('ww3')).toMatchObject({ exitCode: 1, sandboxDenied: true });
      expect(t.output('tt2')).toContain('in-pty');
    },
  );
});
