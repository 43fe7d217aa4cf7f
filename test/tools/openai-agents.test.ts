import { existsSync } from 'node:fs';
import { OpenAIProvider, Runner } from '@openai/agents';
import { SandboxAgent, shell, type SandboxAgentOptions } from '@openai/agents/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { UnifiedExecSandboxClient, type UnifiedExecSandboxClientOptions } from '../../src/tools/openai-agents.js';
import { readExecText } from '../helpers/exec-text.js';
import { titled } from '../helpers/needs.js';
import { BACKENDS, REFUSED, useWorkspace } from '../sandbox/sandbox-helpers.js';
import { isAlive, killIfAlive, printedPid, waitUntilGone } from '../helpers/processes.js';
import {
  startScriptedResponsesApi,
  type ScriptStep,
  type ScriptedResponsesApi,
} from '../helpers/scripted-responses-api.js';

// The real Agents SDK runner drives a scripted model (a local Responses API stand-in) whose sandbox client is ours:
// the model reads what the runner hands back from our sessions.

let api: ScriptedResponsesApi | undefined;
const started: number[] = [];

afterEach(async () => {
  await api?.close();
  api = undefined;
  for (const pid of started.splice(0)) killIfAlive(pid);
});

/**
 * Host pids: tests that read the pids their commands print run them outside the sandbox, whose pid namespace
 * (bubblewrap) would print its own.
 */
const UNSANDBOXED = { sandbox: 'danger-full-access' } as const;

/** Runs a sandbox agent on a scripted model through the SDK's runner; answers the model's tool outputs. */
async function runScript(
  steps: ScriptStep[],
  options: UnifiedExecSandboxClientOptions = {},
  agentOptions: Partial<SandboxAgentOptions> = { capabilities: [shell()] },
): Promise<string[]> {
  api = await startScriptedResponsesApi(steps);
  const runner = new Runner({
    modelProvider: new OpenAIProvider({ apiKey: 'test', baseURL: `${api.url}/v1`, useResponses: true }),
    tracingDisabled: true,
  });
  const agent = new SandboxAgent({ name: 'Engineer', instructions: 'Use the shell.', ...agentOptions });
  const result = await runner.run(agent, 'go', {
    sandbox: { client: new UnifiedExecSandboxClient({ defaultShell: '/bin/bash', ...options }) },
    maxTurns: steps.length + 2,
  });
  expect(result.finalOutput).toBe('done');
  return api.outputs;
}

/** The session id and the wall time a reply names. */
function sessionOf(text: string): number {
  const { sessionId } = readExecText(text);
  if (sessionId === undefined) throw new Error(`no session in ${JSON.stringify(text)}`);
  return sessionId;
}
const wallSeconds = (text: string) => Number(/^Wall time: ([\d.]+) seconds$/m.exec(text)?.[1] ?? NaN);

