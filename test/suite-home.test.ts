// The suite runs in a HOME of its own (test/helpers/suite-home-setup.ts), so the shells it starts read empty startup
// files and never the machine user's: a login shell started through the manager sees that HOME.
import { homedir } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { useManagers } from './helpers/manager.js';

const newManager = useManagers();
const suiteHome = inject('suiteHome');

describe("the suite's own HOME", () => {
  it('is HOME in every test process, and not the HOME of the user running the suite', () => {
    expect(process.env.HOME).toBe(suiteHome);
    expect(homedir()).toBe(suiteHome);
    expect(suiteHome).not.toBe(inject('userHome'));
    for (const name of ['.profile', '.bashrc', '.zshrc']) expect(readFileSync(join(suiteHome, name), 'utf8')).toBe('');
  });

  it('is what a login shell started by the manager reads its profile from', async () => {
    const manager = newManager();
    const login = await manager.execCommand({ command: 'echo "$HOME"', shell: '/bin/bash', login: true });
    expect(login).toMatchObject({ exitCode: 0, output: `${suiteHome}\n` });
    const interactive = await manager.execCommand({
      command: `bash -lic 'echo "home=$HOME"'`,
      shell: '/bin/bash',
      login: false,
      tty: true,
    });
    expect(interactive.exitCode).toBe(0);
    expect(interactive.output).toContain(`home=${suiteHome}`);
  });
});
