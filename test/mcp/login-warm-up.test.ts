// The login snapshot is taken when the server starts, in the background: the first exec_command, sent while a slow
// profile is still being captured, answers by its yield instead of waiting for the capture; once the snapshot is
// ready the calls load it instead of running the profile again. Through the built CLI, over stdio and HTTP.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { snapshotsContaining, useHomes } from '../helpers/login-profile.js';
import { killLeftoverServes, mcpTransport, startServe, unsandboxed, type ServeProcess } from './cli-process.js';
import { execTextOf } from './client-scenarios.js';
import { TOKEN_ENV, connectHttp } from './http-client.js';

/** What the profile costs: far more than the first call's yield. */
const PROFILE_S = 3;
const YIELD_MS = 300;
/** What a reply may take beyond its yield: the start of the process and the MCP round trip, on a loaded machine. */
const SLACK_MS = 1_200;

const homes = useHomes();
afterAll(() => killLeftoverServes());

/** A profile that costs PROFILE_S, exports a marked variable and counts its runs in ~/profile-runs. */
function slowHome(): { home: string; value: string } {
  const value = `ue-warm-${randomBytes(6).toString('hex')}`;
  const home = homes({
    '.profile': `echo run >> "$HOME/profile-runs"\nsleep ${PROFILE_S}\nexport UE_WARM=${value}\n`,
  });
  return { home, value };
}

function profileRuns(home: string): number {
  const file = join(home, 'profile-runs');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
}

interface Connected {
  client: Client;
  close(): Promise<void>;
}

const transports: Record<string, (home: string) => Promise<Connected>> = {
  'mcp (stdio)': async (home) => {
    const client = new Client({ name: 'warm-up-test', version: '1.0.0' });
    await client.connect(mcpTransport(unsandboxed(['--shell', '/bin/bash']), { env: { HOME: home } }));
    return { client, close: () => client.close() };
  },
  'serve (HTTP)': async (home) => {
    const server: ServeProcess = await startServe(['--shell', '/bin/bash'], { ...TOKEN_ENV, HOME: home });
    const { client } = await connectHttp(server.url);
    return {
      client,
      close: async () => {
        await client.close();
        await server.stop();
      },
    };
  },
};

describe.each(Object.keys(transports))('the login snapshot of %s', (name) => {
  it(`is taken at start: the first exec_command answers by its yield while a ${PROFILE_S} s profile runs, and later ones load the snapshot`, async () => {
    const { home, value } = slowHome();
    const { client, close } = await transports[name]!(home);
    try {
      const show = { cmd: 'echo "[$UE_WARM]"' };
      const sent = performance.now();
      const first = execTextOf(
        await client.callTool({ name: 'exec_command', arguments: { ...show, yield_time_ms: YIELD_MS } }),
      );
      expect(performance.now() - sent).toBeLessThan(YIELD_MS + SLACK_MS);
      // Still in its profile, as a real login shell: it runs on under a session, and a later poll has its output.
      expect(first.sessionId).toBeDefined();
      let output = first.output;
      let last = first;
      while (last.exitCode === undefined) {
        last = execTextOf(
          await client.callTool({
            name: 'write_stdin',
            arguments: { session_id: first.sessionId, yield_time_ms: 5_000 },
          }),
        );
        output += last.output;
      }
      expect({ output, exitCode: last.exitCode }).toEqual({ output: `[${value}]\n`, exitCode: 0 });

      // The capture the server started at its start is written; the profile ran for it and for the first call.
      await vi.waitFor(() => expect(snapshotsContaining(value)).toHaveLength(1), { timeout: 15_000, interval: 50 });
      expect(profileRuns(home)).toBe(2);
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const reply = execTextOf(await client.callTool({ name: 'exec_command', arguments: show }));
        expect(reply).toMatchObject({ output: `[${value}]\n`, exitCode: 0 });
        expect(performance.now() - started).toBeLessThan(PROFILE_S * 1_000);
      }
      expect(profileRuns(home)).toBe(2);
    } finally {
      await close();
    }
  });
});
