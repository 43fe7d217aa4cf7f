// The native files the package ships prebuilt (prebuilds/): scripts/prebuild.sh's output for native/ as it is, and
// working where they are meant to run, the arm64 ones under qemu-user.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingTools, titled } from '../helpers/needs.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const PREBUILDS = join(ROOT, 'prebuilds');
const ADDON = 'unified_exec_native.node';
const LAUNCHER = 'unified-exec-sandbox-exec';

const NO_CROSS = missingTools('gcc', 'aarch64-linux-gnu-gcc');
const NO_QEMU = missingTools('qemu-aarch64-static');
const work = mkdtempSync(join(tmpdir(), 'unified-exec-prebuild-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('prebuilds/', () => {
  it('holds the addon and the launcher for linux-x64 and linux-arm64', () => {
    expect(readdirSync(PREBUILDS).sort()).toEqual(['linux-arm64', 'linux-x64']);
    for (const platform of ['linux-arm64', 'linux-x64']) {
      expect(readdirSync(join(PREBUILDS, platform)).sort()).toEqual([LAUNCHER, ADDON]);
    }
  });

  it.skipIf(NO_CROSS !== undefined)(
    titled('is what scripts/prebuild.sh builds from native/, byte for byte (run it after changing native/)', NO_CROSS),
    () => {
      execFileSync(join(ROOT, 'scripts/prebuild.sh'), [work], { stdio: 'pipe' });
      for (const platform of ['linux-arm64', 'linux-x64']) {
        for (const file of [ADDON, LAUNCHER]) {
          const fresh = readFileSync(join(work, platform, file));
          expect(fresh.equals(readFileSync(join(PREBUILDS, platform, file))), `${platform}/${file}`).toBe(true);
        }
      }
    },
    120_000,
  );

  // Every terminal test uses it too where no build/Release is made (CI, a package install).
  it.runIf(process.arch === 'x64' || process.arch === 'arm64')("this machine's addon loads into this Node", () => {
    const addon = createRequire(import.meta.url)(join(PREBUILDS, `linux-${process.arch}`, ADDON)) as {
      setCloexec(fd: number): void;
      localModes(fd: number): unknown;
    };
    const fd = openSync(join(ROOT, 'package.json'), 'r');
    try {
      addon.setCloexec(fd);
      expect(() => addon.localModes(fd)).toThrow(/tcgetattr: Inappropriate ioctl for device/);
    } finally {
      closeSync(fd);
    }
  });

  it.skipIf(NO_QEMU !== undefined)(titled('the arm64 launcher runs a command and refuses bad usage', NO_QEMU), () => {
    const launcher = join(PREBUILDS, 'linux-arm64', LAUNCHER);
    // Statically linked: qemu needs no arm64 libc. The command it execs is this machine's own echo.
    const ran = spawnSync('qemu-aarch64-static', [launcher, '--', '/bin/echo', 'hello'], { encoding: 'utf8' });
    expect(ran).toMatchObject({ status: 0, stdout: 'hello\n' });
    const usage = spawnSync('qemu-aarch64-static', [launcher, '--no-such-option'], { encoding: 'utf8' });
    expect(usage.status).toBe(125);
    expect(usage.stderr).toMatch(/^usage: unified-exec-sandbox-exec /);
  });
});
