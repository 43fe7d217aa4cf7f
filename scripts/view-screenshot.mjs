#!/usr/bin/env node
// Takes docs/live-view.png, the README's picture of the live view: a server with the view, two MCP clients with a
// few real sessions (a build-like loop, a Python REPL, a pipe session), one of them selected, in Debian's chromium.
// Run with `npm run screenshot:view` (it builds first). Ends every session and process it started.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startHttpServer } from '../dist/mcp/http-server.js';
import { viewRoutes } from '../dist/view/view-routes.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const OUT = new URL('../docs/live-view.png', import.meta.url).pathname;
const TOKEN = 'screenshot-token-0123456789abcdef';

/** A build-like script that prints a while, then keeps running: it becomes `./build.sh --watch` in a temp dir. */
const BUILD = String.raw`#!/bin/bash
for step in deps lint compile test bundle; do
  printf '\e[1;34m==>\e[0m %s\n' "$step"
  for part in core cli server; do
    printf '    %-8s %-7s \e[32mok\e[0m  (%d ms)\n' "$step" "$part" $((RANDOM % 900 + 40))
    sleep 0.05
  done
done
printf '\e[1;32mBuild finished\e[0m: 15 steps, 0 failed\n'
printf 'watching for changes...\n'
sleep 600
`;

async function connect(url, name) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const exec = (client, args) =>
  client.callTool({ name: 'exec_command', arguments: { login: false, yield_time_ms: 1000, ...args } });

const workdir = mkdtempSync(join(tmpdir(), 'ue-screenshot-'));
writeFileSync(join(workdir, 'build.sh'), BUILD);
chmodSync(join(workdir, 'build.sh'), 0o755);
// Structured results: the script reads session ids off them.
const server = await startHttpServer({
  port: 0,
  token: TOKEN,
  structuredOutput: true,
  routes: (clients) => viewRoutes(clients),
});
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
const clients = [];
try {
  const claude = await connect(server.url, 'claude-code');
  const codex = await connect(server.url, 'codex-mcp-client');
  clients.push(claude, codex);

  await exec(codex, { cmd: 'while sleep 1; do date "+%T tick"; done' });
  const repl = await exec(claude, { cmd: 'python3 -q', tty: true });
  const replId = repl.structuredContent.session_id;
  for (const line of ['import platform', 'platform.python_version()', 'sum(n * n for n in range(10))']) {
    await claude.callTool({ name: 'write_stdin', arguments: { session_id: replId, chars: `${line}\n` } });
  }
  const build = await exec(claude, { cmd: './build.sh --watch', workdir, tty: true, yield_time_ms: 250 });
  const buildId = build.structuredContent.session_id;

  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`${server.url.replace(/\/mcp$/, '/view')}#token=${TOKEN}`);
  const item = page.locator(`li.session[data-session-id="${buildId}"]`);
  await item.waitFor();
  await item.click();
  await page.locator('.xterm-rows', { hasText: 'watching for changes' }).waitFor({ timeout: 20_000 });
  // Let a list refresh show the REPL as waiting for input and the ages tick.
  await page.waitForTimeout(2500);
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT}`);
} finally {
  for (const client of clients) await client.close();
  await browser.close();
  await server.close();
  rmSync(workdir, { recursive: true, force: true });
}
