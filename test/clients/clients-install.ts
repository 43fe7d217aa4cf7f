// Where the real agent clients the interop tests drive live: a package of their own (test/clients/package.json,
// installed by `npm run clients:install`), so the project's own install does not fetch them (about 1.2 GB). That
// package.json is the one place their versions are written: tests and docs name them through it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENTS_DIR = fileURLToPath(new URL('.', import.meta.url));
const MODULES = join(CLIENTS_DIR, 'node_modules');

const readManifest = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };

const manifest = readManifest(join(CLIENTS_DIR, 'package.json'));
/**
 * The clients' packages and the exact versions test/clients/package.json pins them to; the optional ones are one
 * package per architecture, of which npm installs the one that fits.
 */
const PINNED: Readonly<Record<string, string>> = { ...manifest.dependencies, ...manifest.optionalDependencies };
/** The packages that must be installed here: the required ones, and this architecture's optional one. */
const NEEDED = [
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.optionalDependencies ?? {}).filter((name) => name.endsWith(`-linux-${process.arch}`)),
];

/** The Codex CLI release the tests run (and whose observed behaviour they compare against). */
export const PINNED_CODEX_VERSION = PINNED['@openai/codex'] ?? 'unpinned';

/**
 * Why the installed `name` is not the pinned release (an install left from before the pin moved), or undefined. A
 * missing package is left to the binary checks, which say how to install it.
 */
export function staleClient(name: string): string | undefined {
  const file = join(MODULES, name, 'package.json');
  if (!existsSync(file)) return undefined;
  const installed = readManifest(file).version;
  if (installed === PINNED[name]) return undefined;
  return `${name} ${installed} is installed, test/clients/package.json pins ${PINNED[name]}: npm run clients:install`;
}

/** The platform packages the clients bring their native binaries in, by Node's `process.arch` (Linux only). */
const CODEX_TARGETS: Readonly<Record<string, string>> = {
  x64: '@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
  arm64: '@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex',
};

/**
 * The clients' native binaries, not node_modules/.bin's node wrappers: a test ends what it started by pid, and a
 * wrapper's pid is not the client's. Claude Code's postinstall copies its native binary over bin/claude.exe; its
 * newest build ships only inside the Agent SDK's platform package.
 */
export const CLIENT_BINARIES = {
  codex: join(MODULES, CODEX_TARGETS[process.arch] ?? 'no-codex-for-this-arch'),
  claude: join(MODULES, '@anthropic-ai/claude-code/bin/claude.exe'),
  claudeNewest: join(MODULES, `@anthropic-ai/claude-agent-sdk-linux-${process.arch}/claude`),
} as const;

/** The Claude Code builds the tests run, each by its binary and the version it reports. */
export const CLAUDE_CODE_BUILDS = [
  { version: PINNED['@anthropic-ai/claude-code'] ?? 'unpinned', binary: CLIENT_BINARIES.claude },
  {
    // The Agent SDK's 0.3.N carries Claude Code 2.1.N.
    version: `2.1.${(PINNED[`@anthropic-ai/claude-agent-sdk-linux-${process.arch}`] ?? '0.3.unpinned').split('.')[2]}`,
    binary: CLIENT_BINARIES.claudeNewest,
  },
] as const;

/** Undefined when both clients are installed here, else why the interop tests cannot run. */
export function clientsAvailability(): string | undefined {
  if (process.platform !== 'linux') return `the client interop tests run on Linux only, not ${process.platform}`;
  if (!existsSync(MODULES)) {
    return `no ${MODULES}: the real clients are not installed (npm run clients:install fetches them, about 1.2 GB)`;
  }
  for (const [name, binary] of Object.entries(CLIENT_BINARIES)) {
    if (!existsSync(binary)) return `no ${name} binary at ${binary} (npm run clients:install)`;
  }
  for (const name of NEEDED) {
    const stale = staleClient(name);
    if (stale) return stale;
  }
  return undefined;
}
