// What agents run still runs inside the default sandbox (workspace-write, network off) of the real server: the
// security work must not cost the everyday work. Each test is a real toolchain in a real workspace, on each backend.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpTransport } from '../mcp/cli-process.js';
import { textOf } from '../reliability/harness.js';
import type { SandboxBackend } from '../../src/sandbox/policy.js';
import { BACKENDS, REFUSED } from './sandbox-helpers.js';
import { missingTools, titled } from '../helpers/needs.js';

interface Served {
  client: Client;
  run(cmd: string, extra?: Record<string, unknown>): Promise<string>;
}

async function serve(cwd: string, args: string[] = []): Promise<Served> {
  const client = new Client({ name: 'workloads', version: '1.0.0' });
  await client.connect(mcpTransport(args, { cwd }));
  return {
    client,
    run: async (cmd, extra = {}) =>
      textOf(
        await client.callTool(
          { name: 'exec_command', arguments: { cmd, login: false, yield_time_ms: 30_000, ...extra } },
          undefined,
          { timeout: 120_000 },
        ),
      ),
  };
}

const exitedZero = (reply: string) => expect(reply, reply).toContain('Process exited with code 0');

describe.each(BACKENDS)('on $backend', ({ backend, skip }) => {
  if (skip) it.skip(`skipped: ${skip}`, () => undefined);
  else workloads(backend);
});

