// The Landlock supervisor's pure decisions (native/decide.c): their unit tests on fixed inputs, and a few seconds of
// their libFuzzer target (native/fuzz/decide-fuzz.c), both under ASan and UBSan, through scripts/fuzz-native.sh,
// which `npm run fuzz:native` runs for ten minutes.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingTools, titled } from '../helpers/needs.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const FUZZ_SECONDS = 15;

/** Why the fuzz target cannot be built here: clang, or its libFuzzer runtime (Debian's libclang-rt-14-dev), missing. */
function missingFuzzer(): string | undefined {
  const tools = missingTools('gcc', 'clang');
  if (tools !== undefined || process.env.CI) return tools;
  const arch = process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch;
  const runtime = execFileSync('clang', ['--print-runtime-dir'], { encoding: 'utf8' }).trim();
  return existsSync(join(runtime, `libclang_rt.fuzzer-${arch}.a`))
    ? undefined
    : 'needs libFuzzer (apt-get install libclang-rt-14-dev)';
}

const NO_FUZZER = missingFuzzer();
const work = mkdtempSync(join(tmpdir(), 'unified-exec-fuzz-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the supervisor’s decisions (native/decide.c)', () => {
  it.skipIf(NO_FUZZER !== undefined)(
    titled(`pass their unit tests and ${FUZZ_SECONDS} seconds of fuzzing under ASan and UBSan`, NO_FUZZER),
    () => {
      const run = spawnSync(join(ROOT, 'scripts/fuzz-native.sh'), [String(FUZZ_SECONDS), work], {
        encoding: 'utf8',
        timeout: 150_000,
      });
      const said = `${run.stdout}\n${run.stderr}`;
      expect(run.stdout, said).toMatch(/^\d+ passed, 0 failed$/m);
      expect(run.status, said).toBe(0);
      const executed = Number(/stat::number_of_executed_units: (\d+)/.exec(run.stderr)?.[1]);
      // Tens of thousands a second on one core: far fewer means the target did not really run.
      expect(executed, said).toBeGreaterThan(10_000);
    },
    180_000,
  );
});
