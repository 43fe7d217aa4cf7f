// The package as its users get it: `npm pack`ed, installed from the tarball into an empty app where no compiler
// runs (CC and CXX are /bin/false), once by npm with its defaults (install scripts on: npm would build a package with
// a binding.gyp and no install script of its own by itself, unless it says `gypfile: false`) and once by pnpm (10
// runs no install script of a dependency). Installing reaches the npm registry: one pack, one install each, every
// case after.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execTextOf } from '../mcp/client-scenarios.js';
import { readExecText } from '../helpers/exec-text.js';
import { userHome } from '../helpers/suite-home.js';
import { ROOT, cleanEnv, runToEnd } from '../mcp/cli-process.js';
import { AGENTS_APP, CJS_APP, ESM_APP, NO_DOCKERODE_APP, TS_APP, tsconfigFor } from './package-apps.js';

const INSTALL_TIMEOUT_MS = 300_000;
/** No compiler may run: a package that needs one fails to install here. */
const NO_COMPILER = { CC: '/bin/false', CXX: '/bin/false' };
/**
 * What the installed package may weigh, with its dependencies (docs/benchmarks.md has the measured figures: 24 MB and
 * 11 packages with npm): the MCP SDK 1.x's express and hono trees (35 MB, 106 packages), node-pty's sources and build
 * (63 MB) or dockerode's tree coming back would break it.
 */
const MAX_INSTALLED_MB = 30;
const MAX_INSTALLED_PACKAGES = 40;
/** The native TypeScript compiler a consumer may check the declarations with. */
const TYPESCRIPT_7 = '7.0.2';

let work: string;
let tarball: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'unified-exec-package-'));
  // dist/ is built by the suite's global setup; --ignore-scripts keeps `prepack` from building it again.
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  tarball = join(work, packed.trim().split('\n').pop()!);
}, INSTALL_TIMEOUT_MS);

// The installs leave tens of thousands of files: removing them takes more than the default hook time under load.
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
}, INSTALL_TIMEOUT_MS);

/** An empty ESM app in the temp dir; `install` puts the tarball into it. */
function makeApp(name: string, install: (dir: string) => void): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  install(dir);
  return dir;
}

/**
 * The installers run in the user's own HOME, not the suite's: there are npm's cache (pnpm itself comes from it) and
 * the user's registry settings. An install script a dependency has runs as npm runs it by default, with no
 * compiler; no test's shell starts there.
 */
const installEnv = () => ({ ...cleanEnv(), HOME: userHome(), ...NO_COMPILER });

/** Runs `node file` in the app (written from `source` when given) and reads the one JSON line it printed. */
async function runApp(dir: string, file: string, source?: string): Promise<Record<string, unknown>> {
  if (source !== undefined) writeFileSync(join(dir, file), source);
  const result = await runToEnd(process.execPath, [file], { cwd: dir, timeoutMs: 60_000 });
  expect(result, result.stderr).toMatchObject({ code: 0 });
  return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
}

/** The package's CLI started as a user's MCP client starts it: `npx unified-exec mcp`, with the default policy. */
async function connectMcp(dir: string): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: 'npx',
    args: ['--no-install', 'unified-exec', 'mcp'],
    cwd: dir,
    env: cleanEnv() as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'package-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** The cases every installer's app must pass. */
function usesTheInstalledPackage(app: () => string): void {
  it('runs exec() on pipes and bash -i in a terminal from the library', async () => {
    const seen = await runApp(app(), 'esm.js', ESM_APP);
    expect(seen).toMatchObject({ piped: 'piped\n', exitCode: 0, sessionId: expect.any(Number) });
    expect(seen.terminal).toMatch(/^42\r?$/m);
  });

  it('serves MCP through `npx unified-exec mcp`, sandboxed by default, to the SDK client', async () => {
    const { client, stderr } = await connectMcp(app());
    try {
      const hello = await client.callTool({ name: 'exec_command', arguments: { cmd: 'echo hello', login: false } });
      expect(execTextOf(hello)).toMatchObject({ output: 'hello\n', exitCode: 0 });
      // The seccomp filter of the package's prebuilt launcher is on the command (mode 2: filtered).
      const status = await client.callTool({
        name: 'exec_command',
        arguments: { cmd: 'grep ^Seccomp: /proc/self/status', login: false },
      });
      expect(execTextOf(status).output).toMatch(/^Seccomp:\s+2\n$/);
      expect(stderr()).toMatch(/Sandbox: workspace-write, network off .* on (bubblewrap|Landlock)/);
    } finally {
      await client.close();
    }
  });
}

