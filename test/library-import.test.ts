import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The entry point as package.json's "exports" names it: the library's bundle (scripts/bundle.mjs).
const ENTRY = fileURLToPath(new URL('../dist/lib/index.js', import.meta.url));

/**
 * Runs `body` in a fresh Node process after `lib` (the built entry point) is imported; `ws()` says whether any of the
 * ws package's files is loaded. What the script prints is the answer.
 */
function inFreshProcess(body: string): string {
  const script = `
    import { createRequire } from 'node:module';
    const lib = await import(${JSON.stringify(ENTRY)});
    const ws = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/ws/'));
    ${body}`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

describe('importing unified-exec', () => {
  it('leaves ws unloaded until a WebSocket is served, and loads it then', () => {
    const answer = inFreshProcess(`
      const atImport = ws();
      const server = new lib.ExecServer({ log: () => undefined });
      const listener = await lib.listenWebSocket(server, { host: '127.0.0.1', port: 0 });
      const served = ws();
      await listener.close();
      await server.close();
      console.log(JSON.stringify({ atImport, served, url: listener.url.startsWith('ws://127.0.0.1:') }));`);
    expect(JSON.parse(answer)).toEqual({ atImport: false, served: true, url: true });
  });
});
