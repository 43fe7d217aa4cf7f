// The `serve` processes this test file started and that have not exited yet (cli-process.ts adds them). Its own small
// module: the setup file that ends them after every test file loads it, and should not load the MCP SDK with it.
import type { ChildProcess } from 'node:child_process';

/** Every `serve` this test file started that has not exited yet. */
export const liveServes = new Set<ChildProcess>();

/**
 * SIGKILLs every `serve` of this test file still running, by its pid: a test that failed before its own `stop()`
 * must not leave a server behind. For an `afterAll`.
 */
export function killLeftoverServes(): void {
  for (const child of liveServes) child.kill('SIGKILL');
  liveServes.clear();
}
