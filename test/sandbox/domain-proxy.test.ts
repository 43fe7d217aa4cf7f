import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { matchesDomain, validateDomainPattern } from '../../src/sandbox/domain-match.js';
import {
  DENIED_HEADER,
  DomainProxy,
  MAX_BLOCKED_KEPT,
  PROXY_UNSET_ENV,
  proxyBridgeArgv,
  proxyEnvironment,
  type BlockedRequest,
  type DomainProxyOptions,
} from '../../src/sandbox/domain-proxy.js';
import { probeSandbox } from '../../src/sandbox/backend-probe.js';
import { delay } from '../../src/util/delay.js';
import { PATIENT, killIfAlive, waitUntilGone } from '../helpers/processes.js';
import { NO_NETNS, useNamespaceOrigin } from '../helpers/namespace-origin.js';
import { titled } from '../helpers/needs.js';

const BLOCKED_127 = 'unified-exec sandbox: network access to 127.0.0.1 is blocked';
/** The proxy's answer to an allowed `host` that resolved to `address`, an address of this machine. */
const THIS_MACHINE_ALLOWED = (host: string, address: string) =>
  `unified-exec sandbox: network access to ${host} is blocked (it resolves to ${address}): addresses of this machine are never reached through the domain allowlist, whatever name is allowed. Ask for escalation to reach a local server.`;
/** Any port: a refused request never reaches it. */
const PORT = 8080;

describe('matchesDomain', () => {
  it('matches a plain entry exactly, in any case, with or without a trailing dot', () => {
    expect(matchesDomain('registry.npmjs.org', ['registry.npmjs.org'])).toBe(true);
    expect(matchesDomain('Registry.NPMJS.org.', ['registry.npmjs.org'])).toBe(true);
    expect(matchesDomain('registry.npmjs.org', ['REGISTRY.npmjs.org.'])).toBe(true);
    expect(matchesDomain('npmjs.org', ['registry.npmjs.org'])).toBe(false);
    expect(matchesDomain('x.registry.npmjs.org', ['registry.npmjs.org'])).toBe(false);
    expect(matchesDomain('registry.npmjs.org.evil.com', ['registry.npmjs.org'])).toBe(false);
  });

  it('matches every subdomain of a wildcard entry but not its apex', () => {
    expect(matchesDomain('api.github.com', ['*.github.com'])).toBe(true);
    expect(matchesDomain('a.b.github.com', ['*.github.com'])).toBe(true);
    expect(matchesDomain('github.com', ['*.github.com'])).toBe(false);
    expect(matchesDomain('evilgithub.com', ['*.github.com'])).toBe(false);
    expect(matchesDomain('github.com.evil.com', ['*.github.com'])).toBe(false);
  });

  it('matches an IP address only when it is listed literally', () => {
    expect(matchesDomain('127.0.0.1', ['localhost'])).toBe(false);
    expect(matchesDomain('127.0.0.1', ['127.0.0.1'])).toBe(true);
    expect(matchesDomain('[::1]', ['::1'])).toBe(true);
    expect(matchesDomain('::1', ['[::1]'])).toBe(true);
    expect(matchesDomain('10.0.0.1', ['*.0.0.1'])).toBe(false);
    // inet_aton forms resolve to addresses without DNS, so no wildcard may cover them either
    expect(matchesDomain('127.1', ['*.1'])).toBe(false);
    expect(matchesDomain('0x7f.1', ['*.1'])).toBe(false);
  });

  it('matches nothing with an empty allowlist or an empty host', () => {
    expect(matchesDomain('localhost', [])).toBe(false);
    expect(matchesDomain('', ['localhost'])).toBe(false);
  });
});

