// The sandbox against an attacker: each test runs the attack itself, as a model typing commands into the default
// sandbox of the real server (root, and an unprivileged user), or as another local user, and checks what it left.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { CLI, cleanEnv } from '../mcp/cli-process.js';
import { CANNOT_SWITCH_USER, NOBODY, NOBODY_IDS, removeMountPoint } from '../helpers/nobody.js';
import { textOf } from '../reliability/harness.js';
import type { SandboxBackend } from '../../src/sandbox/policy.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { BACKENDS, NO_SANDBOX } from './sandbox-helpers.js';
import { missingTools, titled } from '../helpers/needs.js';

const uidOf = (user: ServerUser) => (user === 'root' ? 0 : NOBODY);
const hostNamespace = (kind: string) => readlinkSync(`/proc/self/ns/${kind}`);

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
/** The attacker's debugger, and the allowlist's bridge (`--allowed-domain` runs socat): why a test is skipped here. */
const NO_GDB = missingTools('gdb');
const NO_SOCAT = missingTools('socat');
const NO_GDB_OR_SOCAT = missingTools('gdb', 'socat');
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

describe.skipIf(NO_SANDBOX !== undefined)(
  titled('a sandboxed command against the server that runs it', NO_SANDBOX),
  () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });
    const start = async (...args: Parameters<typeof startMcp>) => {
      const server = await startMcp(...args);
      servers.push(server);
      return server;
    };
    /** A workspace of `user`'s: `<fresh folder in /tmp>/ws`, a git repository, inside the writable /tmp. */
    const nestedWorkspace = (user: ServerUser) => {
      const outer = folderOf(user, mkdtempSync('/tmp/ue-escape-'));
      cleanup.push(outer, `${outer}-moved`);
      const ws = join(outer, 'ws');
      execFileSync('git', ['init', '-q', ws]);
      folderOf(user, outer);
      return { outer, ws };
    };

    describe.each(users)('served as %s', (user) => {
      it("cannot read the token file of its server's executor, nor the token stores of clients", async () => {
        const { outer, ws } = nestedWorkspace(user);
        const home = join(outer, 'home');
        mkdirSync(join(home, '.codex'), { recursive: true });
        const secrets = [
          join(outer, 'executor-token'),
          join(home, '.claude.json'),
          join(home, '.claude.json.backup'),
          join(home, '.codex/config.toml'),
          join(home, '.codex/environments.toml'),
        ];
        for (const file of secrets) writeFileSync(file, 'SECRET-TOKEN-0123456789\n', { mode: 0o600 });
        writeFileSync(join(outer, 'plain'), 'PLAIN\n', { mode: 0o600 });
        folderOf(user, outer);
        // The executor is never reached (nothing listens there); its token file is read when the server starts.
        const executor = `x=ws://127.0.0.1:9?token-file=${secrets[0]}`;
        const server = await start(user, ws, ['--executor', 'local=local', '--executor', executor], { HOME: home });
        const out = await server.call(`for f in ${[join(outer, 'plain'), ...secrets].join(' ')}; do cat $f; done`);
        expect(out).toContain('PLAIN'); // the same folders are readable otherwise
        expect(out).not.toContain('SECRET');
      });

      it("cannot write the kernel's knobs, and has a hostname and cgroups of its own", async () => {
        const { ws } = nestedWorkspace(user);
        const server = await start(user, ws);
        // Each write puts back the value already there: harmless if it ever got through.
        const out = await server.call(
          [
            'for k in kernel/core_pattern kernel/panic vm/overcommit_memory; do',
            '  v=$(cat /proc/sys/$k); printf "%s\\n" "$v" > /proc/sys/$k && echo "WROTE $k"',
            'done',
            'echo "uts $(readlink /proc/self/ns/uts) cgroup $(readlink /proc/self/ns/cgroup)"',
            'for f in /proc/keys /proc/timer_list /proc/kcore; do [ -e $f ] && echo "$f $(head -c 64 $f | wc -c)"; done',
            'ls /sys/firmware | wc -l',
          ].join('\n'),
        );
        expect(out).not.toContain('WROTE');
        expect(out.match(/Read-only file system/g)?.length, out).toBe(3);
        expect(out).not.toContain(hostNamespace('uts'));
        expect(out).not.toContain(hostNamespace('cgroup'));
        expect(out).toMatch(/\/proc\/keys 0\n/);
        if (existsSync('/proc/timer_list')) expect(out).toMatch(/\/proc\/timer_list 0\n/);
      });

      it('cannot leave a set-user-ID or set-group-ID program behind for other users to run', async () => {
        const { ws } = nestedWorkspace(user);
        const server = await start(user, ws);
        const out = await server.call(
          [
            `cp /bin/true ${ws}/chmodded && chmod 4755 ${ws}/chmodded && echo CHMODDED`,
            `python3 -c "import os; os.open('${ws}/created', os.O_CREAT | os.O_WRONLY, 0o6755)" && echo CREATED`,
            `install -m 2755 /bin/true ${ws}/installed && echo INSTALLED`,
            `chmod 1777 ${ws} && echo STICKY_IS_FINE`,
          ].join('\n'),
        );
        expect(out).not.toMatch(/CHMODDED|CREATED|INSTALLED/);
        expect(out).toContain('STICKY_IS_FINE');
        for (const name of ['chmodded', 'created', 'installed']) {
          const path = join(ws, name);
          if (existsSync(path)) expect(statSync(path).mode & 0o6000, name).toBe(0);
        }
      });

      it.skipIf(NO_GDB !== undefined)(
        titled("cannot take over bubblewrap's init, which runs under the same filter and cannot be traced", NO_GDB),
        async () => {
          const { ws } = nestedWorkspace(user);
          const server = await start(user, ws);
          // gdb attached to pid 1 would run code there: with no filter on it, a set-user-ID bit or a host socket.
          const out = await server.call(
            [
              'grep Seccomp: /proc/1/status',
              `cp /bin/true ${ws}/viainit`,
              `gdb -q -p 1 -batch -ex 'call (int)system("chmod 4755 ${ws}/viainit; echo VIA_INIT > ${ws}/ran")'`,
              'head -c 1 /proc/1/mem >/dev/null && echo READ_MEM',
            ].join('\n'),
          );
          expect(out).toMatch(/Seccomp:\s+2\n/);
          expect(out).toContain('ptrace: Operation not permitted');
          expect(out).not.toContain('READ_MEM');
          expect(existsSync(join(ws, 'ran'))).toBe(false);
          expect(statSync(join(ws, 'viainit')).mode & 0o6000).toBe(0);
        },
      );

      it('cannot make the workspace a bare repository whose config git would run outside', async () => {
        const plain = folderOf(user, mkdtempSync('/tmp/ue-bare-')); // not a repository
        cleanup.push(plain);
        const server = await start(user, plain);
        const out = await server.call(
          `git init -q --bare . && git config core.fsmonitor "touch ${plain}/pwned" && echo PLANTED`,
        );
        expect(out).not.toContain('PLANTED');
        await server.close();
        // Outside, git finds no repository there (it would have run the fsmonitor hook).
        const found = spawnSync('git', ['rev-parse', '--git-dir'], { cwd: plain, encoding: 'utf8' });
        expect(found.status, found.stdout).not.toBe(0);
      });

      it('refuses to start where a protected name is a link the command could replace', async () => {
        const { ws } = nestedWorkspace(user);
        execFileSync('mv', [join(ws, '.git'), join(ws, 'realgit')]);
        symlinkSync('realgit', join(ws, '.git'));
        if (user === 'nobody') execFileSync('chown', ['-h', `${NOBODY}:${NOBODY}`, join(ws, '.git')]);
        const server = await start(user, ws);
        const out = await server.call('rm .git && git init -q && echo REPLACED');
        expect(out).toContain('is a symbolic link, which the sandbox cannot keep read-only');
        expect(lstatSync(join(ws, '.git')).isSymbolicLink()).toBe(true); // the command never ran
      });

      it('cannot reach a unix socket on the host (an ssh-agent, a Docker socket) with the network off', async () => {
        const { ws } = nestedWorkspace(user);
        const dir = mkdtempSync('/tmp/ue-agent-');
        chmodSync(dir, 0o755);
        cleanup.push(dir);
        const path = join(dir, 'agent.sock');
        let connections = 0;
        const agent = createServer((socket) => {
          connections++;
          socket.end('signed');
        });
        await new Promise<void>((resolve) => agent.listen(path, resolve));
        chmodSync(path, 0o777); // anyone may connect: only the sandbox stands in the way
        try {
          const server = await start(user, ws);
          const out = await server.call(
            `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${path}'); print('REACHED', s.recv(6))"`,
          );
          expect(out).toContain('PermissionError: [Errno 1] Operation not permitted');
          expect(out).not.toContain('REACHED');
          expect(connections).toBe(0);
        } finally {
          await new Promise((resolve) => agent.close(resolve));
        }
      });

      it('cannot carry the protected .git away by renaming the folder around the workspace', async () => {
        const { outer, ws } = nestedWorkspace(user);
        const server = await start(user, ws);
        const out = await server.call(
          [
            `mv ${outer} ${outer}-moved && echo MOVED`,
            `mv ${ws} ${outer}/elsewhere && echo MOVED_WS`,
            `mkdir -p ${ws}/.git/hooks; echo 'touch /tmp/pwned' > ${ws}/.git/hooks/pre-commit && echo PLANTED`,
            `mkdir ${ws}/.codex && echo MADE_CODEX`,
          ].join('\n'),
        );
        expect(out).not.toMatch(/MOVED|PLANTED|MADE_CODEX/);
        expect(out).toContain('Device or resource busy');
        await server.close(); // and with it the empty folders bubblewrap made as mount points
        expect(existsSync(`${outer}-moved`)).toBe(false);
        expect(existsSync(`${ws}/.git/hooks/pre-commit`)).toBe(false);
        expect(existsSync(`${ws}/.codex`)).toBe(false);
        expect(readdirSync(outer)).toEqual(['ws']);
      });

      it("cannot change the server's private folder, even when it lies inside a writable root", async () => {
        const { ws } = nestedWorkspace(user);
        const runtime = folderOf(user, join(ws, 'run')); // $XDG_RUNTIME_DIR: the server's first choice
        const root = join(runtime, `unified-exec-${uidOf(user)}`);
        const victim = folderOf('root', mkdtempSync('/var/tmp/ue-victim-'));
        cleanup.push(victim);
        writeFileSync(join(victim, 'precious'), 'keep me');
        const server = await start(user, ws, [], { XDG_RUNTIME_DIR: runtime });
        // A login command takes a snapshot there; a sandboxed one makes mask markers there.
        expect(await server.call('echo first', { login: true })).toContain('first');
        const out = await server.call(
          [
            `R=${root}`,
            'ls "$R"',
            'for f in "$R"/snapshots-*/*.sh; do echo "echo PWNED" >> "$f" && echo "WROTE $f"; done',
            // The mask registry: markers replaced by links to a folder of the attacker's choice.
            `for d in "$R"/masks/* /tmp/unified-exec-masks-*/*; do rm -r "$d" && ln -s ${victim} "$d" && echo LINKED; done`,
            'mv "$R" "$R.x" && echo MOVED_ROOT',
            `mv ${runtime} ${runtime}.x && echo MOVED_PARENT`,
            'mkdir "$R/evil" && echo MADE',
          ].join('\n'),
        );
        expect(out).toMatch(/snapshots-\d+-\w+\n/);
        expect(out).not.toMatch(/WROTE|MOVED_ROOT|MOVED_PARENT|MADE/); // a link in a folder of old versions is no harm: the victim below tells
        expect(await server.call('echo second', { login: true })).not.toContain('PWNED');
        await server.close();
        expect(readFileSync(join(victim, 'precious'), 'utf8')).toBe('keep me');
        expect(existsSync(join(root, 'evil'))).toBe(false);
      });
    });

    it.each([[[]], [['--allowed-domain', 'example.com']]])(
      'plants programs in a folder on the server’s PATH: none runs outside the sandbox (%j)',
      async (args) => {
        const { ws } = nestedWorkspace('root');
        const marker = mkdtempSync('/var/tmp/ue-planted-');
        cleanup.push(marker);
        const bin = join(ws, '.venv', 'bin'); // an activated venv of the workspace, first on the server's PATH
        const server = await start('root', ws, args, { PATH: `${bin}:${process.env.PATH}` });
        const plant = ['bwrap', 'socat', 'setsid', 'seq', 'sleep'].map(
          (name) =>
            `printf '#!/bin/sh\\necho ${name} >> ${marker}/ran 2>/dev/null\\nexec /usr/bin/${name} "$@"\\n' > ${bin}/${name}; chmod 755 ${bin}/${name}`,
        );
        expect(await server.call([`mkdir -p ${bin}`, ...plant, 'echo planted'].join('\n'))).toContain('planted');
        await server.close();
        const next = await start('root', ws, args, { PATH: `${bin}:${process.env.PATH}` });
        expect(await next.call('echo second')).toContain('second');
        expect(existsSync(join(marker, 'ran')) ? readFileSync(join(marker, 'ran'), 'utf8') : '').toBe('');
      },
    );

    it('gets none of the file descriptors the server inherited', async () => {
      const { ws } = nestedWorkspace('root');
      // The server is started with fd 40 open (as a service manager or a CI runner may leave one): a pipe here.
      const command = 'bash';
      const args = ['-c', 'exec 40>/dev/null; exec "$0" "$@"', process.execPath, CLI, 'mcp'];
      const transport = new StdioClientTransport({
        command,
        args,
        cwd: ws,
        env: cleanEnv() as Record<string, string>,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'escapes', version: '1.0.0' });
      await client.connect(transport);
      try {
        const reply = textOf(
          await client.callTool({
            name: 'exec_command',
            arguments: { cmd: 'ls /proc/self/fd; echo x >&40 && echo WROTE', login: false },
          }),
        );
        expect(reply).toContain('Bad file descriptor');
        expect(reply).not.toContain('WROTE');
      } finally {
        await client.close();
      }
    });

    it('cannot plant a repository in a folder between nested roots, which git in the inner one would use', async () => {
      const { outer, ws } = nestedWorkspace('root');
      rmSync(join(ws, '.git'), { recursive: true, force: true }); // a workspace that is no repository
      const server = await start('root', ws);
      const out = await server.call(
        `git init -q ${outer} && git -C ${outer} config core.fsmonitor "touch ${ws}/pwned" && echo PLANTED`,
      );
      expect(out).not.toContain('PLANTED');
      await server.close();
      const found = spawnSync('git', ['rev-parse', '--git-dir'], { cwd: ws, encoding: 'utf8' });
      expect(found.status, found.stdout).not.toBe(0);
    });

    it.skipIf(NO_GDB_OR_SOCAT !== undefined)(
      titled("cannot trace the allowlist's bridge, which may reach the proxy's unix socket", NO_GDB_OR_SOCAT),
      async () => {
        const { ws } = nestedWorkspace('root');
        const server = await start('root', ws, ['--allowed-domain', 'example.com']);
        const out = await server.call(
          [
            'pid=$(pgrep -x socat) && echo "bridge $pid"',
            `gdb -q -p $pid -batch -ex 'call (int)system("echo VIA_BRIDGE > ${ws}/ran")'`,
            'head -c 1 /proc/$pid/mem >/dev/null && echo READ_MEM',
          ].join('\n'),
        );
        expect(out).toMatch(/bridge \d+\n/);
        expect(out).toContain('ptrace: Operation not permitted');
        expect(out).not.toContain('READ_MEM');
        expect(existsSync(join(ws, 'ran'))).toBe(false);
      },
    );

    it.skipIf(NO_SOCAT !== undefined)(
      titled("cannot take the allowlist proxy's socket to read another command's requests", NO_SOCAT),
      async () => {
        const { ws } = nestedWorkspace('root');
        const server = await start('root', ws, ['--allowed-domain', 'example.com']);
        const out = await server.call(
          [
            "S=$(cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n' | sed -n 's/^UNIX-CONNECT://p' | head -n1)",
            'echo "socket: $S"',
            'rm -f "$S" && echo REMOVED',
            'mv "$(dirname "$S")" "$(dirname "$S").x" && echo MOVED',
          ].join('\n'),
        );
        expect(out).toMatch(/socket: \/\S+\.sock\n/);
        expect(out).not.toMatch(/REMOVED|MOVED/);
      },
    );
  },
);

