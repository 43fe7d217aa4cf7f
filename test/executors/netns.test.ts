// More than one machine, made on this one: two network namespaces, each reached over its own veth pair with
// addresses private to this test, each running our exec-server; one manager runs sessions on both. Cutting one
// link (down, then up) must not lose a byte of a session's output, nor disturb the other.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteExecutor } from '../../src/executors/remote.js';
import { BUILT_CLI } from '../codex/our-exec-server.js';
import { useManagers } from '../helpers/manager.js';

const BASH = { shell: '/bin/bash', login: false } as const;

function ip(...args: string[]): void {
  const result = spawnSync('ip', args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`ip ${args.join(' ')}: ${result.stderr || result.error?.message}`);
}

/** Why network namespaces cannot be made here, or undefined. */
function netnsProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'needs root to make network namespaces';
  if (spawnSync('ip', ['-V']).status !== 0) return 'needs iproute2 (`ip`)';
  const probe = `ue-probe-${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `cannot make a network namespace: ${made.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}

/** One "machine": a namespace, a veth pair to it, and our exec-server listening on its address. */
interface Host {
  ns: string;
  /** The host side of the veth pair: set down and up to cut the link. */
  link: string;
  address: string;
  url: string;
  serverPid: number;
}

const problem = netnsProblem();
// A /30 per namespace inside 10.213.0.0/16, picked per run so two runs at once do not meet.
const subnet = Math.floor(Math.random() * 250);

async function startHost(name: 'a' | 'b', index: number, tokenFile: string): Promise<Host> {
  const ns = `ue-${process.pid}-${name}`;
  const link = `uev${process.pid % 100000}${name}`;
  const peer = `uen${process.pid % 100000}${name}`;
  const base = index * 4;
  const hostAddress = `10.213.${subnet}.${base + 1}`;
  const address = `10.213.${subnet}.${base + 2}`;
  ip('netns', 'add', ns);
  ip('link', 'add', link, 'type', 'veth', 'peer', 'name', peer);
  ip('link', 'set', peer, 'netns', ns);
  ip('addr', 'add', `${hostAddress}/30`, 'dev', link);
  ip('link', 'set', link, 'up');
  ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${address}/30`, 'dev', peer);
  ip('netns', 'exec', ns, 'ip', 'link', 'set', peer, 'up');
  ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      ns,
      process.execPath,
      BUILT_CLI,
      'exec-server',
      '--listen',
      `ws://${address}:0`,
      '--token-file',
      tokenFile,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`exec-server in ${ns} printed no URL; stderr: ${stderr}`)), 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.once('exit', (code) => reject(new Error(`exec-server in ${ns} exited (${code}); stderr: ${stderr}`)));
  });
  child.stdout.resume();
  return { ns, link, address, url, serverPid: child.pid! };
}

async function stopHost(host: Host | undefined): Promise<void> {
  if (!host) return;
  try {
    process.kill(-host.serverPid, 'SIGTERM');
  } catch {
    // already gone
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  spawnSync('ip', ['netns', 'del', host.ns]); // takes the veth pair with it
}

describe.skipIf(problem !== undefined)(
  `sessions on two exec-servers in two network namespaces${problem ? ` (skipped: ${problem})` : ''}`,
  { timeout: 60_000 },
  () => {
    const hosts: Host[] = [];
    let dir: string;
    let token: string;
    const manager = useManagers();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'ue-netns-'));
      token = randomBytes(32).toString('base64');
      writeFileSync(join(dir, 'token'), token, { mode: 0o600 });
      hosts.push(await startHost('a', 0, join(dir, 'token')));
      hosts.push(await startHost('b', 1, join(dir, 'token')));
    }, 40_000);

    afterAll(async () => {
      for (const host of hosts) await stopHost(host);
      rmSync(dir, { recursive: true, force: true });
    });

    const twoHosts = () => {
      const executors = Object.fromEntries(
        hosts.map((host) => [
          host.ns.endsWith('-a') ? 'a' : 'b',
          new RemoteExecutor({ url: host.url, token, pingIntervalMs: 250, giveUpAfterMs: 30_000 }),
        ]),
      );
      const m = manager({ executors, sandbox: 'danger-full-access' });
      return { m, executors, close: () => Promise.all(Object.values(executors).map((e) => e.close())) };
    };

    it('runs sessions on both, each in its own namespace', async () => {
      const { m, close } = twoHosts();
      try {
        const [a, b] = hosts;
        const onA = await m.execCommand({ command: 'ip -4 -o addr show', ...BASH, executor: 'a' });
        const onB = await m.execCommand({ command: 'ip -4 -o addr show', ...BASH, executor: 'b' });
        expect(onA.output).toContain(a!.address);
        expect(onA.output).not.toContain(b!.address);
        expect(onB.output).toContain(b!.address);
        // Sixteen live sessions spread over the two.
        const live = await Promise.all(
          Array.from({ length: 16 }, (_, i) =>
            m.execCommand({
              command: `echo s${i}; sleep 30`,
              ...BASH,
              executor: i % 2 ? 'a' : 'b',
              yieldTimeMs: 1_000,
            }),
          ),
        );
        expect(live.every((r, i) => r.sessionId !== undefined && r.output.includes(`s${i}`))).toBe(true);
        const listed = m.listSessions();
        expect(listed.filter((s) => s.executor === 'a')).toHaveLength(8);
        expect(listed.filter((s) => s.executor === 'b')).toHaveLength(8);
        expect(new Set(listed.map((s) => s.location))).toEqual(new Set([a!.url, b!.url]));
      } finally {
        await close();
      }
    });

    it('a session survives its link going down and up without losing output; the other host is untouched', async () => {
      const { m, executors, close } = twoHosts();
      const [a] = hosts;
      try {
        const ticks = 'for i in $(seq 1 80); do echo tick-$i; sleep 0.05; done';
        const onA = await m.execCommand({ command: ticks, ...BASH, executor: 'a', yieldTimeMs: 500 });
        const onB = await m.execCommand({ command: ticks, ...BASH, executor: 'b', yieldTimeMs: 500 });
        expect(onA.sessionId && onB.sessionId).toBeDefined();
        ip('link', 'set', a!.link, 'down');
        // Long enough for the client to notice (missed pings) and to fail reconnecting at least once.
        await new Promise((resolve) => setTimeout(resolve, 2_000));
        ip('link', 'set', a!.link, 'up');
        const collect = async (first: string, sessionId: number) => {
          let output = first;
          for (let i = 0; i < 30; i++) {
            const polled = await m.writeStdin({ sessionId, yieldTimeMs: 5_000 });
            output += polled.output;
            if (polled.state === 'exited') return { output, exitCode: polled.exitCode };
          }
          return { output, exitCode: undefined };
        };
        const [doneA, doneB] = await Promise.all([
          collect(onA.output, onA.sessionId!),
          collect(onB.output, onB.sessionId!),
        ]);
        const expected = Array.from({ length: 80 }, (_, i) => `tick-${i + 1}`);
        for (const done of [doneA, doneB]) {
          expect(done.exitCode).toBe(0);
          expect(done.output.split('\n').filter((line) => line.startsWith('tick-'))).toEqual(expected);
        }
        // The cut was real: the client noticed, and came back on a new connection to the same exec-server session.
        expect(executors.a!.reconnections).toBeGreaterThanOrEqual(1);
        expect(executors.b!.reconnections).toBe(0);
      } finally {
        await close();
      }
    });
  },
);
