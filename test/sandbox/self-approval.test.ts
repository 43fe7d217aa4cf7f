// A sandboxed command against the server that runs it: the real built `serve --network on` (its token in a
// --token-file), an MCP SDK client as the person's, and a command that takes the token, connects back to the server
// as an MCP client that can be asked, asks to run `touch MARKER` outside the sandbox and approves itself. On both
// backends, served as root and as nobody, at the server's IPv4 and IPv6 loopback and its machine's own address.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CANNOT_SWITCH_USER, NOBODY, nodeAsNobody, removeMountPoint } from '../helpers/nobody.js';
import { killIfAlive, outputOf } from '../helpers/processes.js';
import { ownCgroupFolder } from '../../src/linux/sandbox-cgroup.js';
import { type CliLauncher, ROOT, killLeftoverServes, startServe, type ServeProcess } from '../mcp/cli-process.js';
import { textOf } from '../reliability/harness.js';
import { folderOf, type ServerUser } from './attacker.js';
import { BACKENDS, useLoopbackServer } from './sandbox-helpers.js';
import { NO_NETNS, useNamespaceOrigin } from '../helpers/namespace-origin.js';
import { titled } from '../helpers/needs.js';

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const TOKEN = 'self-approval-token-0123456789abcdef';
const cleanup: string[] = [];
afterAll(() => {
  killLeftoverServes();
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** This machine's own IPv4 address on a real interface (what `--host 0.0.0.0` also listens on), if it has one. */
const ownAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i?.family === 'IPv4' && !i.internal)?.address;

/**
 * A folder of `user`'s: the workspace `ws`, the token file (mode 600), the attack script, and `outside`, where the
 * marker would go: writable by the server's user, not by its sandbox.
 */
function setUp(user: ServerUser) {
  const dir = folderOf(user, mkdtempSync('/var/tmp/ue-self-approval-'));
  cleanup.push(dir);
  mkdirSync(join(dir, 'ws'));
  mkdirSync(join(dir, 'outside'));
  writeFileSync(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  copyFileSync(join(ROOT, 'test/fixtures/self-approve.mjs'), join(dir, 'attack.mjs'));
  copyFileSync(join(ROOT, 'test/fixtures/token-probe.mjs'), join(dir, 'probe.mjs'));
  folderOf(user, dir); // hands what was made in it to the user
  return { dir, ws: join(dir, 'ws'), tokenFile: join(dir, 'token'), marker: join(dir, 'outside/marker') };
}

const launcherFor = (user: ServerUser): CliLauncher | undefined =>
  user === 'root' ? undefined : (argv) => nodeAsNobody('dist/cli/index.js', argv);

/** Processes the tests started themselves (the fd parker), ended after each in case they outlived it. */
const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) killIfAlive(pid);
});

/**
 * A cgroup v2 folder of the test's, delegated to nobody as systemd delegates a user's (the folder and its
 * cgroup.procs, cgroup.threads and cgroup.subtree_control are nobody's), removed after the file.
 */
