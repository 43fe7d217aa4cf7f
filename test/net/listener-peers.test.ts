// Another local user floods a listener on `::` (serve, exec-server) through the machine's link-local IPv6 address
// (`fe80::1%v0`), where Node prints the peer with its zone: the owner lookup must still tell that the flood is
// another user's, so the token holder, connecting through 127.0.0.1 and slow to write, is answered (judged by age
// alone, its silent connection is closed once the flood has reopened the cap's worth of connections). As a root server (the flood:
// nobody) and as an unprivileged one (nobody; the flood: root). And a sandboxed command with the token, connecting
// through the same address, is refused. All of it in a network namespace the test makes, with a veth pair carrying
// fe80::1.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CLI, ROOT, cleanEnv, unsandboxed } from '../mcp/cli-process.js';
import { missingTools } from '../helpers/needs.js';
import { CANNOT_SWITCH_USER, NOBODY, asNobody, nodeAs, removeMountPoint } from '../helpers/nobody.js';
import { endGroupsAfterEach, outputOf } from '../helpers/processes.js';
import { type ServerUser } from '../sandbox/attacker.js';
import { BACKENDS } from '../sandbox/sandbox-helpers.js';

const TOKEN = 'listener-peers-token-0123456789abcdef';
const CAP = 16;
const REQUESTS = 10;
const LINK_LOCAL = 'fe80::1%v0';
/** The token holder writes each request this long after connecting: a client slow to write, on a busy machine. */
const HOLDER_DELAY_MS = 1_000;

// Each server runs as the leader of its own process group: the namespace's shell and the server.
const groups = endGroupsAfterEach();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  removeMountPoint();
});

