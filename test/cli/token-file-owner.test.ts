// A token file another local user owns is refused by the real servers (`serve`, `exec-server`), whatever its mode:
// its owner can read the token, or replace it. The servers as root (the file nobody's, at 0600: root could read it,
// and took it before) and as nobody (a file of root's at 0600 it cannot read, one of its own it takes).
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, NOBODY, nodeAsNobody, removeMountPoint } from '../helpers/nobody.js';
import { CLI, runToEnd } from '../mcp/cli-process.js';

const TOKEN = 'token-file-owner-token-0123456789abcdef';
const dir = mkdtempSync('/var/tmp/ue-token-owner-');
chmodSync(dir, 0o755);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeMountPoint();
});

/** A token file at 0600 owned by `uid`. */
function tokenFile(name: string, uid: number): string {
  const path = join(dir, name);
  writeFileSync(path, `${TOKEN}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  chownSync(path, uid, uid);
  return path;
}

const KINDS = {
  serve: (file: string) => ['serve', '--port', '0', '--no-view', '--token-file', file],
  'exec-server': (file: string) => ['exec-server', '--listen', 'ws://127.0.0.1:0', '--token-file', file],
};

/** The CLI with `argv` as root or as nobody, to its end (a server that starts is ended by its 10 s timeout). */
function run(user: 'root' | 'nobody', argv: string[]) {
  const { command, args } =
    user === 'root' ? { command: process.execPath, args: [CLI, ...argv] } : nodeAsNobody('dist/cli/index.js', argv);
  return runToEnd(command, args, { cwd: dir, timeoutMs: 10_000 });
}

describe.each(Object.entries(KINDS))('%s --token-file', (kind, argv) => {
  it.skipIf(CANNOT_SWITCH_USER !== undefined && !process.env.CI)(
    'run as root, refuses a 0600 file another user owns, saying who owns it and what to run',
    async () => {
      const file = tokenFile(`${kind}-nobody`, NOBODY);
      const refused = await run('root', argv(file));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `--token-file ${file}: it belongs to uid ${NOBODY} (nobody), who can read or replace the token; it must belong to root: run chown 0 ${file}`,
      );
      expect(refused.stdout).toBe('');
    },
    20_000,
  );

  it.skipIf(CANNOT_SWITCH_USER !== undefined && !process.env.CI)(
    'run as nobody, cannot read a 0600 file of root’s, and refuses it',
    async () => {
      const file = tokenFile(`${kind}-root`, 0);
      const refused = await run('nobody', argv(file));
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`--token-file ${file}: cannot read it: EACCES`);
    },
    20_000,
  );
});
