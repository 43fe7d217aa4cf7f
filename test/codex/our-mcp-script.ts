// Runs a script of exec_command / write_stdin calls through our built CLI (`mcp` over stdio) with the real MCP SDK
// client, the way codex-driver.ts runs one through the real Codex CLI, and records the text each call handed back.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpTransport } from '../mcp/cli-process.js';
import type { CodexAnswer, CodexStep } from './codex-driver.js';
import { makeStateDir } from './spawned.js';

export interface OurRun {
  readonly answers: CodexAnswer[];
  /** Where the commands ran (already removed): `/var/tmp/codex-run-XXXXXX/work`, as long as Codex's. */
  readonly workDir: string;
  readonly elapsedMs: number;
}

/** The session id an answer reported, as the reference kit's fake model server reads it. */
function reportedSession(text: string): number | undefined {
  const match = /session ID (\d+)/i.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** `args` with every "$SESSION" replaced by `session` (null before any answer reported one, as the kit does). */
function fillSession(args: Readonly<Record<string, unknown>>, session: number | undefined): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(args).map(([key, value]) => [key, value === '$SESSION' ? (session ?? null) : value]),
  );
}

/**
 * Runs `steps` through `unified-exec mcp --sandbox danger-full-access ...extraArgs` (no sandbox, as Codex runs in the
 * reference kit) in a fresh work folder under a fresh HOME, each call after the last one answered. A tool error
 * counts as an answer: its text is what the model reads, as Codex hands the model its own error strings.
 */
export async function runOurScript(steps: readonly CodexStep[], extraArgs: readonly string[] = []): Promise<OurRun> {
  const started = performance.now();
  // The same shape and length as Codex's work folder, so a path in an answer costs the same tokens in both.
  const dir = makeStateDir('codex-run-');
  const workDir = join(dir, 'work');
  mkdirSync(workDir);
  mkdirSync(join(dir, 'user'));
  const args = ['--sandbox', 'danger-full-access', '--shell', '/bin/bash', ...extraArgs];
  const client = new Client({ name: 'codex-port', version: '1.0.0' });
  try {
    await client.connect(mcpTransport(args, { cwd: workDir, env: { HOME: join(dir, 'user') } }));
    const answers: CodexAnswer[] = [];
    let session: number | undefined;
    for (const step of steps) {
      const call = { name: step.name, args: fillSession(step.args, session) };
      const sent = performance.now();
      const result = await client.callTool({ name: call.name, arguments: call.args }, undefined, {
        timeout: 120_000,
      });
      const content = result.content as Array<{ type: string; text?: string }>;
      const output = content.map((part) => part.text ?? '').join('');
      session = reportedSession(output) ?? session;
      answers.push({ call, output, roundtripMs: Math.round(performance.now() - sent) });
    }
    return { answers, workDir, elapsedMs: performance.now() - started };
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