describe('the package installed by npm as it comes (install scripts on), with no compiler', () => {
  let app: string;
  /** What npm printed as it installed. */
  let printed = '';
  beforeAll(() => {
    app = makeApp('npm-app', (dir) => {
      const result = spawnSync('npm', ['install', tarball, '--no-audit', '--no-fund'], {
        cwd: dir,
        env: installEnv(),
        encoding: 'utf8',
      });
      printed = `${result.stdout}${result.stderr}`;
      if (result.status !== 0) throw new Error(`npm install failed (${result.status}): ${printed}`);
    });
  }, INSTALL_TIMEOUT_MS);

  it('has no install script for npm to warn of at each install, or to ask approval for', () => {
    // npm 11.19 names, at every install, each dependency whose install scripts allowScripts does not cover; a
    // `prepare` counts, though npm runs none for a package from a tarball or the registry.
    expect(printed).not.toMatch(/unified-exec@\S* \(/);
  });

  it('stays small: no node-pty sources, no container or browser packages unless asked for', () => {
    expectSmall(installedPackages(join(app, 'node_modules')), join(app, 'node_modules'));
  });

  usesTheInstalledPackage(() => app);

  it('says what to install when the container executor is used without dockerode', async () => {
    expect(await runApp(app, 'no-dockerode.js', NO_DOCKERODE_APP)).toEqual({
      message: 'DockerExecutor needs the dockerode package, which is not installed: npm install dockerode@5',
    });
  });

  it('is require()d from CommonJS', async () => {
    expect(await runApp(app, 'required.cjs', CJS_APP)).toEqual({ stdout: 'required\n', exitCode: 0 });
  });

  // The repository's TypeScript 5.9, and 7.0 (the native compiler) installed beside the app as a user's would be.
  it.each([
    ['5.9', () => join(ROOT, 'node_modules/typescript/bin/tsc')],
    ['7.0', () => join(typeScript7(), 'node_modules/typescript/bin/tsc')],
  ])(
    'compiles under TypeScript %s with --strict and every declaration checked, and runs',
    async (_version, tsc) => {
      writeFileSync(join(app, 'typed.ts'), TS_APP);
      writeFileSync(join(app, 'tsconfig.json'), tsconfigFor(join(ROOT, 'node_modules/@types')));
      rmSync(join(app, 'out'), { recursive: true, force: true });
      const compiled = await runToEnd(process.execPath, [tsc(), '-p', '.'], { cwd: app, timeoutMs: 120_000 });
      expect(compiled.stdout + compiled.stderr).toBe('');
      expect(compiled.code).toBe(0);
      const seen = await runApp(app, 'out/typed.js');
      expect(seen).toEqual({ stdout: 'typed\n', exitCode: 0, exported: ['function', 'function', 'undefined'] });
    },
    180_000,
  );
});

describe('the package beside the OpenAI Agents SDK, installed by npm', () => {
  let app: string;
  beforeAll(() => {
    // The version the repository's own tests run (an optional peer: installed by the app, not with the package).
    const { devDependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    app = makeApp('agents-app', (dir) =>
      execFileSync(
        'npm',
        ['install', tarball, `@openai/agents@${devDependencies['@openai/agents']}`, '--no-audit', '--no-fund'],
        { cwd: dir, env: installEnv(), stdio: 'pipe' },
      ),
    );
  }, INSTALL_TIMEOUT_MS);

  it("runs a scripted agent on the README's lines, sandboxed, the model reading Codex's text, nothing left after", async () => {
    const seen = (await runApp(app, 'agents.js', AGENTS_APP)) as { final: string; outputs: string[] };
    expect(seen.final).toBe('done');
    const [version, opened, answered] = seen.outputs.map(readExecText);
    expect(version).toMatchObject({ exitCode: 0, output: expect.stringMatching(/^Python 3\.\d+\.\d+\nstarted\n$/) });
    expect(opened?.output).toContain('>>> ');
    expect(answered).toMatchObject({ sessionId: opened?.sessionId, output: 'print(40 + 2)\r\n42\r\n>>> ' });
    // The run is over: the background child of its first command went with its session.
    const marker = (pid: string) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1') === 'sleep\u0000301.5\u0000';
      } catch {
        return false;
      }
    };
    expect(readdirSync('/proc').filter((name) => /^\d+$/.test(name) && marker(name))).toEqual([]);
  }, 120_000);
});

