// A `process/start` that cannot run its program, or not in its folder, answered by the real `codex exec-server` and by
// ours: the same error, byte for byte (member order included), or both starting it. Pipes and terminals fail in
// different words on the real server (execvp's errno, portable-pty's own messages), and a terminal whose folder is
// missing starts in the child's HOME; each case is asked of both servers.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Message, TestClient } from '../exec-server/client.js';
import { PINNED_CODEX_VERSION } from '../clients/clients-install.js';
import { codexSkipReason } from './codex-install.js';
import { startOurExecServer } from './our-exec-server.js';
import { startRealExecServer } from './real-exec-server.js';
import type { RunningServer } from './ws-server-process.js';

interface StartCase {
  argv: string[];
  /** Relative to the case folder, or absolute. */
  cwd: string;
  env: Record<string, string>;
  tty: boolean;
}

/** What each start is answered: its error as sent, or that it started. */
async function answers(server: RunningServer, cases: StartCase[], folder: string): Promise<string[]> {
  const client = await TestClient.open(server.url, server.token ? { Authorization: `Bearer ${server.token}` } : {});
  try {
    await client.initialize();
    const out: string[] = [];
    for (const [index, { argv, cwd, env, tty }] of cases.entries()) {
      const path = cwd.startsWith('/') ? cwd : join(folder, cwd);
      const response: Message = await client.request('process/start', {
        processId: `p${index}`,
        argv,
        cwd: `file://${path}`,
        env: Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replaceAll('$F', folder)])),
        tty,
      });
      out.push('error' in response ? JSON.stringify(response.error) : 'started');
      if (!('error' in response)) await client.waitForEvent('closed', `p${index}`);
    }
    return out;
  } finally {
    await client.close();
  }
}

const unavailable = codexSkipReason();

describe.skipIf(unavailable !== undefined)(
  unavailable
    ? `start failures (skipped: ${unavailable})`
    : `start failures, against codex exec-server ${PINNED_CODEX_VERSION}`,
  () => {
    let folder: string;
    const servers: RunningServer[] = [];
    beforeAll(async () => {
      folder = mkdtempSync('/var/tmp/ue-start-failures-');
      chmodSync(folder, 0o755);
      writeFileSync(join(folder, 'plain.sh'), 'echo hi\n', { mode: 0o644 });
      mkdirSync(join(folder, 'folder'));
      mkdirSync(join(folder, 'home'));
      writeFileSync(join(folder, 'file'), '');
      servers.push(await startRealExecServer(), await startOurExecServer());
    });
    afterAll(async () => {
      await Promise.all(servers.map((server) => server.stop()));
      rmSync(folder, { recursive: true, force: true });
    });

    const PATH = { PATH: '/usr/bin:/bin' };
    const HERE_FIRST = { PATH: '$F:/usr/bin' };
    const cases: [string, StartCase][] = [
      ['pipes: a file without the execute bit', { argv: ['./plain.sh'], cwd: '.', env: PATH, tty: false }],
      ['pipes: a folder', { argv: ['./folder'], cwd: '.', env: PATH, tty: false }],
      [
        'pipes: a name the PATH has only as a file it cannot run',
        { argv: ['plain.sh'], cwd: '.', env: HERE_FIRST, tty: false },
      ],
      ['pipes: a name the PATH has only as a folder', { argv: ['folder'], cwd: '.', env: HERE_FIRST, tty: false }],
      ['pipes: an empty PATH entry is the folder', { argv: ['plain.sh'], cwd: '.', env: { PATH: '' }, tty: false }],
      ['pipes: a missing program', { argv: ['no-such-program-x'], cwd: '.', env: PATH, tty: false }],
      ['pipes: no PATH, a program on the default one', { argv: ['ls'], cwd: '.', env: {}, tty: false }],
      ['pipes: a missing absolute path', { argv: ['/nonexistent/x'], cwd: '.', env: PATH, tty: false }],
      ['pipes: a folder that is a file', { argv: ['pwd'], cwd: 'file', env: PATH, tty: false }],
      ['pipes: a missing folder', { argv: ['pwd'], cwd: 'missing', env: PATH, tty: false }],
      ['tty: a missing program', { argv: ['no-such-program-x'], cwd: '.', env: PATH, tty: true }],
      ['tty: ./ and a file without the execute bit', { argv: ['./plain.sh'], cwd: '.', env: PATH, tty: true }],
      ['tty: ./ and a folder', { argv: ['./folder'], cwd: '.', env: PATH, tty: true }],
      ['tty: ./ and nothing', { argv: ['./missing'], cwd: '.', env: PATH, tty: true }],
      ['tty: ../ back into the folder', { argv: ['../folder'], cwd: 'folder', env: PATH, tty: true }],
      [
        'tty: the PATH has it only as a file it cannot run',
        { argv: ['plain.sh'], cwd: '.', env: HERE_FIRST, tty: true },
      ],
      ['tty: the PATH has it only as a folder', { argv: ['folder'], cwd: '.', env: HERE_FIRST, tty: true }],
      ['tty: an empty PATH', { argv: ['plain.sh'], cwd: '.', env: { PATH: '' }, tty: true }],
      [
        'tty: a PATH to print with quotes and backslashes',
        { argv: ['x'], cwd: '.', env: { PATH: '/no"pe:/x\\y:/é' }, tty: true },
      ],
      [
        'tty: a name with a slash, looked up on the PATH',
        { argv: ['folder/x'], cwd: '.', env: { PATH: '/' }, tty: true },
      ],
      ['tty: no PATH', { argv: ['ls'], cwd: '.', env: {}, tty: true }],
      ['tty: an absolute file without the execute bit', { argv: ['$F/plain.sh'], cwd: '.', env: {}, tty: true }],
      ['tty: a missing absolute path', { argv: ['/nonexistent/x'], cwd: '.', env: PATH, tty: true }],
      [
        'tty: a missing folder, then HOME',
        { argv: ['pwd'], cwd: 'missing', env: { ...PATH, HOME: '$F/home' }, tty: true },
      ],
      [
        'tty: a missing folder and a missing HOME',
        { argv: ['pwd'], cwd: 'missing', env: { ...PATH, HOME: '$F/gone' }, tty: true },
      ],
      [
        'tty: a missing folder, HOME a file',
        { argv: ['./x'], cwd: 'file', env: { ...PATH, HOME: '$F/file' }, tty: true },
      ],
      [
        'tty: a missing folder, ./ in HOME',
        { argv: ['./plain.sh'], cwd: 'missing', env: { ...PATH, HOME: '$F' }, tty: true },
      ],
    ];
    const resolved = () => cases.map(([, c]) => ({ ...c, argv: c.argv.map((arg) => arg.replaceAll('$F', folder)) }));

    it('answers each as the real server does, byte for byte', async () => {
      const [real, ours] = await Promise.all(servers.map((server) => answers(server, resolved(), folder)));
      const table = (list: string[]) => list.map((answer, i) => `${cases[i]![0]}: ${answer}`);
      expect(table(ours!)).toEqual(table(real!));
      // The cases are the ones measured: most fail, in both kinds of words.
      expect(real!.filter((answer) => answer === 'started')).toHaveLength(2);
      expect(real!.join('\n')).toMatch(/"kind":"spawnPermissionDenied"/);
      expect(real!.join('\n')).toMatch(/Unable to spawn [^"]* because:\\n[^"]* exists but is not executable/);
    });
  },
);