describe.skipIf(NO_SANDBOX !== undefined || CANNOT_SWITCH_USER !== undefined)(
  titled('another local user against a root server', NO_SANDBOX ?? CANNOT_SWITCH_USER),
  () => {
    it('plants a link at a protected name in a shared writable root: the sandbox still starts, and the link is not followed', async () => {
      const shared = mkdtempSync('/var/tmp/ue-shared-tmp-');
      chmodSync(shared, 0o1777);
      cleanup.push(shared);
      const ws = mkdtempSync('/var/tmp/ue-link-ws-');
      cleanup.push(ws);
      execFileSync('setpriv', [...NOBODY_IDS, 'ln', '-s', '/nonexistent/x', join(shared, '.aws')]);
      execFileSync('setpriv', [...NOBODY_IDS, 'ln', '-s', ws, join(shared, '.codex')]);
      const server = await startMcp('root', ws, [], { TMPDIR: shared });
      try {
        const out = await server.call(`echo ran && touch ${ws}/still-writable && echo WROTE`);
        expect(out).toContain('ran\nWROTE');
      } finally {
        await server.close();
      }
    });

    it("squats the server's folders in a shared temp dir: refused, and nothing of its is deleted or run", async () => {
      const shared = mkdtempSync('/var/tmp/ue-shared-tmp-');
      chmodSync(shared, 0o1777);
      cleanup.push(shared);
      const ws = mkdtempSync('/var/tmp/ue-squat-ws-');
      cleanup.push(ws);
      execFileSync('git', ['init', '-q', ws]);
      const victim = mkdtempSync('/var/tmp/ue-victim-');
      cleanup.push(victim);
      writeFileSync(join(victim, 'precious'), 'keep me');
      // As nobody: the names a root server would pick in the shared folder, made first. The mask registry's folder for
      // the workspace's missing `.agents` is a link to root's folder; the private root's name is taken.
      const hash = createHash('sha256').update(join(ws, '.agents')).digest('hex').slice(0, 24);
      const squat = [
        `mkdir -p ${shared}/unified-exec-masks-0 ${shared}/unified-exec-0/masks ${shared}/unified-exec-snapshots-0`,
        `ln -s ${victim} ${shared}/unified-exec-masks-0/${hash}`,
        `ln -s ${victim} ${shared}/unified-exec-0/masks/${hash}`,
        `chmod -R 777 ${shared}/unified-exec-0 ${shared}/unified-exec-snapshots-0`,
      ].join(' && ');
      execFileSync('setpriv', [...NOBODY_IDS, 'sh', '-c', squat]);

      const server = await startMcp('root', ws, [], { TMPDIR: shared, XDG_RUNTIME_DIR: shared });
      try {
        expect(await server.call('echo login', { login: true })).toContain('login');
        expect(await server.call('echo sandboxed')).toContain('sandboxed');
      } finally {
        await server.close();
      }
      expect(readFileSync(join(victim, 'precious'), 'utf8')).toBe('keep me');
      // Nothing of root's went into the squatted folders.
      const owners = execFileSync('find', [shared, '-uid', '0', '-mindepth', '1']).toString().trim();
      expect(owners).toBe('');
    });
  },
);