describe('validateDomainPattern', () => {
  it('accepts host names, wildcards and IP addresses', () => {
    for (const ok of [
      'example.com',
      '*.example.com',
      'EXAMPLE.com.',
      'localhost',
      'my_host',
      '10.1.2.3',
      '::1',
      '[::1]',
    ])
      expect(validateDomainPattern(ok), ok).toBeUndefined();
  });

  it.each([
    ['', /empty string/],
    ['   ', /empty string/],
    ['https://example.com', /without a scheme/],
    ['example.com/path', /without a path/],
    ['example.com:443', /without a port/],
    ['exa mple.com', /without spaces/],
    ['*', /bare `\*` would allow every host/],
    ['*example.com', /whole leftmost label/],
    ['a.*.example.com', /whole leftmost label/],
    ['*.*.example.com', /whole leftmost label/],
    ['ex!ample.com', /letters, digits/],
    ['127.1', /whole IP address/],
  ])('rejects %j', (pattern, message) => {
    const problem = validateDomainPattern(pattern);
    expect(problem).toMatch(message);
    if (pattern.trim() !== '') expect(problem).toContain(`got ${JSON.stringify(pattern)}`);
  });
});

describe('proxyBridgeArgv and proxyEnvironment', () => {
  it('bridges the sandbox loopback port to the socket and points both spellings of the variables at it', () => {
    expect(proxyBridgeArgv('/run/p.sock', 3128)).toEqual([
      'socat',
      'TCP-LISTEN:3128,bind=127.0.0.1,reuseaddr,fork',
      'UNIX-CONNECT:/run/p.sock',
    ]);
    const url = 'http://127.0.0.1:3128';
    expect(proxyEnvironment(3128)).toEqual({
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      ALL_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      all_proxy: url,
    });
    expect(PROXY_UNSET_ENV).toEqual(['NO_PROXY', 'no_proxy']);
  });
});

/** A DomainProxy per test on a socket in a fresh private folder; stopped and removed after the test. */
function useProxy(): {
  start(allowedDomains: readonly string[], more?: Partial<DomainProxyOptions>): Promise<DomainProxy>;
  dir(): string;
} {
  let dir = '';
  let proxy: DomainProxy | undefined;
  afterEach(async () => {
    await proxy?.stop();
    proxy = undefined;
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
    dir = '';
  });
  return {
    async start(allowedDomains, more = {}) {
      dir = mkdtempSync(join(tmpdir(), 'unified-exec-proxy-'));
      proxy = await DomainProxy.start({ allowedDomains, socketPath: join(dir, 'proxy.sock'), ...more });
      return proxy;
    },
    dir: () => dir,
  };
}

interface Exchange {
  socket: Socket;
  received: () => string;
  closed: Promise<void>;
}

/** A raw connection to the proxy socket that sends `text` and collects everything that comes back. */
function exchange(socketPath: string, text: string): Exchange {
  const socket = connect(socketPath);
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(text);
  return { socket, received: () => received, closed };
}

