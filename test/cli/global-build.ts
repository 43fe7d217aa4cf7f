// vitest globalSetup: the CLI and MCP tests spawn the built CLI, so dist/ must match src/ before any test runs.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;

function newestSourceMtime(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    const mtime = entry.isDirectory() ? newestSourceMtime(path) : statSync(path).mtimeMs;
    return Math.max(newest, mtime);
  }, 0);
}

function builtMtime(): number {
  try {
    return statSync(join(root, 'dist/cli/index.js')).mtimeMs;
  } catch {
    return 0;
  }
}

export default function setup(): void {
  const sources = Math.max(
    newestSourceMtime(join(root, 'src')),
    ...['package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(join(root, f)).mtimeMs),
  );
  // tsc rewrites every output, so dist/cli/index.js is as old as the last build.
  if (builtMtime() > sources) return;
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}
