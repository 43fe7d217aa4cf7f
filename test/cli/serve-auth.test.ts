import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/usage-error.js';
import { MIN_TOKEN_BYTES, resolveServeAuth, type TokenFile } from '../../src/cli/serve-auth.js';

const GOOD = 'a-token-of-24-characters';
const loopback = { host: '127.0.0.1', noAuth: false };
/** The server's user in these tests, whose token files they are unless a test says otherwise. */
const OWN_UID = 1000;
/** A token file as the reader would see it, without touching the disk. */
const file =
  (text: string, mode = 0o100600, uid = OWN_UID) =>
  (): TokenFile => ({ mode, uid, text });
const noFile = () => {
  throw new Error('the test gave no token file');
};
const generate = () => 'generated-token-generated-token';

describe('resolveServeAuth', () => {
  it('makes a random token when told nothing, even on loopback', () => {
    expect(resolveServeAuth(loopback, {}, { readTokenFile: noFile, generateToken: generate })).toEqual({
      from: 'generated',
      token: 'generated-token-generated-token',
    });
    // The real generator: 32 random bytes, base64url.
    const made = resolveServeAuth(loopback, {});
    const again = resolveServeAuth(loopback, {});
    expect(made.from === 'generated' && made.token).toMatch(/^[\w-]{43}$/);
    expect(made).not.toEqual(again);
  });

  it('takes UNIFIED_EXEC_TOKEN over a generated token, and --token-file over both', () => {
    expect(resolveServeAuth(loopback, { UNIFIED_EXEC_TOKEN: GOOD }, { readTokenFile: noFile })).toEqual({
      from: 'env',
      token: GOOD,
    });
    expect(
      resolveServeAuth(
        { ...loopback, tokenFile: 'tok' },
        { UNIFIED_EXEC_TOKEN: 'env-token-env-token-env' },
        { ownUid: OWN_UID, readTokenFile: file(`${GOOD}\n`) },
      ),
    ).toEqual({ from: 'file', token: GOOD, path: join(process.cwd(), 'tok') });
  });

  it('refuses a token file that group or others may read or write, saying chmod 600', () => {
    for (const mode of [0o100644, 0o100640, 0o100604, 0o100620, 0o100602, 0o100660]) {
      const resolve = () =>
        resolveServeAuth(
          { ...loopback, tokenFile: '/k/tok' },
          {},
          { ownUid: OWN_UID, readTokenFile: file(GOOD, mode) },
        );
      expect(resolve, mode.toString(8)).toThrow(UsageError);
      expect(resolve, mode.toString(8)).toThrow(
        `--token-file /k/tok: group or others may access it (mode ${(mode & 0o777).toString(8)}); run: chmod 600 /k/tok`,
      );
    }
    for (const mode of [0o100600, 0o100400]) {
      expect(
        resolveServeAuth(
          { ...loopback, tokenFile: '/k/tok' },
          {},
          { ownUid: OWN_UID, readTokenFile: file(GOOD, mode) },
        ),
      ).toEqual({
        from: 'file',
        token: GOOD,
        path: '/k/tok',
      });
    }
  });

  it(`refuses a token shorter than ${MIN_TOKEN_BYTES} bytes from every source, without echoing it`, () => {
    const short = 'fifteen-bytes!!';
    expect(Buffer.byteLength(short)).toBe(MIN_TOKEN_BYTES - 1);
    const fromEnv = () => resolveServeAuth(loopback, { UNIFIED_EXEC_TOKEN: short });
    const fromFile = () =>
      resolveServeAuth({ ...loopback, tokenFile: '/k/tok' }, {}, { ownUid: OWN_UID, readTokenFile: file(short) });
    const generated = () => resolveServeAuth(loopback, {}, { generateToken: () => short });
    for (const [resolve, source] of [
      [fromEnv, 'UNIFIED_EXEC_TOKEN'],
      [fromFile, '--token-file /k/tok'],
      [generated, 'the generated token'],
    ] as const) {
      expect(resolve).toThrow(UsageError);
      expect(resolve).toThrow(`${source}: a token needs at least 16 bytes, got 15`);
      expect(resolve).not.toThrow(short);
    }
    expect(resolveServeAuth(loopback, { UNIFIED_EXEC_TOKEN: `${short}!` })).toMatchObject({ from: 'env' });
  });

  it('refuses an empty token and one with spaces or control characters (it travels in a header)', () => {
    expect(() => resolveServeAuth(loopback, { UNIFIED_EXEC_TOKEN: '' })).toThrow(
      'UNIFIED_EXEC_TOKEN: a token needs at least 16 bytes, got 0',
    );
    for (const bad of ['with a space in the middle', 'tab\tinside-the-token-here', 'naïve-non-ascii-token-x']) {
      expect(() => resolveServeAuth(loopback, { UNIFIED_EXEC_TOKEN: bad })).toThrow(
        'UNIFIED_EXEC_TOKEN: a token is printable ASCII without spaces',
      );
    }
    // Only the line ends a file's text usually carries are trimmed.
    expect(
      resolveServeAuth(
        { ...loopback, tokenFile: '/k/tok' },
        {},
        { ownUid: OWN_UID, readTokenFile: file(`  ${GOOD}\r\n\n`) },
      ),
    ).toMatchObject({ token: GOOD });
  });

  it('says why a token file cannot be read', () => {
    expect(() => resolveServeAuth({ ...loopback, tokenFile: '/nonexistent/tok' }, {})).toThrow(
      /^--token-file \/nonexistent\/tok: cannot read it: ENOENT/,
    );
  });

  it('with --no-auth needs no token, ignores UNIFIED_EXEC_TOKEN, and refuses --token-file', () => {
    const open = { host: '127.0.0.1', noAuth: true };
    expect(resolveServeAuth(open, {})).toEqual({ from: 'none' });
    expect(resolveServeAuth({ ...open, host: 'localhost' }, { UNIFIED_EXEC_TOKEN: GOOD })).toEqual({ from: 'none' });
    expect(resolveServeAuth({ ...open, host: '::1' }, {})).toEqual({ from: 'none' });
    expect(() =>
      resolveServeAuth({ ...open, tokenFile: '/k/tok' }, {}, { ownUid: OWN_UID, readTokenFile: file(GOOD) }),
    ).toThrow('--no-auth and --token-file contradict each other');
  });

  it('refuses --no-auth with a non-loopback --host', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'myhost.example']) {
      const resolve = () => resolveServeAuth({ host, noAuth: true }, {});
      expect(resolve, host).toThrow(UsageError);
      expect(resolve, host).toThrow(`Refusing to listen on ${host} without a token`);
    }
    // With a token, any host is the HTTP server's business (it also accepts 0.0.0.0 with a token).
    expect(resolveServeAuth({ host: '0.0.0.0', noAuth: false }, {})).toMatchObject({ from: 'generated' });
  });
});

