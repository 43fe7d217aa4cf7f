import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The library's declarations as an application's strict TypeScript reads them: a consumer file that names the
// public types, narrows a reply without `!` and disposes a manager with `await using` compiles against the built
// dist/index.d.ts, with skipLibCheck off (so every declaration file it reaches is checked too).

const root = new URL('../..', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'consumer-types-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONSUMER = `
import {
  UnifiedExecManager,
  exec,
  type ApprovalDecision,
  type ApprovalHandler,
  type ApprovalRequest,
  type ExecOptions,
  type ExecOutcome,
  type ExecResponse,
  type ManagerSettings,
  type SandboxBackend,
  type SandboxDenial,
  type SandboxPolicy,
} from '${root}dist/index.js';

const sandbox: SandboxPolicy = {
  mode: 'workspace-write',
  network: 'off',
  allowedDomains: ['registry.npmjs.org'],
  workspace: '/srv/work',
  writableRoots: [],
};
const backend: SandboxBackend = 'landlock';
const settings: ManagerSettings = { sandbox: 'workspace-write', sandboxBackend: backend, cwd: '/srv/work' };

const onApproval: ApprovalHandler = async (request: ApprovalRequest): Promise<ApprovalDecision> =>
  request.escalated ? { decision: 'deny', reason: 'not outside the sandbox' } : { decision: 'approve' };

/** The session to poll, or how it ended: no non-null assertion needed either way. */
function next(reply: ExecResponse): { poll: number } | { exitCode: number; denial: SandboxDenial | undefined } {
  if (reply.state === 'exited') return { exitCode: reply.exitCode, denial: reply.sandboxDenial };
  return { poll: reply.sessionId };
}

export async function main(signal: AbortSignal): Promise<ExecOutcome> {
  await using manager = new UnifiedExecManager({ ...settings, onApproval });
  let reply = await manager.execCommand({ command: 'npm test', yieldTimeMs: 1000 });
  while (reply.state !== 'exited') reply = await manager.writeStdin({ sessionId: reply.sessionId });
  next(reply);
  const options: ExecOptions = { command: ['npm', 'ci'], sandbox, timeoutMs: 60_000, signal };
  return exec(options);
}
`;

describe('the declarations as a strict consumer reads them', () => {
  it('type-check a consumer of the public types, narrowing and await using, with skipLibCheck off', () => {
    writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          types: ['node'],
          typeRoots: [join(root, 'node_modules/@types')],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(output).toBe('');
  }, 120_000);
});
