// The real server as an attacker meets it: `unified-exec mcp` over stdio with the MCP SDK client, run as root or as
// nobody, and folders of either user's own. Shared by the attack suites (escapes, landlock).
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, cleanEnv } from '../mcp/cli-process.js';
import { NOBODY, nodeAsNobody } from '../helpers/nobody.js';
import { textOf } from '../reliability/harness.js';

export type ServerUser = 'root' | 'nobody';

export interface Server {
  /**
   * exec_command; the reply's text. Without a `yield_time_ms` in `extra`, it waits for the command to exit however
   * long a loaded machine makes it take (up to a minute), and returns every reply's text.
   */
  call(cmd: string, extra?: Record<string, unknown>): Promise<string>;
  /** write_stdin into a session; the reply's text. */
  write(sessionId: number, chars: string): Promise<string>;
  /** close_session on a session; the reply's text. */
  closeSession(sessionId: number): Promise<string>;
  /** The server's process id. */
  pid: number;
  close(): Promise<void>;
  /** What the server wrote to stderr so far (its start line among it). */
  stderr(): string;
}

/**
 * `unified-exec mcp` with its defaults (workspace-write, network off, on-request) in `cwd`, run as `user`. `mounts`:
 * shell commands run as root just before, in a mount namespace of the server's own (a folder of the test's over /tmp,
 * a device node of the test's over /dev/null), so that the machine's own stay untouched.
 */
export async function startMcp(
  user: ServerUser,
  cwd: string,
  args: string[] = [],
  env: Record<string, string> = {},
  mounts?: string,
) {
  const serverCommand =
    user === 'root'
      ? { command: process.execPath, args: [CLI, 'mcp', ...args] }
      : nodeAsNobody('dist/cli/index.js', ['mcp', ...args]);
  const command =
    mounts === undefined
      ? serverCommand
      : {
          command: 'unshare',
          args: [
            '-m',
            '--propagation',
            'private',
            'sh',
            '-c',
            `set -e\n${mounts}\nexec "$@"`,
            'mounts',
            serverCommand.command,
            ...serverCommand.args,
          ],
        };
  const transport = new StdioClientTransport({
    ...command,
    cwd,
    env: cleanEnv(user === 'nobody' ? { HOME: '/nonexistent', ...env } : env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'escapes', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the server did not start: ${String(error)}\n${stderr}`);
  }
  const write = async (sessionId: number, chars: string, yieldMs: number) =>
    textOf(
      await client.callTool({
        name: 'write_stdin',
        arguments: { session_id: sessionId, chars, yield_time_ms: yieldMs },
      }),
    );
  const server: Server = {
    stderr: () => stderr,
    call: async (cmd, extra = {}) => {
      const until = Date.now() + 60_000;
      let text = textOf(
        await client.callTool({ name: 'exec_command', arguments: { cmd, login: false, ...extra } }, undefined, {
          timeout: 60_000,
        }),
      );
      if ('yield_time_ms' in extra) return text;
      for (let last = text; Date.now() < until;) {
        const running = /Process running with session ID (\d+)/.exec(last);
        if (running === null) break;
        last = await write(Number(running[1]), '', 10_000);
        text += `\n${last}`;
      }
      return text;
    },
    write: (sessionId, chars) => write(sessionId, chars, 2000),
    closeSession: async (sessionId) =>
      textOf(await client.callTool({ name: 'close_session', arguments: { session_id: sessionId } })),
    pid: transport.pid ?? -1,
    close: () => client.close(),
  };
  return server;
}

/** A folder of `user`'s own made by the test (root's, or handed to nobody). */
export function folderOf(user: ServerUser, path: string): string {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (user === 'nobody') execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, path]);
  return path;
}
