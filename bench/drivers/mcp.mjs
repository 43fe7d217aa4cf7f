/**
 * unified-exec served over MCP on stdio, as an agent's MCP client reaches it: the built CLI
 * (`node dist/cli/index.js mcp --structured-output --sandbox danger-full-access`, unsandboxed like the in-process rows
 * beside it) started by the MCP SDK's own client (`StdioClientTransport`), the tools called with `Client.callTool`
 * after `tools/list`. With --structured-output the replies carry `wall_time_seconds` and `state` as fields, and the
 * client checks every result against the tool's outputSchema: the dearest form of a reply.
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { fileURLToPath } from 'node:url';
import { makeWorkspace, trackStop } from '../lib/cleanup.mjs';
import { profileHome } from '../lib/login-profile.mjs';
import { BASH, REPLS } from '../lib/workloads.mjs';

/** The built CLI; UE_BENCH_MCP_CLI names another build's, to compare two by hand (worker.mjs, one row each). */
const CLI = process.env.UE_BENCH_MCP_CLI ?? fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url));
/** Lines of the server's stderr kept to explain a failure. */
const STDERR_LINES = 20;

/** A line of output that is exactly `reply` (not the echoed input that contains it), as in drivers/unified.mjs. */
const replyLine = (reply) => new RegExp(`(^|\\n)${reply}\\r?\\n`);

/**
 * The stdio server and a connected SDK client; the client's close (end of stdin, then SIGTERM after 2 s) runs at
 * cleanup. The worker's environment goes to the server, so the run's marker finds anything it leaves behind.
 */
async function startServer(server = 'unified') {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args:
      server === 'minimal' ? STARTED.minimal : [CLI, 'mcp', '--structured-output', '--sandbox', 'danger-full-access'],
    env: { ...process.env },
    stderr: 'pipe',
  });
  const stderr = [];
  transport.stderr?.on('data', (chunk) => stderr.push(...chunk.toString().split('\n').filter(Boolean)));
  const client = new Client({ name: 'unified-exec-bench', version: '1.0.0' });
  trackStop(() => client.close());
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(`mcp: the server did not start: ${err.message}\n${stderr.slice(-STDERR_LINES).join('\n')}`);
  }
  return client;
}

/** A tool call's structured result; a tool error (isError) is thrown with its text. */
async function call(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`mcp: ${name} failed: ${result.content?.[0]?.text}`);
  return result.structuredContent;
}

/**
 * `write_stdin` of the REPL's input, timed in the client from callTool to its result, `iterations` times after
 * `warmup`. Each sample is split by the reply's own `wall_time_seconds` (the manager's time for the call, from its
 * start to its answer): `inManager`, and the rest, `outside` (both processes' JSON-RPC, validation, formatting and
 * the two pipe hops).
 */
export async function roundTrip({ repl: name, iterations, warmup, server }) {
  const repl = REPLS[name];
  if (server === 'minimal') return floorRoundTrip({ repl, iterations, warmup });
  const client = await startServer();
  await client.listTools();
  const opened = await call(client, 'exec_command', {
    cmd: repl.cmd,
    shell: BASH.shell,
    login: BASH.login,
    tty: true,
    yield_time_ms: 10_000,
  });
  if (opened.session_id === undefined) throw new Error(`mcp: ${repl.cmd} exited: ${JSON.stringify(opened)}`);
  const samples = [];
  const inManager = [];
  const outside = [];
  let wrong = 0;
  let notWaiting = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    const res = await call(client, 'write_stdin', {
      session_id: opened.session_id,
      chars: `${repl.input}\r`,
      yield_time_ms: 10_000,
    });
    const ms = performance.now() - t0;
    if (i >= warmup) {
      samples.push(ms);
      inManager.push(res.wall_time_seconds * 1000);
      outside.push(ms - res.wall_time_seconds * 1000);
    }
    if (!replyLine(repl.reply).test(res.output)) wrong++;
    if (res.state !== 'waiting_for_input') notWaiting++;
  }
  await call(client, 'close_session', { session_id: opened.session_id });
  return { samples, inManager, outside, wrong, notWaiting };
}

/**
 * Figure 12's floor: the same client calling the minimal SDK server's `reply` tool, which answers at once with a
 * reply of write_stdin's shape (lib/minimal-mcp-server.mjs), timed as roundTrip times ours.
 */
async function floorRoundTrip({ repl, iterations, warmup }) {
  const client = await startServer('minimal');
  await client.listTools();
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < warmup + iterations; i++) {
    const t0 = performance.now();
    const res = await call(client, 'reply', { session_id: 12345, chars: `${repl.input}\r`, yield_time_ms: 10_000 });
    if (i >= warmup) samples.push(performance.now() - t0);
    if (res.state !== 'waiting_for_input') wrong++;
  }
  return { samples, wrong, notWaiting: 0 };
}

/** The servers figure 19 starts: ours as a client starts it (the default sandbox), and the SDK's floor. */
const STARTED = {
  unified: [CLI, 'mcp'],
  minimal: [fileURLToPath(new URL('../lib/minimal-mcp-server.mjs', import.meta.url))],
};

/**
 * Start-up as a client sees it: from spawning the server to the answer to `initialize`, and to the answer to
 * `tools/list` sent right after it (with `notifications/initialized`), in raw JSON-RPC lines on stdio; `iterations`
 * servers one after another, each ended (end of stdin) before the next.
 */
