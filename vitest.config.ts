import { defineConfig } from 'vitest/config';

// Tests spawn real shells and PTYs: few workers and generous timeouts keep them honest on a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when src/ is newer: CLI and MCP tests run the built CLI as a real client would.
    globalSetup: ['test/cli/global-build.ts'],
    // The system's programs, not a profile's shims, on PATH; kills any `serve` a failed test left running, at the
    // end of its file.
    setupFiles: ['test/helpers/system-path.ts', 'test/helpers/leftover-servers.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
