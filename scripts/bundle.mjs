#!/usr/bin/env node
// Bundles tsc's output, twice:
// - The CLI as clients start it: dist/cli/index.js and everything it imports (our modules, the MCP SDK, zod, ws)
//   bundled into a few files, so a fresh `unified-exec mcp` compiles and resolves a handful of modules instead of
//   several hundred (docs/benchmarks.md, "Start-up"). Each dynamic import() stays a file of its own, loaded when it
//   runs, so what `mcp` defers is still deferred.
// - The library's entry points, as package.json's "exports" name them (dist/lib/index.js, mcp.js, …): our modules
//   only, in chunks the entry points share, so an app that imports two of them has one copy of each module. The
//   package's dependencies stay outside, for Node to load: an app's zod and MCP SDK are the ones we use. An import
//   of the library then takes about 3.5 MiB less RSS than tsc's 200 modules (docs/benchmarks.md, run BQ).
//   tsc's modules stay in dist/ beside them: the types point there, and the patch applier runs from there.
//
// dist/cli and dist/lib are replaced whole. Every path our code builds from import.meta.url goes up two folders
// (`../..`), as it does from tsc's dist/<folder>/*.js, so the bundles keep them. dist/cli/bundle-meta.json records
// which modules each file holds (test/cli/startup.test.ts reads it); it is not packed.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const clidir = join(root, 'dist/cli');
const libdir = join(root, 'dist/lib');

// tsc's output, not a bundle made before: tsc writes dist/cli/main.js, the bundle main-<hash>.js.
if (!existsSync(join(clidir, 'main.js'))) {
  console.error('bundle: dist/cli holds no tsc output: run tsc -p tsconfig.build.json first (npm run build does both)');
  process.exit(1);
}

/** Bundles `entryPoints` (ES modules for Node 20, chunks shared, dynamic imports kept apart) into `outdir`, replaced whole. */
async function bundle(outdir, options, mode = () => 0o644) {
  const result = await build({
    absWorkingDir: root,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'warning',
    ...options,
  });
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  for (const file of result.outputFiles) writeFileSync(file.path, file.contents, { mode: mode(file.path) });
  return result;
}

const cli = await bundle(
  clidir,
  {
    entryPoints: ['dist/cli/index.js'],
    // node-pty is a native module (our code loads it with createRequire; named here so it stays outside whatever
    // loads it). Optional modules required inside a try (ws's bufferutil) stay runtime requires.
    external: ['@lydell/node-pty'],
    // Bundled CommonJS (ws) calls require() for node's builtins; an ES module has none of its own.
    banner: {
      js: "import { createRequire as __ueCreateRequire } from 'node:module';\nconst require = __ueCreateRequire(import.meta.url);",
    },
    metafile: true,
  },
  (path) => (path === join(clidir, 'index.js') ? 0o755 : 0o644),
);
const holds = Object.fromEntries(
  Object.entries(cli.metafile.outputs).map(([output, { inputs }]) => [
    relative(root, join(root, output)),
    Object.keys(inputs),
  ]),
);
writeFileSync(join(clidir, 'bundle-meta.json'), `${JSON.stringify(holds, null, 1)}\n`);

// The library: each entry point of package.json's "exports" is built from tsc's module beside its types.
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entryPoints = Object.fromEntries(
  Object.values(pkg.exports)
    .filter((entry) => typeof entry === 'object' && entry.import?.startsWith('./dist/lib/'))
    .map((entry) => [entry.import.slice('./dist/lib/'.length, -'.js'.length), entry.types.replace(/\.d\.ts$/, '.js')]),
);
await bundle(libdir, {
  entryPoints,
  // A package (and its subpaths) the package depends on, or lets an app bring, is the app's copy, loaded by Node.
  external: [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})],
});
