// An HTTP server off this machine, as the domain allowlist proxy sees it: in a network namespace the test makes,
// reached over a veth pair from a private test range (10.231.x.y/30). The proxy never dials an address of this
// machine, so the allowlist's upstreams live here; the host end of the pair is this machine's and is refused.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { killIfAlive, waitUntilGone } from './processes.js';

/**
 * Why `ip netns` cannot run here (needs root and iproute2), or undefined. Never under CI, which has both: there a
 * namespace that cannot be made fails the suite instead.
 */
export const NO_NETNS = (() => {
  if (process.env.CI) return undefined;
  if (process.getuid?.() !== 0) return 'needs root for ip netns';
  return spawnSync('ip', ['netns', 'list'], { stdio: 'ignore' }).status === 0
    ? undefined
    : 'needs ip netns (apt-get install iproute2)';
})();

export interface NamespaceOrigin {
  /** The server's address, in the namespace: an IP literal to put on the allowlist. */
  address: string;
  /** The host end of the veth pair: an address of this machine. */
  hostAddress: string;
  port: number;
  /** Requests for `/hang` that came, and those whose client went away. */
  hanging: number;
  abandoned: number;
}

/**
 * The server: `/headers` answers the request headers as JSON, `/echo` the request body, `/hang` never answers
 * (printing `hang`, and `abandoned` when its client goes away); anything else `hello from origin`.
 */
const SERVER = `
const server = require('node:http').createServer(async (req, res) => {
  if (req.url === '/hang') { console.log('hang'); return void res.once('close', () => console.log('abandoned')); }
  if (req.url === '/echo') { const chunks = []; for await (const c of req) chunks.push(c); return void res.end(Buffer.concat(chunks)); }
  res.end(req.url === '/headers' ? JSON.stringify(req.headers) : 'hello from origin');
});
server.listen(0, process.argv[1], () => console.log('listening ' + server.address().port));
`;

let made = 0;

/** A /30 of 10.231.0.0/16 none of this machine's interfaces uses, picked from the pid (workers run side by side). */
function freeSubnet(): [number, number] {
  const used = new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((i) => i?.address),
  );
  for (let n = (process.pid * 8 + made) % 16384, tries = 0; tries < 16384; n = (n + 1) % 16384, tries++) {
    const [a, b] = [n >> 6, (n & 63) << 2];
    if (![1, 2].some((host) => used.has(`10.231.${a}.${b + host}`))) return [a, b];
  }
  throw new Error('no free /30 in 10.231.0.0/16');
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** The server in a fresh namespace for the suite; the server (by pid), the namespace and the veth pair go after. */
export function useNamespaceOrigin(): NamespaceOrigin {
  const state: NamespaceOrigin = { address: '', hostAddress: '', port: 0, hanging: 0, abandoned: 0 };
  const id = `${process.pid}x${made++}`;
  const [netns, hostEnd] = [`ue-test-${id}`, `ueh${id}`];
  let pid: number | undefined;
  beforeAll(async () => {
    const [a, b] = freeSubnet();
    state.hostAddress = `10.231.${a}.${b + 1}`;
    state.address = `10.231.${a}.${b + 2}`;
    ip('netns', 'add', netns);
    ip('link', 'add', hostEnd, 'type', 'veth', 'peer', 'name', 'v0', 'netns', netns);
    ip('addr', 'add', `${state.hostAddress}/30`, 'dev', hostEnd);
    ip('link', 'set', hostEnd, 'up');
    ip('-n', netns, 'addr', 'add', `${state.address}/30`, 'dev', 'v0');
    ip('-n', netns, 'link', 'set', 'v0', 'up');
    ip('-n', netns, 'link', 'set', 'lo', 'up');
    // `ip netns exec` execs the server: the pid is the server's.
    const child = spawn('ip', ['netns', 'exec', netns, process.execPath, '-e', SERVER, state.address], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    pid = child.pid;
    let out = '';
    state.port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        for (const line of out.split('\n').slice(0, -1)) {
          if (line.startsWith('listening ')) resolve(Number(line.slice('listening '.length)));
        }
        state.hanging = out.split('\n').filter((line) => line === 'hang').length;
        state.abandoned = out.split('\n').filter((line) => line === 'abandoned').length;
      });
      child.once('exit', (code) => reject(new Error(`the namespace's server exited (${code}): ${out}`)));
    });
  }, 30_000);
  afterAll(async () => {
    if (pid !== undefined) {
      killIfAlive(pid);
      await waitUntilGone(pid);
    }
    // Removing the namespace removes its end of the pair, and with it the host's.
    spawnSync('ip', ['netns', 'del', netns], { stdio: 'ignore' });
    spawnSync('ip', ['link', 'del', hostEnd], { stdio: 'ignore' });
  });
  return state;
}
