import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolDefinitions } from '../../src/tools/definitions.js';
import type { ExecResult } from '../../src/tools/output-schemas.js';
import {
  identify,
  openFdCount,
  startServer,
  survives,
  textOf,
  timeUntil,
  writeUntil,
  type ProcessIdentity,
  type ServerUnderTest,
} from './harness.js';
import { RawStdioServer, type JsonRpcReply } from './raw-stdio.js';

const WRITE_LIMIT_BYTES = 1024 * 1024;
const FD_SLACK = 3;
const UNKNOWN_ID = 424242;

/** What one call came back with: a tool error, a JSON-RPC error (thrown by the SDK client), or a result. */
interface Outcome {
  kind: 'tool-error' | 'rpc-error' | 'ok';
  text: string;
  structured?: ExecResult;
}

/** A call that must fail with a message matching `says` (it names the field, or the id, or the tool). */
interface ErrorCase {
  tool: string;
  args: unknown;
  says: RegExp;
}

/** A call the contract accepts on purpose (clamped, ignored, decoded with U+FFFD): it must do the documented thing. */
interface HandledCase {
  tool: string;
  args: unknown;
  check: (outcome: Outcome) => void;
}

const field = (name: string) => new RegExp(`\\b${name}\\b`);
const ok = { cmd: 'echo hi', login: false };
const exitsWith = (output: RegExp | string) => (o: Outcome) => {
  expect(o.kind).toBe('ok');
  expect(o.structured).toMatchObject({ exit_code: 0 });
  expect(o.structured!.output).toMatch(output);
};

