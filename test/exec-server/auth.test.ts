// No other local user gets into the exec-server: it runs as root on loopback, a second real user (nobody, uid 65534)
// tries its WebSocket and reads what /proc shows of it. Needs root and setpriv; skipped only without them.
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asNobody, removeMountPoint } from '../helpers/nobody.js';
import { ROOT, runToEnd } from '../mcp/cli-process.js';
import { TOKEN, TOKEN_ENV, startWsServer } from './cli-process.js';
import { CANNOT_SWITCH_USER } from '../helpers/nobody.js';
import { titled } from '../helpers/needs.js';

const NOBODY = 65534;
const PROBE = new URL('../fixtures/exec-server-probe.mjs', import.meta.url).pathname;
const WS = createRequire(import.meta.url).resolve('ws');
const FILE_TOKEN = 'token-from-a-file-token-from-a-file';

/** A directory nobody can enter and read, holding the probe script and the token file. */
const dir = mkdtempSync(join(tmpdir(), 'ue-exec-auth-'));
chmodSync(dir, 0o755);
const probe = join(dir, 'exec-server-probe.mjs');
copyFileSync(PROBE, probe);
chmodSync(probe, 0o644);
const tokenFile = join(dir, 'token');
writeFileSync(tokenFile, `${FILE_TOKEN}\n`, { mode: 0o600 });
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeMountPoint();
});

interface Attempt {
  status?: number;
  output?: string;
  readFile?: boolean;
  error?: string;
}
interface Probe {
  uid: number;
  cmdline: { readable: boolean; holdsSecret?: boolean; error?: string };
  environ: { readable: boolean; holdsSecret?: boolean; error?: string };
  withoutToken: Attempt;
  wrongToken: Attempt;
  withToken?: Attempt;
}

/** The probe, run as nobody with no supplementary groups; `token` is what the test hands it to try. */
async function probeAsNobody(url: string, pid: number, secret: string, token?: string): Promise<Probe> {
  // The checkout (for the `ws` package) is seen at the place asNobody binds it, whatever folder it was cloned into.
  const wsInCheckout = relative(ROOT, WS);
  let checkout = '';
  const { command, args } = asNobody((at) => ((checkout = at), [process.execPath, probe, url, `${pid}`]));
  const result = await runToEnd(command, args, {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      PROBE_SECRET: secret,
      PROBE_WS: join(checkout, wsInCheckout),
      ...(token ? { PROBE_TOKEN: token } : {}),
    },
  });
  if (result.code !== 0) throw new Error(`probe exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Probe;
}

/** The token a default exec-server made: it prints it once, on stdout, in the Codex configuration. */
function printedToken(stdout: string): string {
  const token = /auth_bearer_token = "([^"]+)"/.exec(stdout)?.[1];
  if (token === undefined) throw new Error(`exec-server printed no token:\n${stdout}`);
  return token;
}

describe.skipIf(CANNOT_SWITCH_USER !== undefined)(
  titled('another local user (nobody) against an exec-server run as root', CANNOT_SWITCH_USER),
  () => {
    it.each([
      ['a token made at start (the default)', [] as string[], {}],
      ['a token from --token-file', ['--token-file', tokenFile], {}],
      ['a token from UNIFIED_EXEC_EXEC_SERVER_TOKEN', [], TOKEN_ENV],
    ])('gets 401 without %s, cannot read it from /proc, and runs id only when given it', async (_, args, env) => {
      const server = await startWsServer(args, env);
      const pid = server.child.pid!;
      const token =
        args.length > 0 ? FILE_TOKEN : 'UNIFIED_EXEC_EXEC_SERVER_TOKEN' in env ? TOKEN : printedToken(server.stdout());
      const seen = await probeAsNobody(server.url, pid, token);
      expect(seen.uid).toBe(NOBODY);
      expect(seen.withoutToken).toEqual({ status: 401 });
      expect(seen.wrongToken).toEqual({ status: 401 });
      // The command line is world-readable: the token is not on it. The environment is for the owner alone.
      expect(seen.cmdline).toEqual({ readable: true, holdsSecret: false });
      expect(seen.environ).toEqual({ readable: false, error: 'EACCES' });

      const given = await probeAsNobody(server.url, pid, token, token);
      expect(given.withToken).toEqual({ status: 101, output: '0\n', readFile: true });
    });

    it('with --no-auth lets nobody in (which is why it warns), on loopback only', async () => {
      const server = await startWsServer(['--no-auth'], {});
      expect(server.stderr()).toMatch(/WARNING: --no-auth: any local user/);
      expect(server.stdout()).toContain(`CODEX_EXEC_SERVER_URL=${server.url} codex`);
      const seen = await probeAsNobody(server.url, server.child.pid!, '');
      expect(seen.withoutToken).toEqual({ status: 101, output: '0\n', readFile: true });
    });
  },
);