describe('resolveServeAuth: who owns the token file', () => {
  const read = (uid: number, mode = 0o100600) =>
    resolveServeAuth(
      { ...loopback, tokenFile: '/k/tok' },
      {},
      { ownUid: OWN_UID, readTokenFile: file(GOOD, mode, uid) },
    );

  it('refuses a file another user owns, even at 0600, saying who owns it and what to run', () => {
    for (const mode of [0o100600, 0o100400, 0o100644]) {
      expect(() => read(65534, mode)).toThrow(UsageError);
      expect(() => read(65534, mode)).toThrow(
        /^--token-file \/k\/tok: it belongs to uid 65534\b.*, who can read or replace the token; it must belong to you \(uid 1000\b.*\) or root: run chown 1000 \/k\/tok$/,
      );
    }
  });

  it('takes a file of the server’s user or of root', () => {
    expect(read(OWN_UID)).toEqual({ from: 'file', token: GOOD, path: '/k/tok' });
    expect(read(0)).toEqual({ from: 'file', token: GOOD, path: '/k/tok' });
  });

  it('tells a root server that only root may own it', () => {
    const asRoot = () =>
      resolveServeAuth(
        { ...loopback, tokenFile: '/k/tok' },
        {},
        { ownUid: 0, readTokenFile: file(GOOD, 0o100600, 65534) },
      );
    expect(asRoot).toThrow(/it must belong to root: run chown 0 \/k\/tok$/);
  });
});

describe('resolveServeAuth with real files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ue-token-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a 0600 file and refuses the same file at 0644', () => {
    const path = join(dir, 'token');
    writeFileSync(path, `${GOOD}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
    expect(resolveServeAuth({ ...loopback, tokenFile: path }, {})).toEqual({ from: 'file', token: GOOD, path });
    chmodSync(path, 0o644);
    expect(() => resolveServeAuth({ ...loopback, tokenFile: path }, {})).toThrow(`chmod 600 ${path}`);
  });
});