/** TypeScript 7.0 installed once, in a folder of its own beside the apps; its folder. */
let typeScript7Dir: string | undefined;
function typeScript7(): string {
  typeScript7Dir ??= makeApp('typescript-7', (dir) =>
    execFileSync('npm', ['install', `typescript@${TYPESCRIPT_7}`, '--no-audit', '--no-fund'], {
      cwd: dir,
      env: installEnv(),
      stdio: 'pipe',
    }),
  );
  return typeScript7Dir;
}

describe('the package installed by pnpm 10', () => {
  let app: string;
  beforeAll(() => {
    app = makeApp('pnpm-app', (dir) =>
      execFileSync('npx', ['--yes', 'pnpm@10', 'add', tarball, '--store-dir', join(work, 'pnpm-store')], {
        cwd: dir,
        env: installEnv(),
        stdio: 'pipe',
      }),
    );
  }, INSTALL_TIMEOUT_MS);

  it('stays as small as with npm', () => {
    expectSmall(pnpmPackages(join(app, 'node_modules')), join(app, 'node_modules'));
  });

  usesTheInstalledPackage(() => app);
});

/** The installed tree holds the prebuilt node-pty, none of the optional packages, and stays under the limits. */
function expectSmall(packages: string[], modules: string): void {
  expect(packages).toContain('@lydell/node-pty');
  for (const optional of ['node-pty', 'dockerode', '@xterm/xterm', '@modelcontextprotocol/sdk', '@openai/agents'])
    expect(packages).not.toContain(optional);
  expect(packages.length).toBeLessThanOrEqual(MAX_INSTALLED_PACKAGES);
  expect(sizeOf(modules) / 2 ** 20).toBeLessThanOrEqual(MAX_INSTALLED_MB);
}

/** Every package pnpm installed, by name: its virtual store has one folder per package and version (`@s+n@1.0.0`). */
function pnpmPackages(modules: string): string[] {
  return readdirSync(join(modules, '.pnpm'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
    .map((entry) => entry.name.replace(/(.)@.*$/, '$1').replace('+', '/'))
    .sort();
}

/** Every package in a node_modules tree, by name (scoped ones as @scope/name), pnpm's store included. */
function installedPackages(modules: string): string[] {
  const names = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(join(dir, entry.name)))
          add(join(dir, entry.name, scoped), `${entry.name}/${scoped}`);
      } else add(join(dir, entry.name), entry.name);
    }
  };
  const add = (dir: string, name: string) => {
    names.add(name);
    try {
      visit(join(dir, 'node_modules'));
    } catch {
      // No nested node_modules.
    }
  };
  visit(modules);
  return [...names].sort();
}

/** Bytes on disk under `dir`, as du counts them (whole blocks). */
function sizeOf(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).reduce((total, entry) => {
    if (entry.isSymbolicLink()) return total;
    return total + statSync(join(entry.parentPath, entry.name)).blocks * 512;
  }, 0);
}
