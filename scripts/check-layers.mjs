#!/usr/bin/env node
// Keeps the architecture honest: a lower layer never imports a higher one, and src/ has no import cycles.
// Static imports, re-exports and dynamic import() all count.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

// util: tiny helpers; net: what both listeners (serve, exec-server) share against other local users: the connection
// cap and its eviction, timeouts for slow senders, the token comparison; buffer: output data structures; patch:
// Codex's patch format, parsed and applied to files; linux: /proc, process trees, tags, kill; spawn: one running
// program (PTY, pipes, env); input-wait: is it waiting for input; exec-server: the Codex exec-server protocol and
// our server of it; executors: where else programs run (exec-servers, containers); manager: exec sessions; tools,
// mcp, cli: surfaces; view: the live view's page and API, which the CLI plugs into the MCP HTTP server.
const ORDER = [
  'util',
  'net',
  'buffer',
  'patch',
  'screen',
  'linux',
  'sandbox',
  'spawn',
  'input-wait',
  'exec-server',
  'executors',
  'approval',
  'manager',
  'tools',
  'mcp',
  'view',
  'cli',
];
const root = resolve(new URL('..', import.meta.url).pathname, 'src');

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const layerOf = (file) => {
  const top = relative(root, file).split('/')[0];
  const layer = ORDER.indexOf(top);
  if (layer < 0 && top.endsWith('.ts')) return ORDER.length; // src/index.ts: the public API may import anything
  if (layer < 0) problems.push(`src/${top}/ is not a known layer; add it to ORDER in scripts/check-layers.mjs`);
  return layer;
};

const problems = [];
const files = walk(root);
const graph = new Map();
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  const deps = [];
  for (const match of text.matchAll(/(?:(?:import|export)[^'"]*?from\s+|import\(\s*)['"](\.[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), match[1]).replace(/\.js$/, '.ts');
    deps.push(target);
    const from = layerOf(file);
    const to = layerOf(target);
    if (from >= 0 && to > from) {
      problems.push(
        `${relative(root, file)} (layer ${ORDER[from]}) imports ${relative(root, target)} (layer ${ORDER[to]})`,
      );
    }
  }
  graph.set(file, deps);
}

// Cycle check by depth-first search over the import graph.
const state = new Map();
const stack = [];
function visit(file) {
  state.set(file, 'open');
  stack.push(file);
  for (const dep of graph.get(file) ?? []) {
    if (state.get(dep) === 'open') {
      problems.push(
        `import cycle: ${[...stack.slice(stack.indexOf(dep)), dep].map((f) => relative(root, f)).join(' -> ')}`,
      );
    } else if (!state.has(dep) && graph.has(dep)) {
      visit(dep);
    }
  }
  stack.pop();
  state.set(file, 'done');
}
for (const file of files) if (!state.has(file)) visit(file);

if (problems.length > 0) {
  console.error(`layer check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(`layer check: ${files.length} files, order ${ORDER.join(' < ')}, no upward imports, no cycles`);
