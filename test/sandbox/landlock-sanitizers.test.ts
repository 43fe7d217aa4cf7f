// The Landlock supervisor built with AddressSanitizer and UndefinedBehaviorSanitizer (clang's, dynamically linked: ASan
// does not link statically; gcc 12's UBSan, beside its ASan, writes its reports to stderr whatever log_path says), run by the real server (`mcp --sandbox-backend landlock`) through UNIFIED_EXEC_SANDBOX_EXEC, as
// root and as nobody, on work that exercises every call it handles (test/fixtures/supervisor-workload.py). Each
// report goes to a file of its own (log_path); none may be written. The server starts its launchers with an
// environment of their own (a launcher in standby has only its process tag), so the sanitizers' options are set by a
// wrapper that the override names, which then execs the build: the same process, with the same pid and fds.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, removeMountPoint } from '../helpers/nobody.js';
import { missingTools, titled } from '../helpers/needs.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { NO_LANDLOCK } from './sandbox-helpers.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const NO_CLANG = missingTools('clang', 'python3');
const SKIP = NO_CLANG ?? (process.env.CI ? undefined : NO_LANDLOCK);
const SANITIZE = ['-g', '-O1', '-fno-omit-frame-pointer', '-fsanitize=address,undefined', '-fno-sanitize-recover=all'];

/** Where the build, its wrapper and the reports live: a folder nobody can enter too. */
const dir = mkdtempSync('/var/tmp/ue-sanitized-');
const reports = join(dir, 'reports');
const runs = join(dir, 'runs');
const launcher = join(dir, 'unified-exec-sandbox-exec');
const cleanup: string[] = [dir];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** The sanitizers' options: every report to a file of its own in `into` (`report.<pid>`), the first one fatal. */
const options = (into: string) => ({
  ASAN_OPTIONS: `log_path=${into}/report:detect_leaks=1:strict_string_checks=1`,
  UBSAN_OPTIONS: `log_path=${into}/report:print_stacktrace=1:halt_on_error=1`,
});

/** The warnings of the build (scripts/prebuild.sh --flags, less the hardening the sanitizers replace). */
const warnings = () =>
  execFileSync(join(ROOT, 'scripts/prebuild.sh'), ['--flags'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((flag) => flag.startsWith('-W'));

const reportsWritten = () =>
  readdirSync(reports).map((name) => `${name}:\n${readFileSync(join(reports, name), 'utf8')}`);

describe.skipIf(SKIP !== undefined)(titled('the Landlock supervisor under ASan and UBSan', SKIP), () => {
  beforeAll(() => {
    chmodSync(dir, 0o755);
    for (const folder of [reports, runs]) {
      mkdirSync(folder);
      chmodSync(folder, 0o1777); // nobody's server writes here too
    }
    const sources = ['sandbox-exec.c', 'supervisor.c', 'decide.c'].map((name) => join(ROOT, 'native', name));
    execFileSync('clang', [...SANITIZE, ...warnings(), '-o', `${launcher}.sanitized`, ...sources], { stdio: 'pipe' });
    const env = Object.entries(options(reports))
      .map(([name, value]) => `export ${name}='${value}'`)
      .join('\n');
    writeFileSync(launcher, `#!/bin/sh\n${env}\n: > ${runs}/$$\nexec ${launcher}.sanitized "$@"\n`, { mode: 0o755 });
  }, 120_000);

  it('is in effect: the build carries the sanitizers, and a report of theirs is written where the test reads', () => {
    const symbols = execFileSync('nm', [`${launcher}.sanitized`], { encoding: 'utf8', maxBuffer: 64 << 20 });
    expect(symbols).toMatch(/__asan_init/);
    expect(symbols).toMatch(/__ubsan_handle_/);
    // Two faults in a program of the test's own, built and run as the launcher is: each leaves its report.
    const proof = join(dir, 'proof');
    mkdirSync(proof);
    const faulty = join(proof, 'faulty.c');
    writeFileSync(
      faulty,
      '#include <limits.h>\n#include <stdlib.h>\n#include <string.h>\n' +
        'int main(int argc, char **argv) {\n' +
        "  if (argv[1][0] == 'u') { int big = INT_MAX - 1 + argc; return big + 1 > 0; }\n" +
        '  char *p = malloc(8); memset(p, 1, 8 + argc); return p[0]; }\n',
    );
    execFileSync('clang', [...SANITIZE, '-o', `${faulty}.out`, faulty]);
    for (const fault of ['address', 'undefined']) {
      const run = spawnSync(`${faulty}.out`, [fault], { env: { ...process.env, ...options(proof) } });
      expect(run.status, fault).not.toBe(0);
    }
    const written = readdirSync(proof)
      .filter((name) => /^report\.\d+$/.test(name))
      .map((name) => readFileSync(join(proof, name), 'utf8'));
    expect(written).toHaveLength(2);
    expect(written.join('\n')).toMatch(/AddressSanitizer: heap-buffer-overflow/);
    expect(written.join('\n')).toMatch(/runtime error: signed integer overflow/);
  });

  const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
  describe.each(users)('served as %s', (user) => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('runs every call it handles, many times, and no sanitizer reports anything', async () => {
      const ws = mkdtempSync('/var/tmp/ue-sanitized-ws-');
      cleanup.push(ws);
      const git = (...args: string[]) => execFileSync('git', ['-C', ws, ...args], { stdio: 'ignore' });
      git('init', '-q');
      copyFileSync(join(ROOT, 'test/fixtures/supervisor-workload.py'), join(ws, 'workload.py'));
      folderOf(user, ws);
      const before = readdirSync(runs).length;
      const server = await startMcp(user, ws, ['--sandbox-backend', 'landlock'], {
        UNIFIED_EXEC_SANDBOX_EXEC: launcher,
      });
      servers.push(server);
      const out = await server.call('python3 workload.py 300 2>&1', { yield_time_ms: 120_000 });
      expect(out, out).toContain('WORKLOAD_DONE');
      expect(out).toMatch(/^GROUP many 300$/m);
      expect(out).toMatch(/^GROUP tmpfile ok ok EACCES ok ok EACCES$/m);
      expect(out).toMatch(/^GROUP long ok ok ok ok ENAMETOOLONG ENAMETOOLONG$/m);
      // Refusals stay refusals under the sanitized build: nothing of a kept name was made or changed.
      const kept = (/^GROUP kept (.*)$/m.exec(out)?.[1] ?? '').split(' ');
      expect(kept.length, out).toBe(10);
      expect(kept, out).not.toContain('ok');
      // A few commands more, each through a launcher of its own (in standby, or not).
      for (const cmd of ['mkdir -p x/y && mv x z && rm -r z', 'touch t && chmod 600 t && rm t', 'ln -s a s && rm s'])
        expect(await server.call(`${cmd} && echo DONE_OK`)).toContain('DONE_OK');
      await server.close();
      servers.length = 0;
      // The server ran the sanitized build (through the wrapper), and no report was written.
      expect(readdirSync(runs).length).toBeGreaterThan(before);
      expect(reportsWritten()).toEqual([]);
    }, 240_000);
  });
});
