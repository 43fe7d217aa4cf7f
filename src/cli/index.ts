#!/usr/bin/env node
// The CLI's entry: `--version` is answered here with nothing else loaded; every other command loads main.ts, and each
// command then loads only what it runs (a client that starts `mcp` waits for nothing it does not need).
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { packageVersion } from './version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  process.stdout.write(`${packageVersion()}\n`);
} else {
  const { main, failureLine } = await import('./main.js');
  await main(argv, realpathSync(fileURLToPath(import.meta.url))).catch((error: unknown) => {
    process.stderr.write(failureLine(error));
    process.exitCode = 1;
  });
}