/** The server, as `user`, in a new network namespace: lo up, and fe80::1 on a veth pair's end v0. */
async function startInNamespace(argv: string[], user: ServerUser) {
  const server =
    user === 'root'
      ? { command: process.execPath, args: [CLI, ...argv] }
      : asNobody((at) => [process.execPath, join(at, 'dist/cli/index.js'), ...argv]);
  const setup = [
    'ip link set lo up',
    'ip link add v0 type veth peer name v1',
    'ip link set v0 up',
    'ip link set v1 up',
    // nodad: usable at once, not after duplicate address detection.
    'ip -6 addr add fe80::1/64 dev v0 nodad',
    'exec "$@"',
  ].join(' && ');
  const child = spawn('unshare', ['-n', 'sh', '-c', setup, 'netns', server.command, ...server.args], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  groups.push(child.pid!);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const out = await outputOf(child, /(?:listening on http:\/\/127\.0\.0\.1|ws:\/\/\[::\]):\d+/);
  const port = Number(/(?:127\.0\.0\.1|\[::\]):(\d+)/.exec(out)![1]);
  /** Runs `command` in the server's network namespace. */
  const inside = ({ command, args }: { command: string; args: string[] }, cwd = ROOT) =>
    spawn('nsenter', ['-t', String(child.pid), '-n', '--', command, ...args], {
      cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  return { port, stderr: () => stderr, inside };
}

/** A token file only `user` may read, in a folder everyone may enter. */
function tokenFile(user: ServerUser): string {
  const dir = mkdtempSync('/var/tmp/ue-listener-peers-');
  dirs.push(dir);
  chmodSync(dir, 0o755);
  const file = join(dir, 'token');
  writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
  if (user === 'nobody') chownSync(file, NOBODY, NOBODY);
  return file;
}

const kinds = [
  {
    kind: 'serve',
    argv: (file: string) => [
      'serve',
      ...unsandboxed([
        '--host',
        '::',
        '--port',
        '0',
        '--no-view',
        '--token-file',
        file,
        '--max-connections',
        String(CAP),
      ]),
    ],
  },
  {
    kind: 'exec-server',
    argv: (file: string) => [
      'exec-server',
      '--listen',
      'ws://[::]:0',
      '--token-file',
      file,
      '--max-connections',
      String(CAP),
    ],
  },
];
const cases = kinds.flatMap((k) => (['root', 'nobody'] as const).map((user) => ({ ...k, user })));

const NEEDS = CANNOT_SWITCH_USER ?? missingTools('ip', 'unshare', 'nsenter');

describe.each(cases)('$kind on :: run as $user', ({ kind, argv, user }) => {
  it.skipIf(NEEDS !== undefined && !process.env.CI)(
    `answers the token holder while another user floods it through ${LINK_LOCAL}`,
    async () => {
      const server = await startInNamespace(argv(tokenFile(user)), user);
      // Another local user than the server's: nobody against root, root against nobody.
      const flooder: ServerUser = user === 'root' ? 'nobody' : 'root';
      const flood = server.inside(
        nodeAs(flooder, 'test/fixtures/connection-flood.mjs', [String(server.port), String(CAP), 'silent', LINK_LOCAL]),
      );
      let floodOut = '';
      flood.stdout!.on('data', (chunk: Buffer) => (floodOut += chunk.toString()));
      try {
        await vi.waitFor(() => expect(floodOut).toContain(`holding ${CAP}`), { timeout: 10_000, interval: 20 });
        // Let the flood settle with all of them open, so the token holder comes in at the cap.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const holder = server.inside(
          nodeAs(user, 'test/fixtures/token-holder.mjs', [
            kind,
            String(server.port),
            TOKEN,
            String(REQUESTS),
            String(HOLDER_DELAY_MS),
          ]),
        );
        const times = JSON.parse(await outputOf(holder)) as (number | null)[];
        const answered = times.filter((ms) => ms !== null).length;
        expect(answered, `answered ${answered} of ${REQUESTS}; milliseconds: ${JSON.stringify(times)}`).toBe(REQUESTS);
      } finally {
        flood.kill('SIGTERM');
      }
      await vi.waitFor(() => expect(floodOut).toContain('opened'), { timeout: 10_000 });
      const opened = Number(/"opened":(\d+)/.exec(floodOut)![1]);
      expect(opened, 'the flood reopened the connections closed').toBeGreaterThan(CAP);
    },
    120_000,
  );
});

// A sandboxed command (network on) that has the token connects to the server through the link-local address: the
// check for sandboxed peers looks the peer up in /proc/net/tcp6, which has no zone, and a zoned address matched no
// entry there (the peer was let in as another machine's, and could approve its own escalation).
const sandboxCases = BACKENDS.flatMap(({ backend, skip }) =>
  (['root', 'nobody'] as const).map((user) => ({ backend, user, skip: skip ?? NEEDS })),
);
describe.each(sandboxCases)('serve on :: run as $user, a command sandboxed on $backend', ({ backend, user, skip }) => {
  it.skipIf(skip !== undefined && !process.env.CI)(
    `refuses the command's connection through ${LINK_LOCAL}, though it carries the token`,
    async () => {
      const server = await startInNamespace(kinds[0]!.argv(tokenFile(user)), user);
      const ws = mkdtempSync('/var/tmp/ue-listener-peers-ws-');
      dirs.push(ws);
      chmodSync(ws, 0o755);
      copyFileSync(join(ROOT, 'test/fixtures/token-request.mjs'), join(ws, 'token-request.mjs'));
      if (user === 'nobody') chownSync(ws, NOBODY, NOBODY);
      const sandboxed = [
        '--sandbox',
        'workspace-write',
        '--sandbox-backend',
        backend,
        '--network',
        'on',
        '--yield-ms',
        '10000',
      ];
      const client = [process.execPath, join(ws, 'token-request.mjs'), LINK_LOCAL, String(server.port), TOKEN];
      const run = server.inside(nodeAs(user, 'dist/cli/index.js', ['run', ...sandboxed, '--', ...client]), ws);
      const out = await outputOf(run);
      expect(out).toMatch(/^closed$/m);
      expect(out).not.toContain('HTTP/1.1 200');
      expect(server.stderr()).toMatch(
        /refused a connection: fe80::1%v0:\d+ (belongs to process \d+, which runs|was made) in a sandbox/,
      );
    },
    60_000,
  );
});
