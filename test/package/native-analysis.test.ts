// The native code's hardening and static analysis (docs/development.md): gcc's -fanalyzer over every C file of native/,
// with the flags the prebuilds are built with, warns of nothing; and `npm run build:native` (binding.gyp) builds with
// those flags too.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { missingTools, titled } from '../helpers/needs.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const NATIVE = join(ROOT, 'native');
const NO_GCC = missingTools('gcc');
/** The addon includes Node's node_api.h, shipped with Node's own builds (as scripts/prebuild.sh finds it). */
const NODE_INCLUDE = join(dirname(dirname(realpathSync(process.execPath))), 'include/node');
const work = mkdtempSync(join(tmpdir(), 'unified-exec-analysis-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The warning and hardening flags of scripts/prebuild.sh. */
const buildFlags = () =>
  execFileSync(join(ROOT, 'scripts/prebuild.sh'), ['--flags'], { encoding: 'utf8' }).trim().split('\n');

/**
 * What gcc -fanalyzer says of `file` compiled as the prebuilds are (the build's flags, -O2) and unoptimised (-O0, where
 * no inlining hides a path, and _FORTIFY_SOURCE, which needs optimising, is left out); '' for nothing.
 */
async function analyze(file: string): Promise<string> {
  const run = async (level: string) => {
    const flags = buildFlags().filter((flag) => level !== '-O0' || !flag.startsWith('-D_FORTIFY_SOURCE'));
    const args = [
      level,
      ...flags,
      '-fanalyzer',
      `-I${NODE_INCLUDE}`,
      '-DNAPI_VERSION=8',
      '-c',
      file,
      '-o',
      '/dev/null',
    ];
    try {
      return (await promisify(execFile)('gcc', args, { cwd: ROOT })).stderr;
    } catch (error) {
      return String((error as { stderr?: string }).stderr ?? error);
    }
  };
  return (await Promise.all([run('-O2'), run('-O0')])).join('');
}

describe('native/', () => {
  it('is built by binding.gyp with the flags scripts/prebuild.sh builds the prebuilds with', () => {
    const gyp = JSON.parse(readFileSync(join(ROOT, 'binding.gyp'), 'utf8')) as {
      targets: { target_name: string; cflags: string[]; ldflags: string[] }[];
    };
    expect(buildFlags()).toEqual(expect.arrayContaining(['-D_FORTIFY_SOURCE=3', '-Werror=switch-default']));
    for (const target of gyp.targets) {
      expect(target.cflags, target.target_name).toEqual(expect.arrayContaining(buildFlags()));
      expect(target.ldflags, target.target_name).toContain('-Wl,-z,relro,-z,now');
    }
  });

  it.skipIf(NO_GCC !== undefined)(
    titled("has nothing gcc's static analyzer (-fanalyzer) warns of, in any of its C files", NO_GCC),
    async () => {
      // The analyzer at work: a leak it must see, analysed the same way.
      const leak = join(work, 'leak.c');
      writeFileSync(
        leak,
        '#include <stdlib.h>\nint f(int n) { char *p = malloc(n); if (!p) return -1; p[0] = (char)n;\n' +
          '  if (n > 3) return p[0]; free(p); return 0; }\n',
      );
      const files = readdirSync(NATIVE).filter((name) => name.endsWith('.c'));
      expect(files).toEqual(expect.arrayContaining(['sandbox-exec.c', 'supervisor.c', 'decide.c', 'unified-exec.c']));
      const [caught, ...found] = await Promise.all([analyze(leak), ...files.map((name) => analyze(`native/${name}`))]);
      expect(caught).toMatch(/analyzer-malloc-leak/);
      expect(Object.fromEntries(files.map((name, i) => [name, found[i]]))).toEqual(
        Object.fromEntries(files.map((name) => [name, ''])),
      );
    },
    180_000,
  );
});