function delegatedCgroup(): string {
  const parent = ownCgroupFolder(
    readFileSync('/proc/self/cgroup', 'latin1'),
    readFileSync('/proc/self/mountinfo', 'latin1'),
  );
  if (parent === undefined) throw new Error('no cgroup v2 hierarchy here: the test needs one');
  const dir = join(parent, `ue-test-delegated-${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  delegated.push(dir);
  for (const path of [dir, ...['cgroup.procs', 'cgroup.threads', 'cgroup.subtree_control'].map((f) => join(dir, f))])
    chownSync(path, NOBODY, NOBODY);
  return dir;
}
const delegated: string[] = [];
afterAll(async () => {
  // Empty once the server's processes have all exited (its watchdog last): the server's sandboxes' cgroup inside it
  // (if the server could not remove it), then the folder itself.
  for (const dir of delegated.splice(0))
    await vi.waitFor(
      () => {
        for (const name of readdirSync(dir)) if (statSync(join(dir, name)).isDirectory()) rmdirSync(join(dir, name));
        rmdirSync(dir);
      },
      { timeout: 20_000, interval: 100 },
    );
});

/** `launch` moved into the cgroup folder `dir` first (as root, before it switches user). */
const inCgroup =
  (dir: string, launch: CliLauncher): CliLauncher =>
  (argv) => {
    const { command, args } = launch(argv);
    return { command: 'sh', args: ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', command, ...args] };
  };

/** The raw HTTP request of an MCP `initialize` (client name `name`) with the token, to the server at `port`. */
function initializeRequest(port: number, name: string): string {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name, version: '1' } },
  });
  return [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    `Authorization: Bearer ${TOKEN}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

/**
 * Python lines that connect to the server at `port`, cork, and write an `initialize` (client name `name`) with the
 * token, held back until the cork's 200 ms are up or the socket closes: `s` is the socket, bound to `device` if given.
 */
function corkedInitialize(port: number, name: string, device?: string, beforeCork: string[] = []): string[] {
  return [
    'import socket',
    `request = ${JSON.stringify(initializeRequest(port, name))}.encode()`,
    's = socket.socket()',
    // Bound to a device (no privilege needed): the kernel's exact lookup asked without one misses it.
    ...(device === undefined
      ? []
      : [
          `s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, b'${device}')`,
          // And its port open to a listener of anyone else's with SO_REUSEADDR too: a port bind() picks, which no
          // other socket uses (one connect() picks may be another connection's too, whose owner's bind would clash).
          's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)',
          "s.bind(('127.0.0.1', 0))",
        ]),
    `s.connect(('127.0.0.1', ${port}))`,
    ...beforeCork,
    's.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)',
    's.sendall(request)',
  ];
}

/** The parker (test/fixtures/fd-parker.py) as the server's user, outside every sandbox, once it listens. */
async function startParker(user: ServerUser, args: string[]) {
  const asUser = user === 'root' ? [] : ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
  const parker = spawn(asUser[0] ?? 'python3', [
    ...asUser.slice(1),
    ...(asUser.length > 0 ? ['python3'] : []),
    // The script's text, not its path: nobody may not enter the checkout (a clone into `mktemp -d` is 0700).
    '-c',
    readFileSync(join(ROOT, 'test/fixtures/fd-parker.py'), 'utf8'),
    ...args,
  ]);
  started.push(parker.pid!);
  await outputOf(parker, /LISTENING/);
  return parker;
}

/** `python3 -c script`, quoted for the shell. */
const python = (lines: string[]) => `python3 -c '${lines.join('\n').replace(/'/g, "'\\''")}'`;

/** The person's client: the SDK over HTTP with the token, able to be asked; every form it gets is recorded. */
async function personClient(url: string) {
  const client = new Client({ name: 'person', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    asked.push(request);
    return { action: 'decline' };
  });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
    }),
  );
  const run = async (cmd: string) =>
    textOf(
      await client.callTool(
        { name: 'exec_command', arguments: { cmd, login: false, yield_time_ms: 30_000 } },
        undefined,
        {
          timeout: 60_000,
        },
      ),
    );
  return { client, asked, run };
}

