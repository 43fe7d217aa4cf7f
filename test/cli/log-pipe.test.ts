// A log pipe that closes (`serve 2> >(exec true)`, `serve 2>&1 | head`) must not end the server: writes to it fail
// with EPIPE, which the CLI drops. Each case closes the reading end of the child's pipes itself, then uses the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, ROOT, cleanEnv, isAlive } from '../mcp/cli-process.js';
import { textOf } from '../mcp/client-scenarios.js';

const TOKEN = 'log-pipe-test-token-0123456789';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function start(args: string[], stdin: 'pipe' | 'ignore' = 'ignore'): ChildProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: cleanEnv({ UNIFIED_EXEC_TOKEN: TOKEN }),
    stdio: [stdin, 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Reads stdout up to the line that names the URL. */
function urlOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no URL in 20 s: ${out}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(out);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited(child).then(({ code, signal }) => reject(new Error(`serve exited (${code ?? signal}): ${out}`)));
  });
}

describe('a closed log pipe', () => {
  it.each([
    ['stderr closed at once (serve 2> >(exec true))', false],
    ['stdout and stderr closed after the URL (serve 2>&1 | head -1)', true],
  ])('leaves serve answering: %s', async (_, closeStdout) => {
    const child = start(['serve', '--port', '0', '--host', '127.0.0.1']);
    child.stderr!.destroy();
    const url = await urlOf(child);
    if (closeStdout) child.stdout!.destroy();

    const client = new Client({ name: 'log-pipe', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    // Every client session opened and every call is logged: each of those writes now fails with EPIPE.
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: 'exec_command', arguments: { cmd: `echo still-here-${i}` } });
      expect(textOf(result)).toContain(`still-here-${i}`);
    }
    await client.close();
    expect(isAlive(child.pid!)).toBe(true);

    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('leaves the stdio server answering with its stderr closed', async () => {
    const child = start(['mcp'], 'pipe');
    child.stderr!.destroy();
    const replies = new Map<number, unknown>();
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffered.slice(0, newline)) as { id?: number };
        buffered = buffered.slice(newline + 1);
        if (message.id !== undefined) replies.set(message.id, message);
      }
    });
    const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const reply = async (id: number) => {
      for (let waited = 0; !replies.has(id); waited += 20) {
        if (waited > 20_000 || child.exitCode !== null) throw new Error(`no reply ${id}; exit ${child.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return replies.get(id) as { result: { content: Array<{ text: string }> } };
    };

    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await reply(1);
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'exec_command', arguments: { cmd: 'echo over-stdio' } } });
    expect((await reply(2)).result.content[0]?.text).toContain('over-stdio');

    // Its client hanging up still ends it, cleanly.
    child.stdin!.end();
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it('still ends the stdio server when its stdout (the protocol) is closed: the client went away', async () => {
    const child = start(['mcp'], 'pipe');
    child.stdout!.destroy();
    child.stdin!.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      })}\n`,
    );
    // A server that stays is ended by the test's timeout, and fails it.
    expect(await exited(child)).toEqual({ code: 0, signal: null });
  });

  it("lets run finish with its command's exit code when its stdout is closed (run ... | head -c0)", async () => {
    const child = start([
      'run',
      '--yield-ms',
      '100',
      '--',
      'for i in 1 2 3 4 5; do echo line $i; sleep 0.1; done; exit 3',
    ]);
    child.stdout!.destroy();
    expect(await exited(child)).toEqual({ code: 3, signal: null });
  });
});
