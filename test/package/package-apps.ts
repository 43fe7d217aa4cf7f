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
