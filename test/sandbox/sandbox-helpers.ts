import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { probeLandlock, probeSandbox } from '../../src/sandbox/backend-probe.js';
import type { SandboxBackend, SandboxPolicy } from '../../src/sandbox/policy.js';

/** A workspace-write policy, network off, on workspace `/w` unless `over` says otherwise. */
export function sandboxPolicy(over: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return { mode: 'workspace-write', network: 'off', allowedDomains: [], workspace: '/w', writableRoots: [], ...over };
}

/**
 * Set when bubblewrap cannot run here: the suites that need it skip, saying why. Never under CI, which installs it
 * (.ci/run): there a bubblewrap that cannot run fails those suites instead.
 */
export const NO_SANDBOX = (() => {
  if (process.env.CI) return undefined;
  const probe = probeSandbox();
  if (probe.ok) return undefined;
  return probe.reason.includes('not installed')
    ? `needs bwrap (apt-get install bubblewrap)`
    : `needs bwrap: ${probe.reason}`;
})();

/** Set when the Landlock backend cannot run here (a kernel without Landlock, the launcher not built); never under CI. */
export const NO_LANDLOCK = (() => {
  if (process.env.CI) return undefined;
  const probe = probeLandlock();
  return probe.ok ? undefined : probe.reason;
})();

/**
 * The backends the sandbox suites run against, each with why it is skipped here. CI has both, so under CI nothing
 * is skipped: a backend that cannot run fails its tests instead.
 */
export const BACKENDS: readonly { backend: SandboxBackend; skip: string | undefined }[] = [
  { backend: 'bwrap', skip: NO_SANDBOX },
  { backend: 'landlock', skip: NO_LANDLOCK },
];

/** What the kernel says to a refused write: a read-only mount under bubblewrap, EACCES under Landlock. */
export const REFUSED: Readonly<Record<SandboxBackend, string>> = {
  bwrap: 'Read-only file system',
  landlock: 'Permission denied',
};

/** A fresh `git init`ed workspace outside /tmp (as SANDBOX.md's matrix uses), removed after the suite. */
export function useWorkspace(): { dir: string } {
  const ws = { dir: '' };
  beforeAll(() => {
    ws.dir = mkdtempSync('/var/tmp/unified-exec-ws-');
    execFileSync('git', ['init', '-q', ws.dir]);
  });
  afterAll(() => rmSync(ws.dir, { recursive: true, force: true }));
  return ws;
}

/** An HTTP server on 127.0.0.1 answering `hello`, for the network probes. */
export function useLoopbackServer(): { port: number } {
  const state = { port: 0 };
  let server: Server;
  beforeAll(async () => {
    server = createServer((_, res) => res.end('hello'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    state.port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return state;
}