function workloads(backend: SandboxBackend): void {
  const sandbox = ['--sandbox-backend', backend];
  describe('everyday work in the default sandbox', () => {
    let ws = '';
    let server: Served;
    beforeAll(async () => {
      ws = mkdtempSync('/var/tmp/ue-workloads-');
      execFileSync('git', ['init', '-q', ws]);
      server = await serve(ws, sandbox);
    });
    afterAll(async () => {
      await server?.client.close();
      rmSync(ws, { recursive: true, force: true });
    });

    it('git: a repository made in the workspace commits; the workspace’s own .git stays read-only', async () => {
      const reply = await server.run(
        [
          'git init -q proj && cd proj && echo hi > a.txt && git add a.txt',
          'git -c user.name=agent -c user.email=agent@example.invalid commit -q -m first && git log --oneline | wc -l',
        ].join(' && '),
      );
      exitedZero(reply);
      expect(reply).toMatch(/Output:\n1\n/);
      const top = await server.run('touch .git/planted');
      expect(top).toContain(REFUSED[backend]);
      expect(existsSync(join(ws, '.git/planted'))).toBe(false);
    });

    // Every Landlock domain refuses to move or link an entry into another folder unless a rule grants REFER, and the
    // one the command enters inside bubblewrap (for its ptrace scope) granted none: rename(2) there answered EXDEV.
    it('moves and links files between folders, and through a link at the top', async () => {
      const reply = await server.run(
        [
          'mkdir -p mv-a mv-b && echo moved > mv-a/f && echo linked > mv-a/l',
          `python3 -c "import os; os.rename('mv-a/f', 'mv-b/f'); os.link('mv-a/l', 'mv-b/l')"`,
          'git mv --help >/dev/null 2>&1; ln -s mv-b/f mv-link && echo through >> mv-link',
          'cat mv-b/f mv-b/l',
        ].join(' && '),
      );
      exitedZero(reply);
      expect(reply).toMatch(/Output:\nmoved\nthrough\nlinked\n?$/);
    });

    it('python and node run, write in the workspace and read their own output', async () => {
      exitedZero(await server.run(`python3 -c "open('py.txt','w').write('6*7=%d' % (6*7))" && cat py.txt`));
      const reply = await server.run(`node -e "require('fs').writeFileSync('js.txt', String(6*7))" && cat js.txt`);
      exitedZero(reply);
      expect(reply).toMatch(/Output:\n42$/);
    });

    it.skipIf(missingTools('gcc', 'make') !== undefined)(
      titled('gcc and make -j build a program that runs', missingTools('gcc', 'make')),
      async () => {
        const dir = join(ws, 'c');
        execFileSync('mkdir', ['-p', dir]);
        for (const n of [1, 2, 3, 4]) writeFileSync(join(dir, `f${n}.c`), `int f${n}(void) { return ${n}; }\n`);
        writeFileSync(
          join(dir, 'main.c'),
          '#include <stdio.h>\nint f1(void);int f2(void);int f3(void);int f4(void);\nint main(void){printf("sum=%d\\n",f1()+f2()+f3()+f4());return 0;}\n',
        );
        writeFileSync(
          join(dir, 'Makefile'),
          'OBJS=main.o f1.o f2.o f3.o f4.o\nprog: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n%.o: %.c\n\t$(CC) -c $<\n',
        );
        const reply = await server.run('cd c && make -s -j4 && ./prog');
        exitedZero(reply);
        expect(reply).toMatch(/sum=10/);
      },
    );

    it('pipes, job control and a terminal work as outside', async () => {
      exitedZero(await server.run('seq 1 100000 | sort -rn | head -n 1 | grep -x 100000'));
      const shell = await server.run('bash --norc --noprofile -i', { tty: true, yield_time_ms: 5000 });
      const id = /session ID (\d+)/.exec(shell)?.[1];
      expect(id, shell).toBeDefined();
      const write = async (chars: string) =>
        textOf(
          await server.client.callTool({
            name: 'write_stdin',
            arguments: { session_id: Number(id), chars, yield_time_ms: 5000 },
          }),
        );
      await write('sleep 30 &\n');
      expect(await write('jobs\n')).toMatch(/\[1\]\+\s+Running\s+sleep 30 &/);
      await write('kill %1; wait\n');
      expect(await write('echo jobs:$(jobs | wc -l)\n')).toContain('jobs:0');
      await write('exit\n');
    });

    it.skipIf(missingTools('gdb') !== undefined)(
      titled('gdb debugs a program of its own (ptrace of its child)', missingTools('gdb')),
      async () => {
        const reply = await server.run('gdb -q -batch -ex run -ex bt --args /bin/sh -c "kill -SEGV \\$\\$"');
        expect(reply).toContain('Program received signal SIGSEGV');
        expect(reply).toMatch(/#0 .* in .*kill/);
      },
    );
  });

  describe('installs into the workspace with the network on', () => {
    let ws = '';
    let server: Served;
    beforeAll(async () => {
      ws = mkdtempSync('/var/tmp/ue-installs-');
      server = await serve(ws, [...sandbox, '--network', 'on']);
    });
    afterAll(async () => {
      await server?.client.close();
      rmSync(ws, { recursive: true, force: true });
    });

    it('npm installs a package from the registry into the workspace', async () => {
      const reply = await server.run(
        'npm init -y >/dev/null && npm install --no-audit --no-fund --cache ./.npm-cache is-number@7.0.0 >/dev/null && node -e "console.log(require(\'is-number\')(42))"',
        { yield_time_ms: 30_000 },
      );
      exitedZero(reply);
      expect(reply).toMatch(/Output:\ntrue\n$/);
    });

    it('pip installs a package into the workspace', async () => {
      // A wheel made here (a zip with the module and its dist-info), so no package index is needed.
      const wheel = join(ws, 'hello_ue-1.0-py3-none-any.whl');
      const files = {
        'hello_ue/__init__.py': 'def greet():\n    return "hello from pip"\n',
        'hello_ue-1.0.dist-info/METADATA': 'Metadata-Version: 2.1\nName: hello-ue\nVersion: 1.0\n',
        'hello_ue-1.0.dist-info/WHEEL':
          'Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
        'hello_ue-1.0.dist-info/RECORD': '',
      };
      const zip = `import sys, json, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    [z.writestr(k, v) for k, v in json.loads(sys.argv[2]).items()]`;
      execFileSync('python3', ['-c', zip, wheel, JSON.stringify(files)]);
      const reply = await server.run(
        // The interpreter itself, not a version manager's shim (pyenv's rehashes after pip, in a home it cannot write).
        'PY=$(python3 -c "import sys; print(sys.executable)") && $PY -m pip install -q --no-cache-dir --no-index --target ./pylib ./hello_ue-1.0-py3-none-any.whl && PYTHONPATH=pylib $PY -c "import hello_ue; print(hello_ue.greet())"',
      );
      exitedZero(reply);
      expect(reply).toContain('hello from pip');
    });
  });
}
