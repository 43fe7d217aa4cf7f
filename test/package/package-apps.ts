// The small programs test/package/install.test.ts runs inside an app that installed the packed package: each prints
// one JSON line of what it saw, so the test reads the result the way the app got it.

/** ESM: the library's one-shot exec() on pipes, then bash -i in a terminal through the manager. */
export const ESM_APP = `
import { exec, UnifiedExecManager } from 'unified-exec';
const piped = await exec({ command: 'echo piped' });
const manager = new UnifiedExecManager();
let reply = await manager.execCommand({ command: 'bash -i', tty: true, yieldTimeMs: 1000 });
const sessionId = reply.sessionId;
let terminal = reply.output;
reply = await manager.writeStdin({ sessionId, chars: 'echo $((6*7))\\n', yieldTimeMs: 1000 });
terminal += reply.output;
// bash may still be starting: poll until the answer shows, as a model would.
for (let i = 0; i < 20 && !/^42\\r?$/m.test(terminal); i++) {
  reply = await manager.writeStdin({ sessionId, chars: '', yieldTimeMs: 500 });
  terminal += reply.output;
}
await manager.shutdown();
console.log(JSON.stringify({ piped: piped.stdout, exitCode: piped.exitCode, sessionId, terminal }));
`;

/** The container executor without dockerode, which is optional: it says what to install. */
export const NO_DOCKERODE_APP = `
import { DockerExecutor } from 'unified-exec';
let message;
try {
  new DockerExecutor({ container: 'web-1' });
} catch (error) {
  message = error.message;
}
console.log(JSON.stringify({ message }));
`;

/** CommonJS: require() of the ESM package (Node >= 20.19), then exec(). */
export const CJS_APP = `
const { exec } = require('unified-exec');
exec({ command: 'echo required' }).then((r) => console.log(JSON.stringify({ stdout: r.stdout, exitCode: r.exitCode })));
`;

/** TypeScript, checked strictly against the package's own declarations (skipLibCheck off), then run. */
export const TS_APP = `
import { exec, DockerExecutor, UnifiedExecManager, type ExecResponse, type SandboxPolicy } from 'unified-exec';
import { createMcpServer } from 'unified-exec/mcp';
const outcome = await exec({ command: 'echo typed' });
const policy: SandboxPolicy | undefined = undefined;
let exitCode: number;
{
  await using manager = new UnifiedExecManager();
  let reply: ExecResponse = await manager.execCommand({ command: 'true', yieldTimeMs: 5000 });
  // The reply narrows on its state: a session id while it runs, an exit code once it exited; no \`!\` needed.
  while (reply.state !== 'exited') reply = await manager.writeStdin({ sessionId: reply.sessionId, chars: '' });
  exitCode = reply.exitCode;
}
const exported = [typeof DockerExecutor, typeof createMcpServer, typeof policy];
console.log(JSON.stringify({ stdout: outcome.stdout, exitCode, exported }));
`;

/** The app's tsconfig: strict, every declaration checked; Node's types from the repository (a user has their own). */
export const tsconfigFor = (nodeTypesRoot: string) =>
  JSON.stringify({
    compilerOptions: {
      strict: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      outDir: 'out',
      types: ['node'],
      typeRoots: [nodeTypesRoot],
    },
    files: ['typed.ts'],
  });

/**
 * The OpenAI Agents SDK's runner with the README's lines (`unified-exec/openai-agents`, default settings: sandboxed),
 * on a model scripted by a stand-in for the Responses API on 127.0.0.1: a command that leaves a child in the
 * background (`sleep 301.5`, a marker the test looks for after), a python3 REPL, a line typed into it.
 */
export const AGENTS_APP = `
import { createServer } from 'node:http';
import { run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import { SandboxAgent } from '@openai/agents/sandbox';
import OpenAI from 'openai';
import { UnifiedExecSandboxClient } from 'unified-exec/openai-agents';

const steps = [
  { name: 'exec_command', args: { cmd: 'python3 --version; sleep 301.5 & echo started', login: false } },
  { name: 'exec_command', args: { cmd: 'python3 -q -i', tty: true, login: false, yield_time_ms: 10000 } },
  { name: 'write_stdin', args: { session_id: 'SESSION', chars: 'print(40 + 2)\\n', yield_time_ms: 10000 } },
];
const outputs = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    for (const item of JSON.parse(body).input ?? [])
      if (item.type === 'function_call_output' && item.call_id === 'call_' + outputs.length) outputs.push(String(item.output));
    const step = steps[outputs.length];
    const session = /session ID (\\d+)/.exec(outputs.at(-1) ?? '')?.[1];
    const item = step
      ? { type: 'function_call', id: 'fc_' + outputs.length, call_id: 'call_' + outputs.length, name: step.name,
          arguments: JSON.stringify(step.args).replace('"SESSION"', String(session)), status: 'completed' }
      : { type: 'message', id: 'msg', role: 'assistant', status: 'completed',
          content: [{ type: 'output_text', text: 'done', annotations: [] }] };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'resp_' + outputs.length, object: 'response', status: 'completed', model: 'scripted',
      output: [item], usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } }));
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
setDefaultOpenAIClient(new OpenAI({ apiKey: 'scripted', baseURL: 'http://127.0.0.1:' + server.address().port + '/v1' }));
setOpenAIAPI('responses');
setTracingDisabled(true);

const client = new UnifiedExecSandboxClient();
const agent = new SandboxAgent({ name: 'Engineer', instructions: 'Answer from the workspace.' });
const result = await run(agent, 'Which Python version is installed?', { sandbox: { client } });
server.close();
console.log(JSON.stringify({ final: result.finalOutput, outputs }));
`;
