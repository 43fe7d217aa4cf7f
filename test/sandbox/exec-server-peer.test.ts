// A process an exec-server runs sandboxed (network on) against that exec-server: it takes the server's token and
// asks for a WebSocket of its own, from which it could start any process unsandboxed. The real built
// `exec-server --listen ws://127.0.0.1:0 --token-file F`, on bubblewrap (served as root and as nobody) and on
// Landlock (bubblewrap unable to make namespaces: user namespaces blocked, as in a Docker container).
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { toWireSandbox } from '../../src/exec-server/sandbox-wire.js';
import { killIfAlive, waitUntilGone } from '../helpers/processes.js';
import { CANNOT_SWITCH_USER, nodeAsNobody, removeMountPoint } from '../helpers/nobody.js';
import { CLI, ROOT, type CliLauncher } from '../mcp/cli-process.js';
import { TestClient, bash } from '../exec-server/client.js';
import { folderOf, type ServerUser } from './attacker.js';
import { NO_LANDLOCK, NO_SANDBOX } from './sandbox-helpers.js';

const TOKEN = 'exec-server-peer-token-0123456789abcdef';
const cleanup: string[] = [];
const started: number[] = [];
/** A process's command line, or '' when it is gone. */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** The processes of the group `pgid` leads, from /proc (the fifth field of each stat). */
function groupOf(pgid: number): number[] {
  return readdirSync('/proc').flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) === pgid ? [Number(name)] : [];
    } catch {
      return []; // not a process, or gone
    }
  });
}

afterEach(async () => {
  // Each was started as the leader of a process group of its own: the server, or the shells of a launcher before it.
  // The server is ended first, so that such a shell ends by itself and removes what it made (without.sh's scratch
  // folder); whatever of the group is left after that is killed.
  for (const pid of started.splice(0)) {
    for (const member of groupOf(pid)) {
      const [program, , command] = commandLine(member).split('\0');
      if (program === process.execPath && command === 'exec-server') killIfAlive(member); // the server, not a wrapper
    }
    await waitUntilGone(pid).catch(() => undefined);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      killIfAlive(pid); // the group is gone
    }
  }
});
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** Root's server where no user namespace can be made: bubblewrap cannot run, the server takes Landlock. */
const onLandlock: CliLauncher = (argv) => ({
  command: join(ROOT, 'scripts/without-bwrap.sh'),
  args: [process.execPath, CLI, ...argv],
});
const directly: CliLauncher = (argv) => ({ command: process.execPath, args: [CLI, ...argv] });
const asNobody: CliLauncher = (argv) => nodeAsNobody('dist/cli/index.js', argv);

const cases: { name: string; backend: 'bwrap' | 'landlock'; user: ServerUser; launch: CliLauncher; skip?: string }[] = [
  { name: 'on bubblewrap, served as root', backend: 'bwrap', user: 'root', launch: directly, skip: NO_SANDBOX },
  {
    name: 'on bubblewrap, served as nobody',
    backend: 'bwrap',
    user: 'nobody',
    launch: asNobody,
    skip: NO_SANDBOX ?? CANNOT_SWITCH_USER,
  },
  {
    // bubblewrap absent, not user namespaces blocked: a server in a user namespace of its own cannot look into the
    // test's process, and a connection whose holder it cannot see is refused, the token holder's too.
    name: 'on Landlock (no bubblewrap), served as root',
    backend: 'landlock',
    user: 'root',
    launch: onLandlock,
    skip: NO_LANDLOCK ?? CANNOT_SWITCH_USER, // the same root-only tools (a mount namespace) make the simulation
  },
];

/** `exec-server --listen ws://127.0.0.1:0 --token-file FILE` as `launch` starts it; resolves with its URL. */
async function startExecServer(launch: CliLauncher, tokenFile: string, cwd: string) {
  const { command, args } = launch(['exec-server', '--listen', 'ws://127.0.0.1:0', '--token-file', tokenFile]);
  const child = spawn(command, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
    detached: true,
  });
  started.push(child.pid!);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`exec-server exited (${code}): ${stderr}`)));
  });
  return { url, stderr: () => stderr };
}

describe.each(cases)('a sandboxed process of an exec-server, $name', ({ backend, user, launch, skip }) => {
  it.skipIf(skip !== undefined && !process.env.CI)(
    'cannot open a connection of its own to the exec-server, even with its token',
    async () => {
      const dir = folderOf(user, mkdtempSync('/var/tmp/ue-exec-server-peer-'));
      cleanup.push(dir);
      const ws = join(dir, 'ws');
      mkdirSync(ws);
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
      copyFileSync(join(ROOT, 'test/fixtures/token-probe.mjs'), join(dir, 'probe.mjs'));
      folderOf(user, dir);
      const server = await startExecServer(launch, tokenFile, ws);

      // The token holder's own connection must get in; if the server refuses it, its log says why.
      const said = (error: unknown) => new Error(`${String(error)}; the exec-server said:\n${server.stderr()}`);
      const client = await TestClient.open(server.url, { Authorization: `Bearer ${TOKEN}` }).catch((error) => {
        throw said(error);
      });
      try {
        await client.initialize().catch((error) => {
          throw said(error);
        });
        const sandbox = toWireSandbox(
          { mode: 'workspace-write', network: 'on', allowedDomains: [], workspace: ws, writableRoots: [] },
          ws,
        );
        const probe = `${process.execPath} ${join(dir, 'probe.mjs')} ${server.url.replace('ws:', 'http:')}/`;
        const script = [
          'echo "init: $(cat /proc/1/comm)"',
          `${probe} @${tokenFile} upgrade`,
          `${probe} ${TOKEN} upgrade`,
        ].join('\n');
        await client.call('process/start', bash('p1', script, ws, { sandbox }));
        await client.waitForEvent('closed', 'p1', 60_000);
        const out = client.output('p1');
        // The backend asked for is the one in use: bubblewrap's init is pid 1 of its sandbox; Landlock has none.
        if (backend === 'bwrap') expect(out).toContain('init: bwrap');
        else expect(out).not.toContain('init: bwrap');
        const [fromFile, leaked] = out.split('\n').filter((line) => /^(TOKEN_|ANSWER|REFUSED)/.test(line));
        expect(fromFile).toMatch(backend === 'bwrap' ? /TOKEN_UNREADABLE EACCES/ : /REFUSED/);
        expect(leaked).toMatch(/REFUSED/);
        expect(server.stderr()).toMatch(/refused a connection: .* (runs|was made) in a sandbox/);
      } finally {
        await client.close();
      }
    },
    120_000,
  );
});
