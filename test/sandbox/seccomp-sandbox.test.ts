import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/sandbox/backend-probe.js';
import { BASH, useManagers } from '../helpers/manager.js';
import { titled } from '../helpers/needs.js';
import { NO_SANDBOX, useWorkspace } from './sandbox-helpers.js';

/** A service on a unix socket in /tmp that answers anyone who connects, as an ssh-agent would sign. */
function useAgentSocket(): { path: string; connections: number } {
  const state = { path: '', connections: 0 };
  let dir = '';
  let server: Server;
  beforeAll(async () => {
    dir = mkdtempSync('/tmp/unified-exec-agent-');
    state.path = join(dir, 'agent.sock');
    server = createServer((socket) => {
      state.connections++;
      socket.end('signed');
    });
    await new Promise<void>((resolve) => server.listen(state.path, resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  return state;
}

const CONNECT = `python3 -c "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print('reply', s.recv(16).decode())"`;

/** A raw system call from python (ctypes), printing `ok` or the errno's name. */
const syscall = (numbers: { x64: number; arm64: number }, ...args: string[]) => {
  const nr = process.arch === 'arm64' ? numbers.arm64 : numbers.x64;
  return `python3 -c "import ctypes, errno; libc = ctypes.CDLL(None, use_errno=True); r = libc.syscall(${[nr, ...args].join(', ')}); print('ok' if r >= 0 else errno.errorcode[ctypes.get_errno()])"`;
};

// bubblewrap's probe: without bubblewrap it stops before it looks for the launcher.
describe.skipIf(NO_SANDBOX !== undefined)(titled('the sandbox probe', NO_SANDBOX), () => {
  it('fails without the launcher that installs the filter, and says how to build it', () => {
    const probe = probeSandbox(process.env.PATH, '/nonexistent/unified-exec-sandbox-exec');
    expect(probe).toEqual({
      ok: false,
      reason: expect.stringMatching(/is missing; .*: build it from source with `cd .* && npm run build:native`/),
    });
  });
});

describe.skipIf(NO_SANDBOX !== undefined)(
  titled('the seccomp filter in the sandbox, through exec_command', NO_SANDBOX),
  () => {
    const manager = useManagers();
    const ws = useWorkspace();
    const agent = useAgentSocket();
    const run = async (cmd: string, network: 'off' | 'on' = 'off', allowedDomains: string[] = []) => {
      const m = manager({ cwd: ws.dir, sandbox: 'workspace-write', network, allowedDomains, approvalPolicy: 'never' });
      const r = await m.execCommand({ command: cmd, ...BASH, yieldTimeMs: 30_000 });
      return { exitCode: r.exitCode, output: r.output.trim() };
    };

    it('with the network off, a unix socket in /tmp (an ssh-agent, a Docker socket) cannot be connected to', async () => {
      const before = agent.connections;
      const r = await run(`${CONNECT} ${agent.path}`);
      expect(r.output).toContain('PermissionError: [Errno 1] Operation not permitted');
      expect(r.exitCode).toBe(1);
      expect(agent.connections).toBe(before);
    });

    it('with the network on, the same socket answers (the probe can tell)', async () => {
      const r = await run(`${CONNECT} ${agent.path}`, 'on');
      expect(r).toEqual({ exitCode: 0, output: 'reply signed' });
    });

    it('with a domain allowlist, the command cannot reach the socket either (the proxy bridge can connect)', async () => {
      const before = agent.connections;
      const r = await run(`${CONNECT} ${agent.path}`, 'off', ['example.com']);
      expect(r.output).toContain('PermissionError: [Errno 1] Operation not permitted');
      expect(agent.connections).toBe(before);
    });

    it('with the network off, no unix or datagram socket; IP sockets serve inside the sandbox only', async () => {
      const r = await run(
        `python3 -c "
import socket, threading
for what, make in [('unix', lambda: socket.socket(socket.AF_UNIX)), ('dgram', lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)), ('dgram pair', lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))]:
    try: make(); print(what, 'made')
    except OSError as e: print(what, e.errno)
server = socket.create_server(('127.0.0.1', 0))
threading.Thread(target=lambda: server.accept()[0].sendall(b'local'), daemon=True).start()
print(socket.create_connection(server.getsockname()).recv(5).decode())
"`,
      );
      expect(r.output.split('\n')).toEqual(['unix 1', 'dgram 1', 'dgram pair 1', 'local']);
    });

    it.each(['off', 'on'] as const)(
      'with the network %s, no new namespaces, mounts, keyrings or io_uring',
      async (network) => {
        const unshare = await run('unshare -U true', network);
        expect(unshare.output).toContain('unshare failed: Operation not permitted');
        expect(unshare.exitCode).toBe(1);
        const mount = await run(syscall({ x64: 165, arm64: 40 }, "b'none'", "b'/mnt'", "b'tmpfs'", '0', '0'), network);
        expect(mount.output).toBe('EPERM');
        // keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0): the user's keyring, shared with the host.
        const keyctl = await run(syscall({ x64: 250, arm64: 219 }, '0', '-4', '0'), network);
        expect(keyctl.output).toBe('EPERM');
        const ioUring = await run(syscall({ x64: 425, arm64: 425 }, '1', 'ctypes.create_string_buffer(120)'), network);
        expect(ioUring.output).toBe('EPERM');
      },
    );

    it('keeps socketpairs, pipes, make -j, background jobs and gdb on its own child working', async () => {
      writeFileSync(join(ws.dir, 'Makefile'), 'all: a b c d\na b c d:\n\t@sleep 0.2; echo built $@\n');
      const pair = await run(
        `python3 -c "import socket; a, b = socket.socketpair(); a.sendall(b'ping'); print(b.recv(4).decode())"`,
      );
      expect(pair).toEqual({ exitCode: 0, output: 'ping' });
      expect(await run('echo through | cat | tr a-z A-Z')).toEqual({ exitCode: 0, output: 'THROUGH' });
      const make = await run('make -j4 --no-print-directory');
      expect(make.exitCode).toBe(0);
      expect(make.output.split('\n').sort()).toEqual(['built a', 'built b', 'built c', 'built d']);
      expect(await run("bash -c 'sleep 1 & wait'")).toEqual({ exitCode: 0, output: '' });
      const gdb = await run('gdb -batch -ex run --args /bin/true');
      expect(gdb.output).toContain('exited normally');
      expect(gdb.exitCode).toBe(0);
    });
  },
);