/** Sends one request that asks to close afterwards; the whole answer once the proxy has closed the connection. */
async function ask(socketPath: string, requestLine: string, headers = '', body = ''): Promise<string> {
  const raw = exchange(socketPath, `${requestLine}\r\nHost: x\r\n${headers}Connection: close\r\n\r\n${body}`);
  await raw.closed;
  return raw.received();
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('DomainProxy', () => {
  const proxies = useProxy();

  it('answers 403 with the reason to a request for a host not on the list, and records it', async () => {
    const now = 1_700_000_000_000;
    const dir = mkdtempSync(join(tmpdir(), 'unified-exec-proxy-'));
    const proxy = await DomainProxy.start({
      allowedDomains: ['localhost', '*.example.com'],
      socketPath: join(dir, 's'),
      now: () => now,
    });
    const heard: BlockedRequest[] = [];
    const subscription = proxy.onBlocked((blocked) => heard.push(blocked));
    try {
      const answer = await ask(proxy.socketPath, `GET http://127.0.0.1:${PORT}/ HTTP/1.1`);
      expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(answer).toContain(`${DENIED_HEADER}: domain\r\n`);
      const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      expect(body).toBe(
        `${BLOCKED_127} (not in the domain allowlist: localhost, *.example.com). Ask for escalation or add the domain to --allowed-domain.\n`,
      );
      expect(proxy.blocked).toEqual([{ host: '127.0.0.1', port: PORT, at: now }]);
      expect(heard).toEqual(proxy.blocked);
      subscription.dispose();
      await ask(proxy.socketPath, `GET http://127.0.0.1:${PORT}/ HTTP/1.1`);
      expect(heard).toHaveLength(1);
      expect(proxy.blocked).toHaveLength(2);
    } finally {
      await proxy.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps only the last MAX_BLOCKED_KEPT blocked requests', async () => {
    const proxy = await proxies.start([]);
    for (let i = 0; i <= MAX_BLOCKED_KEPT; i++) {
      const answer = await ask(proxy.socketPath, `CONNECT host${i}.test:${1000 + i} HTTP/1.1`);
      expect(answer).toContain('(the domain allowlist is empty)');
    }
    expect(proxy.blocked).toHaveLength(MAX_BLOCKED_KEPT);
    expect(proxy.blocked[0]?.host).toBe('host1.test');
    expect(proxy.blocked.at(-1)).toMatchObject({ host: `host${MAX_BLOCKED_KEPT}.test`, port: 1000 + MAX_BLOCKED_KEPT });
  });

  it('answers 403 to a CONNECT for a host not on the list', async () => {
    const proxy = await proxies.start(['localhost']);
    const answer = await ask(proxy.socketPath, `CONNECT 127.0.0.1:${PORT} HTTP/1.1`);
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(answer).toContain(`${DENIED_HEADER}: domain\r\n`);
    expect(answer).toContain(`\r\n\r\n${BLOCKED_127} (not in the domain allowlist: localhost).`);
  });

  it('answers 400 to a request that is not for a proxy', async () => {
    const proxy = await proxies.start(['localhost']);
    expect(await ask(proxy.socketPath, 'GET / HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await ask(proxy.socketPath, 'CONNECT localhost HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(await ask(proxy.socketPath, 'CONNECT a@localhost:80 HTTP/1.1')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it('listens with mode 0600 and refuses to start with a bad allowlist entry', async () => {
    const proxy = await proxies.start(['localhost']);
    expect(statSync(proxy.socketPath).mode & 0o777).toBe(0o600);
    await expect(
      DomainProxy.start({ allowedDomains: ['https://example.com'], socketPath: join(proxies.dir(), 'bad') }),
    ).rejects.toThrow(/Bad allowed domain: .*without a scheme/);
    expect(existsSync(join(proxies.dir(), 'bad'))).toBe(false);
  });

  it('stop() does not wait for a client that keeps a refused connection half open', async () => {
    const proxy = await proxies.start(['localhost']);
    const socket = connect({ path: proxy.socketPath, allowHalfOpen: true });
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    socket.write(`CONNECT 127.0.0.1:${PORT} HTTP/1.1\r\nHost: x\r\n\r\n`);
    try {
      await vi.waitFor(() => expect(received).toContain('403 Forbidden'), PATIENT);
      await expect(Promise.race([proxy.stop().then(() => 'stopped'), delay(5_000)])).resolves.toBe('stopped');
    } finally {
      socket.destroy();
    }
  });

  it('refuses an allowed name that resolves to this machine, whatever else it resolves to, and records it', async () => {
    const dialled: string[] = [];
    const proxy = await proxies.start(['allowed.test'], {
      resolve: () => Promise.resolve(['192.0.2.7', '::ffff:127.0.0.1']),
      connect: (address) => {
        dialled.push(address);
        return connect(1, '127.0.0.1');
      },
    });
    for (const line of [`CONNECT allowed.test:${PORT} HTTP/1.1`, `GET http://allowed.test:${PORT}/ HTTP/1.1`]) {
      const answer = await ask(proxy.socketPath, line);
      expect(answer, line).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(answer, line).toContain(`${DENIED_HEADER}: domain\r\n`);
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4), line).toBe(
        `${THIS_MACHINE_ALLOWED('allowed.test', '::ffff:127.0.0.1')}\n`,
      );
    }
    expect(dialled).toEqual([]);
    expect(proxy.blocked.map((b) => `${b.host}:${b.port}`)).toEqual([`allowed.test:${PORT}`, `allowed.test:${PORT}`]);
  });

  it('dials the address it checked, and never resolves the name again', async () => {
    const local = createTcpServer((socket) => socket.end('from upstream'));
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    // A resolver that rebinds: a harmless address at the check, this machine's at any later lookup.
    const answers = [['192.0.2.7'], ['127.0.0.1']];
    const dialled: string[] = [];
    const proxy = await proxies.start(['allowed.test'], {
      resolve: () => Promise.resolve(answers.shift() ?? ['127.0.0.1']),
      ownAddresses: () => [],
      connect: (address, port) => {
        dialled.push(`${address}:${port}`);
        return connect((local.address() as AddressInfo).port, '127.0.0.1'); // stands in for 192.0.2.7
      },
    });
    try {
      const answer = await ask(proxy.socketPath, `CONNECT allowed.test:${PORT} HTTP/1.1`);
      expect(answer).toBe('HTTP/1.1 200 Connection Established\r\n\r\nfrom upstream');
      expect(dialled).toEqual([`192.0.2.7:${PORT}`]);
      expect(answers).toEqual([['127.0.0.1']]);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });
});

describe.skipIf(NO_NETNS)(titled('DomainProxy to an upstream off this machine', NO_NETNS), () => {
  const origin = useNamespaceOrigin();
  const proxies = useProxy();

  // Node lists no interface that is up without a carrier (an idle podman bridge, a VPN's tun), and the proxy dialled
  // such an address of this machine as if it were another's: the kernel's choice of the connection's own address,
  // the same as the one dialled, says otherwise. Here the interface list is made to miss the veth's host end.
  it('refuses an address of this machine that the interface list does not show', async () => {
    let received = 0;
    const local = createTcpServer((socket) => socket.on('data', (chunk: Buffer) => (received += chunk.length)));
    await new Promise<void>((resolve) => local.listen(0, origin.hostAddress, resolve));
    const port = (local.address() as AddressInfo).port;
    try {
      const proxy = await proxies.start([origin.hostAddress], { ownAddresses: () => [] });
      const tunnel = await ask(proxy.socketPath, `CONNECT ${origin.hostAddress}:${port} HTTP/1.1`);
      expect(tunnel).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*addresses of this machine are never reached/);
      const plain = await ask(proxy.socketPath, `GET http://${origin.hostAddress}:${port}/ HTTP/1.1`);
      expect(plain).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
      expect(received).toBe(0);
      expect(proxy.blocked.map(({ host }) => host)).toEqual([origin.hostAddress, origin.hostAddress]);
    } finally {
      await new Promise((resolve) => local.close(resolve));
    }
  });

  it('forwards an absolute-URI request to an allowed host and streams the answer back', async () => {
    const proxy = await proxies.start([origin.address]);
    const answer = await ask(proxy.socketPath, `GET http://${origin.address}:${origin.port}/ HTTP/1.1`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith('hello from origin')).toBe(true);
    expect(proxy.blocked).toEqual([]);
  });

  it('drops Proxy-* and hop-by-hop headers and sends the Host of the checked URL', async () => {
    const proxy = await proxies.start([origin.address]);
    const answer = await ask(
      proxy.socketPath,
      `GET http://${origin.address}:${origin.port}/headers HTTP/1.1`,
      'Proxy-Authorization: Basic eDp5\r\nProxy-Connection: keep-alive\r\nX-Drop: 1\r\nConnection: X-Drop\r\nX-Keep: 2\r\n',
    );
    const seen = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Record<string, string>;
    expect(seen.host).toBe(`${origin.address}:${origin.port}`);
    expect(seen['x-keep']).toBe('2');
    for (const name of ['proxy-authorization', 'proxy-connection', 'x-drop']) expect(seen).not.toHaveProperty(name);
  });

  it('streams a request body to the allowed host', async () => {
    const proxy = await proxies.start([origin.address]);
    const body = 'x'.repeat(100_000);
    const answer = await ask(
      proxy.socketPath,
      `POST http://${origin.address}:${origin.port}/echo HTTP/1.1`,
      `Content-Length: ${body.length}\r\n`,
      body,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toContain(`\r\ncontent-length: ${body.length}\r\n`);
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(body);
  });

  it('ends the request to the allowed host when its client goes away', async () => {
    const proxy = await proxies.start([origin.address]);
    const [hanging, abandoned] = [origin.hanging, origin.abandoned];
    const raw = exchange(
      proxy.socketPath,
      `GET http://${origin.address}:${origin.port}/hang HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    await vi.waitFor(() => expect(origin.hanging).toBe(hanging + 1), PATIENT);
    expect(origin.abandoned).toBe(abandoned);
    raw.socket.destroy();
    await vi.waitFor(() => expect(origin.abandoned).toBe(abandoned + 1), PATIENT);
  });

  it('opens a CONNECT tunnel to an allowed host that carries bytes both ways', async () => {
    const proxy = await proxies.start([origin.address]);
    const raw = exchange(
      proxy.socketPath,
      `CONNECT ${origin.address}:${origin.port} HTTP/1.1\r\nHost: ${origin.address}\r\n\r\n`,
    );
    await vi.waitFor(() => expect(raw.received()).toBe('HTTP/1.1 200 Connection Established\r\n\r\n'), PATIENT);
    raw.socket.write(`GET / HTTP/1.1\r\nHost: ${origin.address}\r\nConnection: close\r\n\r\n`);
    await raw.closed;
    expect(raw.received()).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(raw.received().endsWith('hello from origin')).toBe(true);
  });

  it('answers 502 when an allowed host refuses the connection', async () => {
    const proxy = await proxies.start([origin.address]);
    const host = `${origin.address}:1`; // nothing listens on port 1 in the test's namespace
    for (const line of [`CONNECT ${host} HTTP/1.1`, `GET http://${host}/ HTTP/1.1`]) {
      const answer = await ask(proxy.socketPath, line);
      expect(answer, line).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
      expect(answer, line).toContain(`could not connect to ${host} (ECONNREFUSED)`);
    }
  });

  it('stop() ends open tunnels and removes the socket file', async () => {
    const proxy = await proxies.start([origin.address]);
    const raw = exchange(
      proxy.socketPath,
      `CONNECT ${origin.address}:${origin.port} HTTP/1.1\r\nHost: ${origin.address}\r\n\r\n`,
    );
    await vi.waitFor(() => expect(raw.received()).toContain('200 Connection Established'), PATIENT);
    await proxy.stop();
    await raw.closed;
    expect(existsSync(proxy.socketPath)).toBe(false);
    await proxy.stop(); // a second stop is harmless
  });

  it("refuses this machine's addresses even when they are allowed: loopback, unspecified, the host end of the pair", async () => {
    const hosts = ['localhost', '127.0.0.1', '::1', '0.0.0.0', origin.hostAddress];
    const proxy = await proxies.start(hosts);
    for (const host of hosts) {
      const authority = `${host.includes(':') ? `[${host}]` : host}:${PORT}`;
      for (const line of [`CONNECT ${authority} HTTP/1.1`, `GET http://${authority}/ HTTP/1.1`]) {
        const answer = await ask(proxy.socketPath, line);
        expect(answer, line).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
        expect(answer, line).toContain('addresses of this machine are never reached through the domain allowlist');
      }
    }
    expect(proxy.blocked).toHaveLength(2 * hosts.length);
  });
});

/** Why the real-process suites cannot run here, or undefined. */
function missingTools(): string | undefined {
  for (const tool of ['socat', 'curl']) {
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error) return `${tool} is not installed`;
  }
  const probe = probeSandbox();
  return probe.ok ? undefined : probe.reason;
}
const SKIP = missingTools() ?? NO_NETNS;

/** Processes a test started, killed by pid after each test. */
function useProcesses(): (argv: string[], env?: NodeJS.ProcessEnv) => Promise<{ code: number | null; out: string }> {
  const pids = new Set<number>();
  afterEach(async () => {
    for (const pid of pids) killIfAlive(pid);
    for (const pid of pids) await waitUntilGone(pid);
    pids.clear();
  });
  return (argv, env = process.env) => {
    const [file = '', ...args] = argv;
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) pids.add(child.pid);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    return new Promise((resolve) => child.once('close', (code) => resolve({ code, out })));
  };
}

/** The parent environment without any proxy variables of the machine the tests run on. */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));

describe.skipIf(SKIP)(`DomainProxy with real clients${SKIP ? ` (skipped: ${SKIP})` : ''}`, () => {
  const origin = useNamespaceOrigin();
  const proxies = useProxy();
  const run = useProcesses();

  it('curl on the host reaches an allowed host through a socat bridge and is told why another is blocked', async () => {
    const proxy = await proxies.start([origin.address]);
    const port = await closedPort();
    void run(proxyBridgeArgv(proxy.socketPath, port)); // ended by pid after the test
    await vi.waitFor(async () => {
      const probe = connect(port, '127.0.0.1');
      await new Promise<void>((resolve, reject) => probe.once('connect', resolve).once('error', reject));
      probe.destroy();
    }, PATIENT);
    const curl = (...args: string[]) =>
      run(['curl', '-sS', '--max-time', '10', ...args], { ...cleanEnv(), ...proxyEnvironment(port) });
    expect(await curl(`http://${origin.address}:${origin.port}/`)).toEqual({ code: 0, out: 'hello from origin' });
    const blocked = await curl(`http://127.0.0.1:${origin.port}/`);
    expect(blocked.out).toMatch(new RegExp(`^${BLOCKED_127} `));
    // Through a tunnel (as for https://) curl shows only the status line, not the body: the `blocked` list says which.
    const tunnelled = await curl('--proxytunnel', `http://127.0.0.1:${origin.port}/`);
    expect(tunnelled.code).toBe(56);
    expect(tunnelled.out).toContain('CONNECT tunnel failed, response 403');
    expect(proxy.blocked.map((b) => b.host)).toEqual(['127.0.0.1', '127.0.0.1']);
  });

  it('inside bubblewrap with the network off, only allowed hosts are reachable, and only through the proxy', async () => {
    const proxy = await proxies.start([origin.address]);
    const sandboxPort = 3128; // the sandbox's network namespace is empty, so any port is free there
    const bridge = proxyBridgeArgv(proxy.socketPath, sandboxPort).join(' ');
    const script = [
      `${bridge} &`,
      // wait until the bridge listens
      `for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/${sandboxPort}) 2>/dev/null && break; sleep 0.05; done`,
      `curl -sS --max-time 10 http://${origin.address}:${origin.port}/; echo " allowed=$?"`,
      `curl -sS --max-time 10 http://127.0.0.1:${origin.port}/; echo " blocked=$?"`,
      `curl -sS --max-time 10 --noproxy '*' http://127.0.0.1:${origin.port}/; echo " direct=$?"`,
    ].join('\n');
    const env = { ...cleanEnv(), ...proxyEnvironment(sandboxPort) };
    for (const name of PROXY_UNSET_ENV) delete env[name];
    const dir = proxies.dir();
    const result = await run(
      [
        'bwrap',
        ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'],
        ...['--unshare-user', '--unshare-pid', '--unshare-net', '--die-with-parent'],
        ...['--bind', dir, dir, '--', 'bash', '-c', script],
      ],
      env,
    );
    const lines = result.out.split('\n');
    expect(lines, result.out).toContain('hello from origin allowed=0');
    expect(result.out).toMatch(new RegExp(`^${BLOCKED_127} .*\\n blocked=0$`, 'm'));
    expect(result.out).toMatch(/^curl: \(7\) .*\n direct=7$/m);
    expect(result.code).toBe(0);
  });
});
