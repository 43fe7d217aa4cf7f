import { afterAll, describe, expect, it } from 'vitest';
import { SandboxLauncher } from '../../src/sandbox/launcher.js';
import { BASH, useManagers } from '../helpers/manager.js';
import { NO_SANDBOX, useWorkspace } from './sandbox-helpers.js';
import { titled } from '../helpers/needs.js';
import { NO_NETNS, useNamespaceOrigin } from '../helpers/namespace-origin.js';

// The domain allowlist end to end: network off, except HTTP(S) to the listed names through the server's filtering
// proxy. The upstream is off this machine (the proxy never dials this machine's addresses): a server in a network
// namespace the test makes, allowed by its IP address; `127.0.0.1` is a name not listed.
const SKIP = NO_SANDBOX ?? NO_NETNS;
describe.skipIf(SKIP !== undefined)(titled('network off with a domain allowlist', SKIP), () => {
  const manager = useManagers();
  const ws = useWorkspace();
  const server = useNamespaceOrigin();
  afterAll(() => SandboxLauncher.shared().close());
  const allowing = (tty = false) => ({
    m: manager({ cwd: ws.dir, sandbox: 'workspace-write', allowedDomains: [server.address] }),
    tty,
  });

  it('reaches an allowed address through the proxy, on pipes and in a terminal', async () => {
    for (const tty of [false, true]) {
      const { m } = allowing(tty);
      const r = await m.execCommand({ command: `curl -sS http://${server.address}:${server.port}/`, ...BASH, tty });
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain('hello');
    }
  });

  it('blocks a name not on the list, and the reply says which and why', async () => {
    const { m } = allowing();
    const r = await m.execCommand({ command: `curl -sS -f http://127.0.0.1:${server.port}/`, ...BASH });
    expect(r.exitCode).toBe(22);
    const text = await m.execCommand({ command: `curl -sS http://127.0.0.1:${server.port}/; exit 1`, ...BASH });
    expect(text.output).toContain('unified-exec sandbox: network access to 127.0.0.1 is blocked');
    expect(text.sandboxDenial?.kind).toBe('domain');
    expect(text.warnings.join('\n')).toMatch(/^Sandbox: the domain is not in the allowlist/m);
  });

  it('blocks a tunnel (HTTPS) to a name not on the list, and curl says so', async () => {
    const { m } = allowing();
    const r = await m.execCommand({ command: `curl -sS -p http://127.0.0.1:${server.port}/`, ...BASH });
    expect(r.exitCode).not.toBe(0);
    expect(r.output).toContain('CONNECT tunnel failed, response 403');
    expect(r.sandboxDenial?.kind).toBe('domain');
  });

  it('leaves no way around the proxy: a direct connection still fails', async () => {
    const { m } = allowing();
    const direct = `curl -sS --noproxy '*' http://${server.address}:${server.port}/`;
    const r = await m.execCommand({ command: direct, ...BASH });
    expect(r.exitCode).toBe(7);
    expect(r.sandboxDenial?.kind).toBe('network');
  });

  it('an input-wait in a terminal is not held up by the bridge', async () => {
    const { m } = allowing(true);
    const r = await m.execCommand({ command: 'python3 -q -i', ...BASH, tty: true, yieldTimeMs: 10_000 });
    expect(r.state).toBe('waiting_for_input');
  });
});
