import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { probeLandlock, probeSandbox } from '../../src/sandbox/launcher.js';
import type { SandboxBackend, SandboxPolicy } from '../../src/sandbox/policy.js';

/** A workspace-write policy, network off, on workspace `/w` unless `over` says otherwise. */
export function sandboxPolicy(over: Partial<SandboxPolicy> = {}): SandboxPolicy {
  return { mode: 'workspace-write', network: 'off', allowedDomains: [], workspace: '/w', writableRoots: [], ...over };
}

/** Set when bubblewrap cannot run here: sandbox suites skip with this reason. CI installs it (.ci/run). */
export const NO_SANDBOX = (() => {
  const probe = probeSandbox();
  return probe.ok ? undefined : probe.reason;
})();

/** Set when the Landlock backend cannot run here (a kernel without Landlock, the launcher not built). */
export const NO_LANDLOCK = (() => {
  const probe = probeLandlock();
  return probe.ok ? undefined : probe.reason;
})();

/**
 * The backends the sandbox suites run against, each with why it is skipped here. CI has both, so under CI nothing
 * is skipped: a backend that cannot run fails its tests instead.
 */
export const BACKENDS: readonly { backend: SandboxBackend; skip: string | undefined }[] = [
  { backend: 'bwrap', skip: process.env.CI ? undefined : NO_SANDBOX },
  { backend: 'landlock', skip: process.env.CI ? undefined : NO_LANDLOCK },
];

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