describe('UnifiedExecSandboxClient under the Agents SDK runner', () => {
  it("offers the SDK's exec_command and write_stdin, and the model reads Codex's text", async () => {
    const [reply] = await runScript([() => ({ name: 'exec_command', args: { cmd: 'echo hello; pwd', login: false } })]);
    expect(api!.offered()).toEqual(expect.arrayContaining(['exec_command', 'write_stdin']));
    expect(reply).toMatch(
      /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: \d+\nOutput:\nhello\n\/workspace\n$/,
    );
  });

  it("shares the workspace with the SDK's file tools (the default capabilities)", async () => {
    const [edited, read] = await runScript(
      [
        () => ({ patch: { type: 'create_file', path: 'notes/hello.txt', diff: '+written by apply_patch\n' } }),
        () => ({ name: 'exec_command', args: { cmd: 'cat /workspace/notes/hello.txt', login: false } }),
      ],
      {},
      {},
    );
    expect(api!.offered()).toEqual(expect.arrayContaining(['apply_patch', 'exec_command', 'write_stdin']));
    expect(edited).toBe(''); // a successful edit has no output, only its status
    expect(readExecText(read!)).toMatchObject({ exitCode: 0, output: 'written by apply_patch' });
  });

  it('keeps a python3 REPL state across calls, answering as soon as it waits for input', async () => {
    const outputs = await runScript(
      [
        () => ({
          name: 'exec_command',
          args: { cmd: 'python3 -q -i', tty: true, login: false, yield_time_ms: 10_000 },
        }),
        ([repl]) => ({
          name: 'write_stdin',
          args: { session_id: sessionOf(repl!), chars: 'import os; x = 41; print("PID=%d" % os.getpid())\n' },
        }),
        ([repl]) => ({
          name: 'write_stdin',
          args: { session_id: sessionOf(repl!), chars: 'print(x + 1)\n', yield_time_ms: 30_000 },
        }),
      ],
      UNSANDBOXED,
    );
    const [opened, assigned, printed] = outputs as [string, string, string];
    started.push(printedPid(assigned));
    // Each at its prompt, far before its yield (10 s, then 250 ms clamped up to nothing, then 30 s).
    expect(readExecText(opened).output).toContain('>>> ');
    expect(wallSeconds(opened)).toBeLessThan(5);
    expect(readExecText(printed)).toMatchObject({ sessionId: sessionOf(opened), output: 'print(x + 1)\r\n42\r\n>>> ' });
    expect(wallSeconds(printed)).toBeLessThan(5);
    // The run is over: its sandbox session is gone, and the REPL with it.
    await waitUntilGone(printedPid(assigned));
  });

  it('ends every process a session started once the run is over, and removes its workspace', async () => {
    // A background child of a session on pipes and of one in a terminal; the SDK's own client leaves the first
    // running (its shell alone gets SIGTERM), and its delete() waits until that child exits.
    const sleeper = (tty: boolean) => () => ({
      name: 'exec_command',
      args: { cmd: 'sleep 600 & echo PID=$!; pwd -P | tr / :; wait', tty, login: false, yield_time_ms: 1_000 },
    });
    const outputs = await runScript([sleeper(false), sleeper(true)], UNSANDBOXED);
    const texts = outputs.map(readExecText);
    const pids = texts.map((text) => printedPid(text.output));
    started.push(...pids);
    for (const text of texts) expect(text.sessionId).toBeGreaterThan(0);
    const workspace = /^(:\S+)\r?$/m.exec(texts[0]!.output)![1]!.replaceAll(':', '/');
    for (const pid of pids) await waitUntilGone(pid);
    expect(pids.filter(isAlive)).toEqual([]);
    expect(existsSync(workspace)).toBe(false);
  });

  it('answers a failing call with Codex’s error text', async () => {
    const [reply] = await runScript([() => ({ name: 'write_stdin', args: { session_id: 424242, chars: 'x' } })]);
    expect(reply).toBe('write_stdin failed: Unknown process id 424242');
  });

  describe.each(BACKENDS)('in the sandbox on $backend', ({ backend, skip }) => {
    const outside = useWorkspace();

    it.skipIf(skip !== undefined)(titled('writes in its workspace, not outside it', skip), async () => {
      const [reply] = await runScript(
        [
          () => ({
            name: 'exec_command',
            args: { cmd: `echo inside > made && cat made; echo outside > ${outside.dir}/made`, login: false },
          }),
        ],
        { sandboxBackend: backend }, // the default policy: workspace-write
      );
      const text = readExecText(reply!);
      expect(text.output).toContain('inside\n');
      expect(text.output).toContain(REFUSED[backend]);
      expect(text.exitCode).not.toBe(0);
      expect(existsSync(`${outside.dir}/made`)).toBe(false);
    });
  });

  it('asks the approval handler, and the model reads its refusal', async () => {
    const asked: string[] = [];
    const [reply] = await runScript([() => ({ name: 'exec_command', args: { cmd: 'touch made', login: false } })], {
      approvalPolicy: 'untrusted',
      onApproval: async (request) => {
        asked.push(request.command);
        return { decision: 'deny' };
      },
    });
    expect(asked).toEqual(['touch made']);
    expect(reply).toMatch(/^exec_command failed for `touch made`: /);
  });
});

describe('UnifiedExecSandboxSession', () => {
  it('runs commands again after stop(), and none after delete()', async () => {
    const session = await new UnifiedExecSandboxClient({ defaultShell: '/bin/bash', ...UNSANDBOXED }).create();
    const opened = readExecText(
      await session.execCommand({ cmd: 'echo PID=$$; exec sleep 600', login: false, tty: true, yieldTimeMs: 300 }),
    );
    started.push(printedPid(opened.output));
    await session.stop();
    await waitUntilGone(printedPid(opened.output));
    expect(readExecText(await session.execCommand({ cmd: 'echo again', login: false }))).toMatchObject({
      exitCode: 0,
      output: 'again\n',
    });
    await session.delete();
    await expect(session.execCommand({ cmd: 'echo late', login: false })).rejects.toMatchObject({ code: 'SHUT_DOWN' });
  });

  it('refuses a command to run as another user', async () => {
    const session = await new UnifiedExecSandboxClient().create();
    try {
      await expect(session.execCommand({ cmd: 'id', runAs: 'nobody-else' })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
      });
    } finally {
      await session.delete();
    }
  });
});
