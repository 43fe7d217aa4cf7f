#!/usr/bin/env node
// The CLI as clients start it: tsc's dist/cli/index.js and everything it imports (our modules, the MCP SDK, zod, ws)
// bundled into a few files, so a fresh `unified-exec mcp` compiles and resolves a handful of modules instead of
// several hundred (docs/benchmarks.md, "Start-up"). Each dynamic import() stays a file of its own, loaded when it
// runs, so what `mcp` defers is still deferred. The library's entry points (dist/index.js, …) are left unbundled.
//
// dist/cli is replaced whole. Every path our code builds from import.meta.url goes up two folders (`../..`), as it
// does from tsc's dist/cli/*.js, so the bundle keeps them. dist/cli/bundle-meta.json records which modules each
// file holds (test/cli/startup.test.ts reads it); it is not packed.
import { build } from 'esbuild';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist/cli');

// tsc's output, not a bundle made before: tsc writes dist/cli/main.js, the bundle main-<hash>.js.
if (!existsSync(join(outdir, 'main.js'))) {
  console.error(
    'bundle-cli: dist/cli holds no tsc output: run tsc -p tsconfig.build.json first (npm run build does both)',
  );
  process.exit(1);
}

const result = await build({
  absWorkingDir: root,
  entryPoints: ['dist/cli/index.js'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // node-pty is a native module (our code loads it with createRequire; named here so it stays outside whatever
  // loads it). Optional modules required inside a try (ws's bufferutil) stay runtime requires.
  external: ['@lydell/node-pty'],
  // Bundled CommonJS (ws) calls require() for node's builtins; an ES module has none of its own.
  banner: {
    js: "import { createRequire as __ueCreateRequire } from 'node:module';\nconst require = __ueCreateRequire(import.meta.url);",
  },
  metafile: true,
  write: false,
  logLevel: 'warning',
});

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
for (const file of result.outputFiles)
  writeFileSync(file.path, file.contents, { mode: file.path === join(outdir, 'index.js') ? 0o755 : 0o644 });
const holds = Object.fromEntries(
  Object.entries(result.metafile.outputs).map(([output, { inputs }]) => [
    relative(root, join(root, output)),
    Object.keys(inputs),
  ]),
);
writeFileSync(join(outdir, 'bundle-meta.json'), `${JSON.stringify(holds, null, 1)}\n`);