describe.each(BACKENDS)('what held keeps holding, network off, on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  else held(backend);
});

function held(backend: SandboxBackend): void {
  const launch = (user: ServerUser, cwd: string) => startMcp(user, cwd, ['--sandbox-backend', backend]);
  const servers: Server[] = [];
  const owned: { close(): void }[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    for (const thing of owned.splice(0)) thing.close();
  });
  const workspace = () => {
    const ws = mkdtempSync('/var/tmp/ue-held-');
    cleanup.push(ws);
    return ws;
  };

  it('no TCP, no UDP, no unix socket on the host nor an abstract one reaches the host', async () => {
    const tcp = createServer((socket) => socket.end('hello'));
    const socketDir = workspace();
    const unixPath = join(socketDir, 'agent.sock');
    const unix = createServer((socket) => socket.end('hello'));
    const abstractName = `\0ue-abstract-${process.pid}`;
    const abstract = createServer((socket) => socket.end('hello'));
    const udp = createSocket('udp4');
    const datagrams: string[] = [];
    udp.on('message', (message) => datagrams.push(message.toString()));
    await Promise.all([
      new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve)),
      new Promise<void>((resolve) => abstract.listen(abstractName, resolve)),
      new Promise<void>((resolve) => unix.listen(unixPath, resolve)),
      new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve)),
    ]);
    owned.push(tcp, abstract, unix, { close: () => udp.close() });
    const server = await launch('root', workspace());
    servers.push(server);
    const python = [
      'import socket',
      'def attempt(name, fn):',
      '    try:',
      '        fn(); print(name, "REACHED")',
      '    except OSError as e:',
      '        print(name, "refused", e.errno)',
      `attempt("tcp", lambda: socket.create_connection(("127.0.0.1", ${(tcp.address() as AddressInfo).port}), 2).recv(5) or 1/0)`,
      `attempt("abstract", lambda: socket.socket(socket.AF_UNIX).connect("\\0${abstractName.slice(1)}"))`,
      `attempt("unix", lambda: socket.socket(socket.AF_UNIX).connect("${unixPath}"))`,
      // UDP says nothing either way: what counts is whether the host's socket received the datagram.
      `socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"leak", ("127.0.0.1", ${udp.address().port}))`,
    ].join('\n');
    const out = await server.call(`python3 -c '${python}'`);
    expect(out).toMatch(/tcp refused/);
    expect(out).toMatch(/abstract refused/);
    expect(out).toMatch(/unix refused/);
    expect(out).not.toContain('REACHED');
    await new Promise((resolve) => setTimeout(resolve, 200)); // a datagram, had one left, would be here by now
    expect(datagrams).toEqual([]);
  });

  // bubblewrap's PID namespace hides them; Landlock (ABI 6) leaves them visible but out of reach of signals.
  it("cannot signal the host's processes", async () => {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    owned.push({ close: () => sleeper.kill('SIGKILL') });
    const server = await launch('root', workspace());
    servers.push(server);
    const out = await server.call(`kill -0 ${sleeper.pid} && echo SIGNALLED; kill -TERM ${sleeper.pid} && echo KILLED`);
    expect(out).not.toMatch(/SIGNALLED|KILLED/);
    expect(out).toContain(backend === 'bwrap' ? 'No such process' : 'Operation not permitted');
    expect(sleeper.exitCode).toBeNull();
    expect(sleeper.signalCode).toBeNull();
  });

  it('a fork storm leaves another client responsive, and ends whole with its client', async () => {
    const marker = `300.${process.pid}${Date.now() % 1000}`;
    const storm = await launch('root', workspace());
    const other = await launch('root', workspace());
    servers.push(other);
    const hosts = () =>
      execFileSync('ps', ['-eo', 'args'])
        .toString()
        .split('\n')
        .filter((line) => line === `sleep ${marker}`).length;
    // 400 processes that each fork a sleeper and leave it behind (setsid, double fork), as fast as bash can.
    // The session stays: when its client goes, the session ends with everything it started (bubblewrap: its PID
    // namespace; Landlock: the session's process tag, which the server finds them all by).
    let started = await storm.call(
      `for i in $(seq 400); do (setsid sleep ${marker} &) ; done; echo spawned; sleep 600`,
      { yield_time_ms: 5000 },
    );
    // 400 forks take longer than one yield on a loaded 2-core machine: poll the session until the loop is through.
    const session = Number(/session ID (\d+)/.exec(started)?.[1]);
    const deadline = performance.now() + 60_000;
    while (!started.includes('spawned') && performance.now() < deadline) started += await storm.write(session, '');
    expect(started).toContain('spawned');
    const began = performance.now();
    expect(await other.call('echo alive')).toContain('alive');
    expect(performance.now() - began).toBeLessThan(10_000);
    expect(hosts(), started).toBe(400);
    await storm.close();
    await vi.waitFor(() => expect(hosts()).toBe(0), { timeout: 15_000, interval: 100 });
    // Above the bounds of its own waits (60 s for the loop, 10 s, 15 s) and two starts: the suite's 60 s cut the
    // test short on Landlock on a busy machine (53 s seen on a 2-core one with the loop through).
  }, 150_000);
}
