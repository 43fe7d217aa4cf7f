import { defineConfig } from 'vitest/config';

// Tests spawn real shells and PTYs: few workers and generous timeouts keep them honest on a 2-core machine.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds dist/ when src/ is newer: CLI and MCP tests run the built CLI as a real client would. Makes the suite's
    // own HOME, with empty startup files, for the run.
    globalSetup: ['test/cli/global-build.ts', 'test/helpers/suite-home-setup.ts'],
    // The system's programs, not a profile's shims, on PATH; the suite's HOME; kills any `serve` a failed test left
    // running, at the end of its file.
    setupFiles: ['test/helpers/system-path.ts', 'test/helpers/suite-home.ts', 'test/helpers/leftover-servers.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 30_000,
  },
});