describe('bad input through the MCP stdio server', () => {
  let server: ServerUnderTest;
  let victim: number; // a tty session opened before the barrage, which must come through untouched
  let victimProcess: ProcessIdentity;
  let pipes: number; // a live tty=false session
  let closed: number; // an id that was live once
  const figures = { sdkCalls: 0, rawLines: 0, toolErrors: 0, rpcErrors: 0, handled: 0, fdsBefore: 0, fdsAfter: 0 };
  const verified = { serving: false, untouched: false, rawServing: false };

  beforeAll(async () => {
    server = await startServer('bad-input');
    victim = (await server.exec({ cmd: 'bash --norc --noprofile -i', tty: true, login: false, yield_time_ms: 5_000 }))
      .session_id!;
    await writeUntil(server, victim, 'export VICTIM=untouched-7; echo set-$VICTIM\n', (out) =>
      out.includes('set-untouched-7'),
    );
    pipes = (await server.exec({ cmd: 'sleep 600', login: false, yield_time_ms: 250 })).session_id!;
    closed = (await server.exec({ cmd: 'sleep 600', login: false, yield_time_ms: 250 })).session_id!;
    await server.call('close_session', { session_id: closed });
    victimProcess = identify((await server.list()).find((s) => s.session_id === victim)!.pid!);
    figures.fdsBefore = openFdCount(server.pid);
  });

  afterAll(async () => {
    await server?.close();
    const total = figures.sdkCalls + figures.rawLines;
    console.log(
      `bad-input: ${total} calls (${figures.sdkCalls} through the SDK client, ${figures.rawLines} raw lines), ` +
        `${figures.toolErrors + figures.rpcErrors} clear errors (${figures.toolErrors} tool errors, ${figures.rpcErrors} JSON-RPC errors), ` +
        `${figures.handled} handled as documented (clamped, ignored, U+FFFD), ` +
        `${verified.serving && verified.rawServing ? 'servers alive' : 'SERVER NOT VERIFIED ALIVE'}, ` +
        `${verified.untouched ? 'other session untouched' : 'OTHER SESSION NOT VERIFIED'}, ` +
        `fds ${figures.fdsBefore} -> ${figures.fdsAfter}`,
    );
  });

  async function outcome(tool: string, args: unknown): Promise<Outcome> {
    figures.sdkCalls++;
    try {
      const result = await server.call(tool, args);
      if (result.isError) return { kind: 'tool-error', text: textOf(result) };
      return { kind: 'ok', text: textOf(result), structured: result.structuredContent as ExecResult };
    } catch (error) {
      if (error instanceof McpError) return { kind: 'rpc-error', text: error.message };
      throw error;
    }
  }

  it('answers every malformed tool call with a clear error, and keeps serving', async () => {
    const cases: ErrorCase[] = [
      // exec_command: every field with the wrong type, and values no shell can take
      { tool: 'exec_command', args: {}, says: field('cmd') },
      { tool: 'exec_command', args: undefined, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: 5 }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: null }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: true }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: ['echo', 'hi'] }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: { line: 'echo hi' } }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: '' }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: '   ' }, says: field('cmd') },
      { tool: 'exec_command', args: { cmd: 'echo a\u0000b', tty: true }, says: /`cmd`.*NUL/ },
      { tool: 'exec_command', args: { cmd: 'echo a\u0000b', tty: false }, says: /`cmd`.*NUL/ },
      { tool: 'exec_command', args: { ...ok, sandbox_permissions: 'root' }, says: field('sandbox_permissions') },
      { tool: 'exec_command', args: { ...ok, sandbox_permissions: true }, says: field('sandbox_permissions') },
      { tool: 'exec_command', args: { ...ok, justification: 42 }, says: field('justification') },
      { tool: 'exec_command', args: { ...ok, executor: 7 }, says: field('executor') },
      { tool: 'exec_command', args: { ...ok, executor: 'mars' }, says: /Unknown executor "mars".*`local`/ },
      { tool: 'exec_command', args: { ...ok, tty: true, cols: 0 }, says: /`cols`: expected a whole number from 1/ },
      { tool: 'exec_command', args: { ...ok, tty: true, rows: 'tall' }, says: field('rows') },
      { tool: 'exec_command', args: { ...ok, screen: 'yes' }, says: field('screen') },
      { tool: 'exec_command', args: { ...ok, rows: 30 }, says: /`rows` needs a terminal: start the session with tty/ },
      { tool: 'exec_command', args: { ...ok, workdir: 5 }, says: field('workdir') },
      { tool: 'exec_command', args: { ...ok, workdir: ['/tmp'] }, says: field('workdir') },
      {
        tool: 'exec_command',
        args: { ...ok, workdir: '/nonexistent/dir' },
        says: /\/nonexistent\/dir does not exist.*`workdir`/,
      },
      { tool: 'exec_command', args: { ...ok, workdir: '/etc/passwd' }, says: /not a directory.*`workdir`/ },
      { tool: 'exec_command', args: { ...ok, shell: 5 }, says: field('shell') },
      { tool: 'exec_command', args: { ...ok, shell: { path: '/bin/bash' } }, says: field('shell') },
      { tool: 'exec_command', args: { ...ok, shell: '' }, says: field('shell') },
      {
        tool: 'exec_command',
        args: { ...ok, shell: '/nonexistent/shell' },
        says: /shell `\/nonexistent\/shell` was not found/,
      },
      {
        tool: 'exec_command',
        args: { ...ok, shell: '/etc' },
        says: /shell `\/etc` was not found or is not executable/,
      },
      { tool: 'exec_command', args: { ...ok, login: 'yes' }, says: field('login') },
      { tool: 'exec_command', args: { ...ok, login: 1 }, says: field('login') },
      { tool: 'exec_command', args: { ...ok, tty: 'true' }, says: field('tty') },
      { tool: 'exec_command', args: { ...ok, tty: [] }, says: field('tty') },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: 'NaN' }, says: field('yield_time_ms') },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: -1 }, says: field('yield_time_ms') },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: '1000' }, says: field('yield_time_ms') },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: { ms: 5 } }, says: field('yield_time_ms') },
      { tool: 'exec_command', args: { ...ok, max_output_tokens: 'NaN' }, says: field('max_output_tokens') },
      { tool: 'exec_command', args: { ...ok, max_output_tokens: -1 }, says: field('max_output_tokens') },
      { tool: 'exec_command', args: { ...ok, max_output_tokens: [100] }, says: field('max_output_tokens') },
      // arguments that are not an object at all: refused by the protocol layer before any tool runs
      { tool: 'exec_command', args: 'echo hi', says: /arguments/ },
      { tool: 'exec_command', args: ['echo hi'], says: /arguments/ },
      { tool: 'exec_command', args: null, says: /arguments/ },
      // write_stdin
      { tool: 'write_stdin', args: {}, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: 'abc' }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: null }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: -1 }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: 0 }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: 1.5 }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: 2 ** 53 }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: 1e308 }, says: field('session_id') },
      { tool: 'write_stdin', args: { session_id: [1] }, says: field('session_id') },
      {
        tool: 'write_stdin',
        args: { session_id: UNKNOWN_ID, chars: 'x' },
        says: /^write_stdin failed: Unknown process id 424242$/,
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => closed, chars: 'x' },
        says: /^write_stdin failed: Unknown process id \d+$/,
      },
      { tool: 'write_stdin', args: { session_id: () => victim, chars: 5 }, says: field('chars') },
      { tool: 'write_stdin', args: { session_id: () => victim, chars: ['ls\n'] }, says: field('chars') },
      { tool: 'write_stdin', args: { session_id: () => victim, chars: { text: 'ls' } }, says: field('chars') },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: 'x'.repeat(WRITE_LIMIT_BYTES + 1) },
        says: /`chars` is 1048577 bytes, over the 1048576-byte limit/,
      },
      // The limit is in UTF-8 bytes: 600000 two-byte characters are 1200000 bytes.
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: 'é'.repeat(600_000) },
        says: /`chars` is 1200000 bytes/,
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => pipes, chars: 'echo hi\n' },
        says: /stdin is closed for this session; rerun exec_command with tty=true/,
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: '', yield_time_ms: 'NaN' },
        says: field('yield_time_ms'),
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: '', yield_time_ms: -5 },
        says: field('yield_time_ms'),
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: '', max_output_tokens: 'lots' },
        says: field('max_output_tokens'),
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: '', max_output_tokens: -1 },
        says: field('max_output_tokens'),
      },
      { tool: 'write_stdin', args: { session_id: () => victim, keys: 'Up' }, says: field('keys') },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, keys: ['Up', 'Hyper'] },
        says: /`keys`: unknown key "Hyper": use one of Up/,
      },
      { tool: 'write_stdin', args: { session_id: () => victim, cols: 1e6 }, says: field('cols') },
      { tool: 'write_stdin', args: { session_id: () => victim, rows: -1 }, says: field('rows') },
      { tool: 'write_stdin', args: { session_id: () => victim, screen: 1 }, says: field('screen') },
      // close_session
      { tool: 'close_session', args: {}, says: field('session_id') },
      { tool: 'close_session', args: { session_id: 'abc' }, says: field('session_id') },
      { tool: 'close_session', args: { session_id: -7 }, says: field('session_id') },
      {
        tool: 'close_session',
        args: { session_id: UNKNOWN_ID },
        says: /^close_session failed: Unknown process id 424242$/,
      },
      {
        tool: 'close_session',
        args: { session_id: () => closed },
        says: /^close_session failed: Unknown process id \d+$/,
      },
      // tools that do not exist
      { tool: 'nope', args: {}, says: /Tool nope not found/ },
      { tool: '', args: {}, says: /Tool\s+not found/ },
      { tool: 'EXEC_COMMAND', args: { cmd: 'echo hi' }, says: /Tool EXEC_COMMAND not found/ },
    ];

    const unclear: string[] = [];
    // `tool.field` for each parameter the server refused by name (`field`, in backticks, as its messages quote it).
    const refusedByName = new Set<string>();
    for (const c of cases) {
      const args = resolveIds(c.args);
      const o = await outcome(c.tool, args);
      if (o.kind === 'ok' || !c.says.test(o.text)) {
        unclear.push(`${c.tool} ${shown(args)} -> ${o.kind}: ${o.text.slice(0, 200)}`);
        continue;
      }
      if (o.kind === 'tool-error') figures.toolErrors++;
      else figures.rpcErrors++;
      for (const name of Object.keys(isRecord(args) ? args : {})) {
        if (o.text.includes(`\`${name}\``)) refusedByName.add(`${c.tool}.${name}`);
      }
    }
    expect(unclear).toEqual([]);
    // Every parameter of every tool (from the schemas the server is built from, so a new parameter counts at once)
    // got at least one bad value that the server refused with an error naming it.
    const parameters = toolDefinitions().flatMap((def) => Object.keys(def.input.shape).map((p) => `${def.name}.${p}`));
    expect(parameters.length).toBeGreaterThan(0);
    expect(parameters.filter((p) => !refusedByName.has(p))).toEqual([]);

    // Accepted on purpose, as the contract says: huge yields are clamped, unknown fields ignored, lone surrogates
    // (JSON can carry them, UTF-8 cannot) become U+FFFD, a null field counts as left out (OpenAI's strict mode
    // makes models send null for optional fields).
    const handled: HandledCase[] = [
      { tool: 'exec_command', args: { ...ok, login: null }, check: exitsWith(/^hi\n$/) },
      {
        tool: 'exec_command',
        args: { ...ok, yield_time_ms: null, max_output_tokens: null },
        check: exitsWith(/^hi\n$/),
      },
      {
        tool: 'write_stdin',
        args: { session_id: () => victim, chars: null },
        check: (o) => expect(o.structured).toMatchObject({ state: 'waiting_for_input' }),
      },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: 1e308 }, check: exitsWith(/^hi\n$/) },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: 2 ** 53 }, check: exitsWith(/^hi\n$/) },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: 0 }, check: exitsWith(/^hi\n$/) },
      { tool: 'exec_command', args: { ...ok, yield_time_ms: 0.5 }, check: exitsWith(/^hi\n$/) },
      { tool: 'exec_command', args: { ...ok, max_output_tokens: 2 ** 53 }, check: exitsWith(/^hi\n$/) },
      { tool: 'exec_command', args: { ...ok, max_output_tokens: 1e308 }, check: exitsWith(/^hi\n$/) },
      {
        tool: 'exec_command',
        args: { ...ok, max_output_tokens: 0 },
        check: exitsWith(/^Warning: truncated output \(original token count: 1\)\n/),
      },
      {
        tool: 'exec_command',
        args: { ...ok, bogus: 1, session_id: 5, chars: 'x', nested: { a: [1] } },
        check: exitsWith(/^hi\n$/),
      },
      { tool: 'exec_command', args: { cmd: 'echo \ud800-lone', login: false }, check: exitsWith(/^\ufffd-lone\n$/) },
      {
        tool: 'exec_command',
        args: { cmd: 'echo \udc00-lone', login: false, tty: true },
        check: exitsWith(/^\ufffd-lone\r\n$/),
      },
      {
        tool: 'list_sessions',
        args: { junk: [1, 2] },
        check: (o) => expect(o.kind).toBe('ok'),
      },
    ];
    for (const h of handled) {
      h.check(await outcome(h.tool, resolveIds(h.args)));
      figures.handled++;
    }
    const typed = await writeUntil(server, victim, 'echo \udc00-typed\n', (out) => out.includes('\ufffd-typed\r\n'));
    expect(typed.output).toContain('\ufffd-typed\r\n');
    figures.sdkCalls++;
    figures.handled++;

    // Still serving, and the session opened before the barrage is as it was.
    expect(await server.exec({ cmd: 'echo ok' })).toMatchObject({ exit_code: 0, output: 'ok\n' });
    verified.serving = true;
    const still = await writeUntil(server, victim, 'echo "still-$VICTIM"\n', (out) =>
      out.includes('still-untouched-7\r\n'),
    );
    expect(still.output).toContain('still-untouched-7\r\n');
    expect(survives(victimProcess)).toBe(true);
    // Nothing half-made stayed behind: exactly the two sessions that were open before.
    const listed = await server.list();
    expect(listed.map((s) => s.session_id).sort()).toEqual([victim, pipes].sort());
    expect(listed.find((s) => s.session_id === victim)?.pid).toBe(victimProcess.pid);
    verified.untouched = true;
    await timeUntil(() => openFdCount(server.pid) <= figures.fdsBefore + FD_SLACK, 5_000).catch(() => undefined);
    figures.fdsAfter = openFdCount(server.pid);
    expect(figures.fdsAfter).toBeLessThanOrEqual(figures.fdsBefore + FD_SLACK);
  }, 120_000);

  it('answers raw protocol garbage on stdin with JSON-RPC errors, and keeps serving', async () => {
    const raw = new RawStdioServer(['--structured-output']);
    try {
      await raw.initialize();
      const expectError = async (line: string | Buffer, code: number, says: RegExp, id?: number) => {
        figures.rawLines++;
        const reply = await raw.exchange(line);
        expect({ id: reply.id, code: reply.error?.code }).toEqual({ id, code });
        expect(reply.error!.message).toMatch(says);
        figures.rpcErrors++;
      };
      await expectError('{not json}', -32700, /Parse error/);
      await expectError('{"jsonrpc":"2.0","id":12,"method":"tools/ca', -32700, /Parse error/);
      await expectError(Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x67, 0x61, 0x72, 0x62]), -32700, /Parse error/);
      await expectError('{"hello":"world"}', -32600, /Invalid Request.*"jsonrpc":"2.0"/);
      await expectError('42', -32600, /Invalid Request/);
      await expectError('"just a string"', -32600, /Invalid Request/);
      await expectError('[]', -32600, /Invalid Request/);
      await expectError('[{"jsonrpc":"2.0","id":3,"method":"ping"}]', -32600, /Invalid Request/);
      await expectError('{"jsonrpc":"1.0","id":6,"method":"tools/list"}', -32600, /Invalid Request/, 6);
      await expectError('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, /Invalid Request/);
      await expectError('{"jsonrpc":"2.0","id":7,"method":42}', -32600, /Invalid Request/, 7);
      await expectError('{"jsonrpc":"2.0","id":8,"method":"bogus/method"}', -32601, /Method not found/, 8);
      // Valid JSON-RPC that tools/call cannot use: the SDK answers these itself (Invalid params, naming the field).
      await expectError('{"jsonrpc":"2.0","id":9,"method":"tools/call"}', -32602, /"params"/, 9);
      await expectError('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}}', -32602, /"name"/, 10);
      await expectError(
        '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"exec_command","arguments":"echo hi"}}',
        -32602,
        /"arguments"/,
        11,
      );
      // Over the 10 MiB message limit: dropped with an error, where the SDK alone would hang up and end every session.
      const huge = JSON.stringify({
        jsonrpc: '2.0',
        id: 13,
        method: 'tools/call',
        params: { name: 'exec_command', arguments: { cmd: `echo ${'x'.repeat(11 * 1024 * 1024)}` } },
      });
      await expectError(huge, -32600, /Message dropped: longer than 10485760 bytes/, 13);

      // A tool call with no arguments gets a tool error naming the field.
      figures.rawLines++;
      const missing = await raw.request(14, 'tools/call', { name: 'exec_command' });
      expect(missing.result?.isError).toBe(true);
      expect(missing.result?.content?.[0]?.text).toMatch(field('cmd'));
      figures.toolErrors++;

      // Invalid UTF-8 inside strings is decoded to U+FFFD, in a command and in typed characters.
      const invalidUtf8 = (prefix: string, suffix: string) =>
        Buffer.concat([Buffer.from(prefix), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(suffix)]);
      figures.rawLines++;
      const ran = await raw.exchange(
        invalidUtf8(
          '{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"exec_command","arguments":{"login":false,"cmd":"echo a',
          'b"}}}',
        ),
      );
      expect(ran.result?.structuredContent).toMatchObject({ exit_code: 0, output: 'a\ufffd\ufffd\ufffdb\n' });
      figures.handled++;
      const shell = await raw.request(16, 'tools/call', {
        name: 'exec_command',
        arguments: { cmd: 'bash --norc --noprofile -i', tty: true, login: false, yield_time_ms: 5_000 },
      });
      const sessionId = shell.result?.structuredContent?.session_id as number;
      expect(sessionId).toBeTypeOf('number');
      figures.rawLines++;
      const typed = await raw.exchange(
        invalidUtf8(
          `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"write_stdin","arguments":{"session_id":${sessionId},"yield_time_ms":5000,"chars":"echo c`,
          'd\\n"}}}',
        ),
      );
      expect(String(typed.result?.structuredContent?.output)).toContain('c\ufffd\ufffd\ufffdd\r\n');
      figures.handled++;

      // Still serving.
      const echo: JsonRpcReply = await raw.request(18, 'tools/call', {
        name: 'exec_command',
        arguments: { cmd: 'echo ok', login: false },
      });
      expect(echo.result?.structuredContent).toMatchObject({ exit_code: 0, output: 'ok\n' });
      expect(raw.stderr()).not.toMatch(/Error|at .*\.js:\d+/);
      verified.rawServing = true;
    } finally {
      expect(await raw.close()).toBe(0);
    }
  }, 120_000);

  function isRecord(value: unknown): value is Record<string, unknown> {
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  }

  /** `() => id` placeholders become the ids known once the sessions exist. */
  function resolveIds(args: unknown): unknown {
    if (!isRecord(args)) return args;
    return Object.fromEntries(
      Object.entries(args).map(([k, v]) => [k, typeof v === 'function' ? (v as () => number)() : v]),
    );
  }

  function shown(args: unknown): string {
    const text = JSON.stringify(args) ?? 'undefined';
    return text.length > 80 ? `${text.slice(0, 80)}…` : text;
  }
});
