/**
 * Loads a TypeScript module of the test suite (and what it imports from test/) into the bench, which runs plain
 * .mjs: each file is transpiled with the project's TypeScript, so the bench uses the very code the tests use (the
 * scenario table, the Podman set-up, the exec-server launchers) instead of a copy. Imports are rewritten to
 * absolute URLs: test/ files to their transpiled twins, src/ files to their build in dist/, packages to
 * node_modules; `import.meta.url` keeps naming the source file, so paths derived from it stay right.
 *
 * Loading TypeScript takes seconds on a busy machine, so a run shares one folder of transpiled files among its
 * workers (UE_BENCH_TS_CACHE, made and removed by run.mjs), each named by a hash of its source and its imports'.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The environment variable naming a run's shared folder of transpiled files. */
export const TS_CACHE_VAR = 'UE_BENCH_TS_CACHE';
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"\n]+)\2/g;
/** A package name, maybe scoped, maybe with a subpath (`dockerode`, `@scope/pkg/sub`). */
const PACKAGE = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w./-]+)?$/i;

/** Imports `test/…/name.ts` (a path from the repository root); throws with the reason when it cannot. */
export async function importTestModule(path) {
  const shared = process.env[TS_CACHE_VAR];
  const dir = shared || mkdtempSync(join(tmpdir(), 'ue-bench-ts-'));
  try {
    return await import(await build(join(REPO, path), { dir, built: new Map(), visiting: new Set(), ts: undefined }));
  } finally {
    if (!shared) rmSync(dir, { recursive: true, force: true });
  }
}

/** The URL of `source` transpiled (with the test files it imports, first); reused when already in the folder. */
async function build(source, ctx) {
  const known = ctx.built.get(source);
  if (known) return known;
  if (!existsSync(source)) throw new Error(`${relative(REPO, source)} not found`);
  if (ctx.visiting.has(source)) throw new Error(`${relative(REPO, source)} is part of an import cycle`);
  ctx.visiting.add(source);
  const text = readFileSync(source, 'utf8');
  const urls = new Map();
  for (const [, , , spec] of text.matchAll(SPECIFIER)) urls.set(spec, await resolveImport(spec, source, ctx));
  const key = createHash('sha256')
    .update(text)
    .update(JSON.stringify([...urls]))
    .digest('hex')
    .slice(0, 16);
  const target = join(ctx.dir, relative(REPO, source).replace(/\.ts$/, `.${key}.mjs`));
  if (!existsSync(target)) {
    ctx.ts ??= (await import('typescript')).default;
    const js = ctx.ts
      .transpileModule(text, {
        compilerOptions: { module: ctx.ts.ModuleKind.ESNext, target: ctx.ts.ScriptTarget.ES2022 },
      })
      .outputText.replace(SPECIFIER, (_, keyword, quote, spec) => `${keyword}${quote}${urls.get(spec) ?? spec}${quote}`)
      .replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(source).href));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(`${target}.${process.pid}`, js);
    renameSync(`${target}.${process.pid}`, target);
  }
  const url = pathToFileURL(target).href;
  ctx.built.set(source, url);
  return url;
}

/**
 * Where an import of `from` leads: node: and packages as Node resolves them, src/ to dist/, test/ transpiled. Text
 * that only looks like an import (inside a string of the source) is left as it is.
 */
async function resolveImport(spec, from, ctx) {
  if (PACKAGE.test(spec)) {
    try {
      return import.meta.resolve(spec);
    } catch {
      return spec; // a type-only import of a types package (erased), or not an import at all
    }
  }
  if (!/^\.\.?\/.*\.js$/.test(spec)) return spec;
  const file = join(dirname(from), spec);
  const inRepo = relative(REPO, file);
  if (inRepo.startsWith('test/')) return build(file.replace(/\.js$/, '.ts'), ctx);
  if (inRepo.startsWith('src/')) {
    const built = join(REPO, 'dist', inRepo.slice('src/'.length));
    if (!existsSync(built)) throw new Error(`${inRepo} is not built (${relative(REPO, built)}): run \`npm run build\``);
    return pathToFileURL(built).href;
  }
  throw new Error(`${relative(REPO, from)} imports ${spec}, outside test/ and src/`);
}