export async function startup({ server, iterations }) {
  const initialize = [];
  const toolsList = [];
  for (let i = 0; i < iterations; i++) {
    const times = await startOnce(STARTED[server]);
    initialize.push(times.initialize);
    toolsList.push(times.toolsList);
  }
  return { samples: initialize, toolsList };
}

/**
 * A server spawned with `args` (`options`: spawn's), spoken to in raw JSON-RPC lines on stdio: `onMessage(message,
 * send)` gets each message it answers; `initialize` is sent at once. Resolves with `done()`'s value once the server
 * has exited, if `done()` says it answered all that was asked (not undefined), else rejects with its stderr's end.
 */
function lineServer(name, args, options, onMessage, done) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env },
      ...options,
    });
    trackStop(() => child.kill('SIGKILL'));
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    let stderr = '';
    let buffered = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        onMessage(message, send, () => child.stdin.end());
      }
    });
    child.on('error', reject);
    child.once('close', (code) => {
      const result = done();
      if (result === undefined)
        reject(new Error(`${name}: the server exited (${code}) before answering: ${stderr.slice(-500)}`));
      else resolve(result);
    });
    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    });
  });
}

function startOnce(args) {
  const t0 = performance.now();
  const times = {};
  return lineServer(
    'startup',
    args,
    {},
    ({ id }, send, end) => {
      if (id === 1) {
        times.initialize = performance.now() - t0;
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
      } else if (id === 2) {
        times.toolsList = performance.now() - t0;
        end();
      }
    },
    () => (times.toolsList === undefined ? undefined : times),
  );
}

/** What a Codex-format reply says of its command: exited with 0, and printed `hello`. */
const exitedWithHello = (text) => /^Process exited with code 0$/m.test(text) && /^hello$/m.test(text);

/**
 * Figure 22, a cold start as a client meets it: a fresh `unified-exec mcp` with the default settings (sandboxed, the
 * snapshot taken at start), HOME a profile that costs CPU (`profile`, see lib/login-profile.mjs); `initialize`,
 * `notifications/initialized` and `tools/list` sent as a client sends them, then at once a login `exec_command` of
 * `echo hello` with `yieldMs`, and a second when the first has answered. Each call is timed from its send to its
 * answer, in raw JSON-RPC lines; `wrong` counts the calls that did not answer exited with `hello`. `iterations`
 * servers one after another, each right after Codex's rule alone with the same HOME (`codexBefore`, its ms), so a
 * first call that missed can be set beside what the profile cost just then (`firstExited`).
 * `rule: 'login-shell'`: Codex's rule alone instead (loginShell).
 */
export async function coldStart({ profile, yieldMs, iterations, rule }) {
  if (rule === 'login-shell') return loginShell({ profile, iterations });
  const { home } = profileHome(profile);
  const first = [];
  const second = [];
  const codexBefore = [];
  const firstExited = [];
  let wrong = 0;
  for (let i = 0; i < iterations; i++) {
    codexBefore.push((await loginShellOnce(home)).ms);
    const calls = await coldServer(home, yieldMs);
    first.push(calls[0].ms);
    second.push(calls[1].ms);
    firstExited.push(exitedWithHello(calls[0].text));
    wrong += calls.filter((c) => !exitedWithHello(c.text)).length;
  }
  return { samples: first, second, wrong, codexBefore, firstExited };
}

function coldServer(home, yieldMs) {
  const calls = [];
  let sent = 0;
  const exec = (send, id) => {
    sent = performance.now();
    send({
      id,
      method: 'tools/call',
      params: { name: 'exec_command', arguments: { cmd: 'echo hello', yield_time_ms: yieldMs } },
    });
  };
  return lineServer(
    'coldStart',
    [CLI, 'mcp'],
    { cwd: makeWorkspace(), env: { ...process.env, HOME: home } },
    (message, send, end) => {
      if (message.id === 1) {
        send({ method: 'notifications/initialized' });
        send({ id: 2, method: 'tools/list' });
        exec(send, 3);
      } else if (message.id === 3 || message.id === 4) {
        calls.push({
          ms: performance.now() - sent,
          text: message.result?.content?.[0]?.text ?? JSON.stringify(message),
        });
        if (message.id === 3) exec(send, 4);
        else end();
      }
    },
    () => (calls.length < 2 ? undefined : calls),
  );
}

/**
 * Codex's rule beside figure 22: each call a real login shell (`bash -lc 'echo hello'`, as Codex runs a command), the
 * same HOME, spawn → exit alone; Codex answers it at its exit when that comes within the yield.
 */
async function loginShell({ profile, iterations }) {
  const { home } = profileHome(profile);
  const samples = [];
  let wrong = 0;
  for (let i = 0; i < iterations; i++) {
    const { ms, output } = await loginShellOnce(home);
    samples.push(ms);
    if (output !== 'hello\n') wrong++;
  }
  return { samples, wrong };
}

/** One `bash -lc 'echo hello'` with HOME `home`, timed from spawn to exit, with what it printed. */
async function loginShellOnce(home) {
  const started = performance.now();
  const output = await new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', ['-lc', 'echo hello'], { env: { ...process.env, HOME: home } });
    trackStop(() => child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(out));
  });
  return { ms: performance.now() - started, output };
}
