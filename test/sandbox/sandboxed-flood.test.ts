// A sandboxed command (network on) that cannot read a listener's token floods the listener with silent connections,
// reopening each one closed. It runs as the server's own user, but it is no token holder: counted as the server's
// user's, its connections would be judged by age alone, as the token holder's are, and a token holder slow to write
// would be locked out. The real `serve` and `exec-server` (--max-connections 16) as root and as nobody; the flood
// sandboxed by the real `mcp --network on` of the same user, on each backend.
import { chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, NOBODY, nodeAs, removeMountPoint } from '../helpers/nobody.js';
import { ROOT, cleanEnv, unsandboxed } from '../mcp/cli-process.js';
import { killIfAlive, outputOf } from '../helpers/processes.js';
import { type ServerUser, folderOf, startMcp } from './attacker.js';
import { BACKENDS } from './sandbox-helpers.js';

const TOKEN = 'sandboxed-flood-token-0123456789abcdef';
const CAP = 16;
const REQUESTS = 4;
/** The token holder writes each request this long after connecting: a client slow to write, on a busy machine. */
const HOLDER_DELAY_MS = 1_000;

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const cleanup: string[] = [];
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) killIfAlive(pid);
});
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

const KINDS = {
  serve: (tokenFile: string) => ['serve', ...unsandboxed(['--port', '0', '--no-view', '--token-file', tokenFile])],
  'exec-server': (tokenFile: string) => ['exec-server', '--listen', 'ws://127.0.0.1:0', '--token-file', tokenFile],
};
type Kind = keyof typeof KINDS;

/** The listener on 127.0.0.1 with --max-connections CAP as `user`, its token in a file of `user`'s in `dir`. */
async function startListener(kind: Kind, user: ServerUser, dir: string): Promise<number> {
  const tokenFile = join(dir, 'token');
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  if (user === 'nobody') chownSync(tokenFile, NOBODY, NOBODY);
  const argv = [...KINDS[kind](tokenFile), '--max-connections', String(CAP)];
  const { command, args } = nodeAs(user, 'dist/cli/index.js', argv);
  const child = spawn(command, args, { cwd: dir, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child.pid!);
  const out = await outputOf(child, /(?:http|ws):\/\/127\.0\.0\.1:\d+/);
  return Number(/127\.0\.0\.1:(\d+)/.exec(out)![1]);
}

const cases = users.flatMap((user) => (Object.keys(KINDS) as Kind[]).map((kind) => ({ user, kind })));

/** The flood's script, copied into the sandbox's workspace (which it may read), and the command that runs it. */
const FLOODS = {
  node: {
    fixture: 'connection-flood.mjs',
    command: (port: number) => `${process.execPath} flood ${port} ${CAP} silent`,
  },
  // Its fds hidden from a server without CAP_SYS_PTRACE (an unprivileged one): a sandbox's all the same.
  'non-dumpable python': {
    fixture: 'non-dumpable-flood.py',
    command: (port: number) => `python3 flood ${port} ${CAP}`,
  },
};

/** The token holder's answered requests while `flood` runs sandboxed against `kind` run as `user`. */
async function holderWhileSandboxFloods(backend: string, kind: Kind, user: ServerUser, flood: keyof typeof FLOODS) {
  const dir = folderOf(user, mkdtempSync('/var/tmp/ue-sandboxed-flood-'));
  cleanup.push(dir);
  const port = await startListener(kind, user, dir);
  copyFileSync(join(ROOT, 'test/fixtures', FLOODS[flood].fixture), join(dir, 'flood'));
  if (user === 'nobody') chownSync(join(dir, 'flood'), NOBODY, NOBODY);
  const mcp = await startMcp(user, dir, ['--sandbox-backend', backend, '--network', 'on']);
  started.push(mcp.pid);
  try {
    const flooding = await mcp.call(`exec ${FLOODS[flood].command(port)}`, { yield_time_ms: 3_000 });
    expect(flooding).toContain(`holding ${CAP}`);
    const { command, args } = nodeAs(user, 'test/fixtures/token-holder.mjs', [
      kind,
      String(port),
      TOKEN,
      String(REQUESTS),
      String(HOLDER_DELAY_MS),
    ]);
    const holder = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const times = JSON.parse(await outputOf(holder)) as (number | null)[];
    const answered = times.filter((ms) => ms !== null).length;
    expect(answered, `answered ${answered} of ${REQUESTS}; milliseconds: ${JSON.stringify(times)}`).toBe(REQUESTS);
    // The flood was still running: the sandbox's connections were there to be closed all along.
    const id = Number(/Process running with session ID (\d+)/.exec(flooding)![1]);
    expect(await mcp.write(id, '')).toMatch(/Process running with session ID/);
  } finally {
    await mcp.close();
  }
}

describe.each(BACKENDS)('a sandboxed flood on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  describe.skipIf(skip).each(cases)('against $kind run as $user', ({ user, kind }) => {
    it(
      'cannot lock out the token holder of the same user',
      () => holderWhileSandboxFloods(backend, kind, user, 'node'),
      120_000,
    );
  });
  // The same code serves both listeners: serve alone is enough for the hidden flood.
  describe.skipIf(skip).each(users)('against serve run as %s', (user) => {
    it(
      'cannot lock out the token holder when it hides its fds from the server (non-dumpable)',
      () => holderWhileSandboxFloods(backend, 'serve', user, 'non-dumpable python'),
      120_000,
    );
  });
});
