// A command request as an argv, and as an executor elsewhere (an exec-server, a container) spawns it.
import { describe, expect, it } from 'vitest';
import { commandArgv, specElsewhere } from '../../src/spawn/command.js';
import type { CommandRequest } from '../../src/spawn/types.js';

const request = (fields: Partial<CommandRequest>): CommandRequest => ({
  command: { script: 'echo hi', shell: '/bin/bash', login: true },
  workdir: undefined,
  defaultWorkdir: '/home/me/project',
  env: { inherit: 'core', set: { A: '1' } },
  tty: false,
  ...fields,
});

describe('commandArgv', () => {
  it('runs a command line with -lc for a login shell, -c otherwise, and an argv as given', () => {
    expect(commandArgv({ script: 'ls | wc', shell: '/bin/zsh', login: true })).toEqual(['/bin/zsh', '-lc', 'ls | wc']);
    expect(commandArgv({ script: 'ls', shell: 'bash', login: false })).toEqual(['bash', '-c', 'ls']);
    expect(commandArgv({ argv: ['ls', '-la'] })).toEqual(['ls', '-la']);
  });
});

describe('specElsewhere', () => {
  it("sends the intent, not this machine's: the directory as asked ('' for that side's), the policy, no environment", () => {
    expect(specElsewhere(request({}))).toEqual({
      argv: ['/bin/bash', '-lc', 'echo hi'],
      cwd: '',
      env: {},
      envPolicy: { inherit: 'core', set: { A: '1' } },
      tty: false,
      pipeStdin: false,
    });
    expect(specElsewhere(request({ workdir: 'sub', tty: true, cols: 100, rows: 30 }))).toMatchObject({
      cwd: 'sub',
      tty: true,
      cols: 100,
      rows: 30,
    });
  });

  it('refuses stdin on pipes before anything starts: it could never be closed there', () => {
    expect(() => specElsewhere(request({ stdin: true }))).toThrow(/input for a command on pipes needs this machine/);
    expect(specElsewhere(request({ stdin: true, tty: true })).tty).toBe(true);
  });
});