describe.each(BACKENDS)('on $backend, a sandboxed command against its own server', ({ backend, skip }) => {
  const servers: ServeProcess[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });
  const loopback = useLoopbackServer();

  describe.each(users)('served as %s', (user) => {
    const serve = async (host: string, ws: string, tokenFile: string, more: string[] = []) => {
      const env: Record<string, string> = user === 'nobody' ? { HOME: '/nonexistent' } : {};
      const args = [
        '--sandbox',
        'workspace-write',
        '--host',
        host,
        '--token-file',
        tokenFile,
        '--cwd',
        ws,
        '--network',
        'on',
        ...more,
      ];
      const server = await startServe(['--sandbox-backend', backend, ...args], env, launcherFor(user));
      servers.push(server);
      const person = await personClient(server.url);
      clients.push(person.client);
      return { server, person };
    };

    /**
     * A server with the network on whose sandboxes' cgroup can be made: root's in the test's own cgroup, nobody's in a
     * cgroup delegated to it (`cgroup`, undefined for root); `another` starts a second server of the same user with
     * the same flags, outside that cgroup, with no sandbox of its own yet.
     */
    const servedWithCgroup = async (ws: string, tokenFile: string) => {
      const cgroup = user === 'nobody' ? delegatedCgroup() : undefined;
      const env: Record<string, string> = user === 'nobody' ? { HOME: '/nonexistent' } : {};
      const args = ['--sandbox-backend', backend, '--sandbox', 'workspace-write', '--token-file', tokenFile];
      args.push('--cwd', ws, '--network', 'on');
      const launch = launcherFor(user);
      const start = async (launcher: CliLauncher | undefined) => {
        const server = await startServe(args, env, launcher);
        servers.push(server);
        return server;
      };
      const server = await start(cgroup === undefined || launch === undefined ? launch : inCgroup(cgroup, launch));
      return { server, cgroup, another: () => start(launch) };
    };

    it.skipIf(skip !== undefined && !process.env.CI).each(['::', '0.0.0.0', '::1'])(
      'cannot reach the server listening on %s to approve its own escalation',
      async (host) => {
        const { dir, ws, tokenFile, marker } = setUp(user);
        const { server, person } = await serve(host, ws, tokenFile);
        const targets = {
          '::': ['127.0.0.1', '[::1]'],
          '0.0.0.0': ['127.0.0.1', ...(ownAddress ? [ownAddress] : [])],
          '::1': ['[::1]'],
        }[host]!;
        const attack = (target: string, token: string) =>
          person.run(
            `${process.execPath} ${join(dir, 'attack.mjs')} http://${target}:${server.port}/mcp ${token} ${marker}`,
          );

        // The token file: covered on bubblewrap (by /dev/null, on a mount without devices); on Landlock readable, and
        // the connection is what is refused.
        const fromFile = await attack(targets[0]!, `@${tokenFile}`);
        expect(fromFile).toMatch(backend === 'bwrap' ? /TOKEN_UNREADABLE EACCES/ : /REFUSED/);
        // A token that leaked some other way gets it no further, at any of the server's addresses.
        for (const target of targets) expect(await attack(target, TOKEN), target).toMatch(/REFUSED/);
        // Out of the session's process tree (setsid, a double fork) and without its environment (the session's tag),
        // it is still a sandboxed process.
        const escaped = await person.run(
          [
            'out=$(mktemp)',
            `setsid -f env -i ${process.execPath} ${join(dir, 'attack.mjs')} http://${targets[0]}:${server.port}/mcp ${TOKEN} ${marker} > "$out" 2>&1`,
            'for i in $(seq 300); do [ -s "$out" ] && break; sleep 0.1; done',
            'cat "$out"; rm -f "$out"',
          ].join('\n'),
        );
        expect(escaped).toMatch(/REFUSED/);
        expect(existsSync(marker)).toBe(false);
        expect(person.asked).toEqual([]);
        expect(server.stderr()).toMatch(/refused a connection: .* (runs|was made) in a sandbox/);

        // The person's client still works, and the sandbox still reaches other loopback servers.
        const other = await person.run(
          `${process.execPath} -e "fetch('http://127.0.0.1:${loopback.port}/').then(r => r.text()).then(console.log)"`,
        );
        expect(other).toContain('hello');
      },
      120_000,
    );

    it.skipIf(skip !== undefined && !process.env.CI)(
      "cannot reach the live view's API, which can type into every tty session",
      async () => {
        const { dir, ws, tokenFile } = setUp(user);
        const { server, person } = await serve('127.0.0.1', ws, tokenFile, ['--view-input']);
        const api = `http://127.0.0.1:${server.port}/view/api/sessions`;
        const probe = (token: string) => person.run(`${process.execPath} ${join(dir, 'probe.mjs')} ${api} ${token}`);
        expect(await probe(`@${tokenFile}`)).toMatch(backend === 'bwrap' ? /TOKEN_UNREADABLE EACCES/ : /REFUSED/);
        expect(await probe(TOKEN)).toMatch(/REFUSED/);
        // The person's page still gets in.
        const response = await fetch(api, { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(response.status).toBe(200);
      },
      120_000,
    );

    // The peer check looked for the socket's holder in every /proc/<pid>/fd, and let a connection in when none held
    // it: a socket in flight (SCM_RIGHTS, its own fd closed while the server decided) or held by a thread with an
    // fd table of its own (CLONE_THREAD without CLONE_FILES: only /proc/<pid>/task/<tid>/fd shows it) was let in, and
    // from there the sandboxed command approved its own escalation.
    it.skipIf(skip !== undefined && !process.env.CI)(
      'cannot hide the socket it asks with: in flight, or in a thread with an fd table of its own',
      async () => {
        const { dir, ws, tokenFile } = setUp(user);
        execFileSync('gcc', ['-O2', '-o', join(dir, 'hidden-peer'), join(ROOT, 'test/fixtures/hidden-peer.c')]);
        folderOf(user, dir);
        const { server, person } = await serve('127.0.0.1', ws, tokenFile, ['--view-input']);
        const knock = (mode: string) =>
          person.run(`${join(dir, 'hidden-peer')} ${mode} ${server.port} ${TOKEN} /view/api/sessions`);
        expect(await knock('inflight')).toMatch(/REFUSED/);
        expect(await knock('thread')).toMatch(/REFUSED/);
        expect(server.stderr()).toMatch(/refused a connection: /);
        // The person's page still gets in.
        const response = await fetch(`http://127.0.0.1:${server.port}/view/api/sessions`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(response.status).toBe(200);
      },
      120_000,
    );

    // The socket handed to a process outside that keeps it a moment (a desktop's D-Bus daemon queues a message with an
    // fd in it): when the server looked, no sandboxed process held the connection, an unconfined one of the server's
    // user did, and it was let in; a sixth probe approved its own escalation so, through a session bus. The socket's
    // cgroup, which the kernel keeps whoever holds it, tells it. A nobody server makes its sandboxes' cgroup in one
    // delegated to it, as systemd delegates a user's.
    // A seventh probe bound the socket to `lo` too: the kernel's lookup, asked without an interface, missed it. An
    // eighth went to another server of the machine (an exec-server running this server's sessions, a second serve),
    // which knew only its own sandboxes' cgroup, or none.
    it.skipIf(skip !== undefined && !process.env.CI).each([
      ['its socket', 'itself', undefined],
      ['its socket bound to lo', 'itself', 'lo'],
      ['its socket', 'another server of the machine', undefined],
      ['its socket bound to lo, another user listening on its port,', 'itself', 'lo+listener'],
    ])(
      'cannot get a request in through a process outside that keeps %s while %s looks',
      async (_, target, device) => {
        const { dir, ws, tokenFile } = setUp(user);
        const { server, another } = await servedWithCgroup(ws, tokenFile);
        const person = await personClient(server.url);
        clients.push(person.client);
        // The other server: the same user's, with no sandbox of its own yet.
        const judge = target === 'itself' ? server : await another();
        const parkerPath = join(dir, 'parker.sock');
        const parker = await startParker(user, [parkerPath, '1.5']);
        const answer = outputOf(parker, /ANSWER|NO_ANSWER/);
        // With a listener outside on the socket's own port, the kernel's lookup of a socket bound to a device (asked
        // without one) answers that listener, made by another user outside every sandbox: a ninth probe.
        const listener = device === 'lo+listener';
        const waitForListener = [
          'import os, time',
          // Written whole, then renamed: the test must never read an empty file as port 0.
          `open(${JSON.stringify(join(ws, 'port.new'))}, 'w').write(str(s.getsockname()[1]))`,
          `os.rename(${JSON.stringify(join(ws, 'port.new'))}, ${JSON.stringify(join(ws, 'port'))})`,
          `while not os.path.exists(${JSON.stringify(join(ws, 'go'))}): time.sleep(0.05)`,
        ];
        const park = [
          ...corkedInitialize(judge.port, 'x', device && 'lo', listener ? waitForListener : []),
          'u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
          `u.connect(${JSON.stringify(parkerPath)})`,
          "socket.send_fds(u, [b'x'], [s.fileno()])",
          's.close()',
          'u.close()',
          "print('PARKED')",
        ];
        const parked = person.run(python(park));
        if (listener) {
          const port = await vi.waitFor(
            () => {
              const bound = Number(readFileSync(join(ws, 'port'), 'utf8'));
              if (!(bound > 0)) throw new Error('no port yet');
              return bound;
            },
            { timeout: 20_000 },
          );
          const other = spawn('setpriv', [
            '--reuid=65534',
            '--regid=65534',
            '--clear-groups',
            'python3',
            '-c',
            `import socket, time\nl = socket.socket()\nl.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\nl.bind(('0.0.0.0', ${port}))\nl.listen()\nprint('LISTENING', flush=True)\ntime.sleep(30)`,
          ]);
          started.push(other.pid!);
          await outputOf(other, /LISTENING/);
          writeFileSync(join(ws, 'go'), '');
        }
        expect(await parked).toContain('PARKED');
        expect(await answer).toMatch(/NO_ANSWER/);
        expect(judge.stderr()).toMatch(
          listener
            ? /refused a connection: .* the kernel's lookup answered another socket/
            : /refused a connection: .* was made in a sandbox \(its cgroup\)/,
        );
      },
      120_000,
    );

    // A socket keeps its cgroup after the folder is removed. A tenth probe made sockets in one server's sandbox, handed
    // them out, and stopped that server (its sandboxes' cgroup removed with it): a second server's walk of the cgroup
    // tree no longer found the socket's cgroup, took it for no sandbox's, and the holders alone let the parked
    // connection in. Here the socket, made unconnected in the first server's sandbox, goes to the parker outside,
    // which connects it to the second server once the first has stopped.
    it.skipIf(skip !== undefined && !process.env.CI)(
      "cannot get a request in with a socket made in a stopped server's sandbox",
      async () => {
        const { dir, ws, tokenFile } = setUp(user);
        const { server: first, cgroup, another } = await servedWithCgroup(ws, tokenFile);
        const judge = await another();
        const person = await personClient(first.url);
        const request = join(dir, 'request');
        writeFileSync(request, initializeRequest(judge.port, 'x'));
        const parkerPath = join(dir, 'parker.sock');
        const parker = await startParker(user, [parkerPath, '0', String(judge.port), request]);
        const got = outputOf(parker, /GOT/);
        const answer = outputOf(parker, /ANSWER|NO_ANSWER/);
        const handOver = [
          'import socket',
          's = socket.socket()',
          'u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)',
          `u.connect(${JSON.stringify(parkerPath)})`,
          "socket.send_fds(u, [b'x'], [s.fileno()])",
          "print('HANDED')",
        ];
        expect(await person.run(python(handOver))).toContain('HANDED');
        await got;
        // The first server stops, and its sandboxes' cgroup goes with it.
        const parent =
          cgroup ??
          ownCgroupFolder(readFileSync('/proc/self/cgroup', 'latin1'), readFileSync('/proc/self/mountinfo', 'latin1'))!;
        const sandboxes = join(parent, `unified-exec-sandboxes-${first.child.pid}`);
        expect(existsSync(sandboxes), sandboxes).toBe(true);
        await person.client.close();
        await first.stop();
        await vi.waitFor(() => expect(existsSync(sandboxes)).toBe(false), { timeout: 10_000 });
        parker.stdin!.write('go\n');
        expect(await answer).toMatch(/NO_ANSWER/);
        expect(judge.stderr()).toMatch(/refused a connection: .* was made in a cgroup that is gone/);
      },
      120_000,
    );

    // A request corked with its FIN and closed at once: the server reads it from an end no process holds any more,
    // which the kernel lists as root's (uid 0, inode 0), and a server of another user took it for another user's
    // process and let it in (a sandboxed command's MCP client connected to a nobody server).
    it.skipIf(skip !== undefined && !process.env.CI)(
      'cannot get a request in by closing its socket with it, corked',
      async () => {
        const { ws, tokenFile } = setUp(user);
        const { server, person } = await serve('127.0.0.1', ws, tokenFile);
        const clients = () => server.stderr().match(/client \S+ connected/g)?.length ?? 0;
        const before = clients();
        // A long request (an 8000-byte name): the server reads it in more than one chunk.
        const corked = [...corkedInitialize(server.port, 'x'.repeat(8000)), 's.close()', "print('SENT')"];
        for (let i = 0; i < 3; i++) expect(await person.run(python(corked))).toContain('SENT');
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(clients(), server.stderr()).toBe(before);
      },
      120_000,
    );

    // The allowlist runs on bubblewrap only (the Landlock backend refuses it at the call). With `localhost` allowed, a
    // sandboxed command asked the proxy for CONNECT localhost:PORT and reached any server of this machine (another
    // serve or exec-server, whose peer check saw the proxy's own unconfined connection and let it in): only this
    // server's own port was refused. The proxy now dials no address of this machine, whatever name is allowed; a
    // server off this machine (in a network namespace the test makes) stays reachable by its allowed address.
    if (backend === 'bwrap')
      describe.skipIf(NO_NETNS !== undefined || (skip !== undefined && !process.env.CI))(
        titled('through the domain allowlist proxy', NO_NETNS),
        () => {
          const origin = useNamespaceOrigin();

          it('cannot reach any server of this machine, with localhost and its addresses allowed', async () => {
            const { ws, tokenFile } = setUp(user);
            // Not the host end of another suite's namespace (10.231.x.y), which may go while this test runs.
            const own = Object.values(networkInterfaces())
              .flat()
              .find((i) => i?.family === 'IPv4' && !i.internal && !i.address.startsWith('10.231.'))?.address;
            const local = ['localhost', '127.0.0.1', ...(own ? [own] : [])];
            const allow = [...local, origin.address].flatMap((name) => ['--allowed-domain', name]);
            const { server, person } = await serve('127.0.0.1', ws, tokenFile, ['--network', 'off', ...allow]);
            // A tunnel (CONNECT, as for https://) and a plain request, each with the leaked token.
            const get = (host: string, port: number) =>
              [
                `curl -s -p -o /dev/null -w "tunnel ${host}:${port} %{http_connect}\n" -H "authorization: Bearer ${TOKEN}" http://${host}:${port}/view/api/sessions`,
                `curl -s -o /dev/null -w "plain ${host}:${port} %{http_code}\n" -H "authorization: Bearer ${TOKEN}" http://${host}:${port}/view/api/sessions`,
              ].join('; ');
            const targets = local.flatMap((host) => [`${host}:${server.port}`, `${host}:${loopback.port}`]);
            const out = await person.run(
              [
                ...targets.map((target) => get(target.split(':')[0]!, Number(target.split(':')[1]))),
                `curl -s -p http://localhost:${loopback.port}/; echo`,
                `curl -s http://${origin.address}:${origin.port}/`,
              ].join('; '),
            );
            for (const target of targets) {
              expect(out).toContain(`tunnel ${target} 403`);
              expect(out).toContain(`plain ${target} 403`);
            }
            // The refusal says why (curl shows a tunnel's status only, so this one is plain).
            const why = await person.run(`curl -s http://localhost:${loopback.port}/`);
            expect(why).toContain(
              'addresses of this machine are never reached through the domain allowlist, whatever name is allowed',
            );
            expect(out).not.toMatch(/^hello$/m);
            expect(out).toContain('hello from origin');
          }, 120_000);
        },
      );
  });
});
