// No other local user gets in: the server runs as root, a second real user (nobody, uid 65534) tries its endpoint
// and reads what /proc shows of it. Needs root and setpriv; skipped only without them.
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, runToEnd, startServe, type ServeProcess } from './cli-process.js';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';
import { titled } from '../helpers/needs.js';

const NOBODY = 65534;
const PROBE = join(ROOT, 'test/fixtures/auth-probe.mjs');
const FILE_TOKEN = 'token-from-a-file-token-from-a-file';
const ENV_TOKEN = 'token-from-the-environment-0123456789';

/** A directory nobody can enter and read, holding the probe script and the token files. */
const dir = mkdtempSync(join(tmpdir(), 'ue-auth-'));
chmodSync(dir, 0o755);
const probe = join(dir, 'auth-probe.mjs');
copyFileSync(PROBE, probe);
chmodSync(probe, 0o644);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tokenFile(name: string, mode: number, text = `${FILE_TOKEN}\n`): string {
  const path = join(dir, name);
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
  return path;
}

interface Probe {
  uid: number;
  cmdline: { readable: boolean; holdsSecret?: boolean; error?: string };
  environ: { readable: boolean; holdsSecret?: boolean; error?: string };
  withoutToken: { status: number; output?: string };
  wrongToken: { status: number; output?: string };
  withToken?: { status: number; output?: string };
}

/** The probe, run as nobody with no supplementary groups; `token` is what the test hands it to try. */
async function probeAsNobody(server: ServeProcess, secret: string, token?: string): Promise<Probe> {
  const nobody = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
  const result = await runToEnd('setpriv', [...nobody, process.execPath, probe, server.url, `${server.child.pid}`], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PROBE_SECRET: secret, ...(token ? { PROBE_TOKEN: token } : {}) },
  });
  if (result.code !== 0) throw new Error(`probe exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Probe;
}

/** The token a default `serve` made: it prints it once, on stdout, in the Codex line. */
function printedToken(server: ServeProcess): string {
  const token = /export UNIFIED_EXEC_TOKEN=(\S+)/.exec(server.stdout())?.[1];
  if (token === undefined) throw new Error(`serve printed no token:\n${server.stdout()}`);
  return token;
}

describe.skipIf(CANNOT_SWITCH_USER !== undefined)(
  titled('another local user (nobody) against serve run as root', CANNOT_SWITCH_USER),
  () => {
    it.each([
      ['a token made at start (the default)', [] as string[], {}],
      ['a token from --token-file', ['--token-file', tokenFile('token-600', 0o600)], {}],
      ['a token from UNIFIED_EXEC_TOKEN', [], { UNIFIED_EXEC_TOKEN: ENV_TOKEN }],
    ])('gets 401 without %s, cannot read it from /proc, and runs id only when given it', async (_, args, env) => {
      const server = await startServe(args, env);
      try {
        const token = args.length > 0 ? FILE_TOKEN : 'UNIFIED_EXEC_TOKEN' in env ? ENV_TOKEN : printedToken(server);
        const seen = await probeAsNobody(server, token);
        expect(seen.uid).toBe(NOBODY);
        expect(seen.withoutToken).toEqual({ status: 401 });
        expect(seen.wrongToken).toEqual({ status: 401 });
        // The command line is world-readable: the token is not on it. The environment is for the owner alone.
        expect(seen.cmdline).toEqual({ readable: true, holdsSecret: false });
        expect(seen.environ).toEqual({ readable: false, error: 'EACCES' });

        const given = await probeAsNobody(server, token, token);
        expect(given.withToken).toEqual({ status: 200, output: '0\n' });
      } finally {
        expect(await server.stop()).toEqual({ code: 0, signal: null });
      }
    });
  },
);

describe('serve --token-file', () => {
  it('refuses a token file others can read, saying chmod 600, and listens with one at 0600', async () => {
    const open = tokenFile('token-644', 0o644);
    const refused = await runCli(['serve', '--port', '0', '--token-file', open]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`--token-file ${open}: group or others may access it (mode 644)`);
    expect(refused.stderr).toContain(`chmod 600 ${open}`);
    expect(refused.stdout).toBe('');

    const server = await startServe(['--token-file', tokenFile('token-600b', 0o600)]);
    try {
      expect(server.stdout()).toContain(`Every request needs the bearer token in ${join(dir, 'token-600b')}`);
      // The secret the operator keeps in a file is not copied to the output: the lines read the file.
      expect(server.stdout()).not.toContain(FILE_TOKEN);
      expect(server.stdout()).toContain(`--header "Authorization: Bearer $(cat ${join(dir, 'token-600b')})"`);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it('refuses --token, which would put the token on the command line', async () => {
    const result = await runCli(['serve', '--port', '0', '--token', 'a-token-of-24-characters']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--token is not accepted: .*\/proc\/<pid>\/cmdline.*--token-file.*UNIFIED_EXEC_TOKEN/s,
    );
  });

  it('with --no-auth warns on stderr at start, and refuses a non-loopback --host', async () => {
    const server = await startServe(['--no-auth']);
    try {
      expect(server.stderr()).toMatch(/WARNING: --no-auth/);
      expect(server.stdout()).not.toMatch(/Bearer/);
    } finally {
      expect(await server.stop()).toEqual({ code: 0, signal: null });
    }
    const refused = await runCli(['serve', '--port', '0', '--host', '0.0.0.0', '--no-auth']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('Refusing to listen on 0.0.0.0 without a token');
    expect(refused.stdout).toBe('');
  });
});
