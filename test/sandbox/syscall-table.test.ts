// The sandbox's filter against the kernel's own tables: every call the C library's headers number for x86_64 and
// aarch64 is named in syscall-table.ts with the same number, and the filter answers each named one by name
// (allowed, denied or sent on), and ENOSYS to every number no table names.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import {
  ALWAYS_DENIED,
  ANSWERED_ENOSYS,
  ENOSYS,
  SECCOMP_RET_ERRNO,
  seccompProgram,
  type SeccompArch,
  type SeccompNetwork,
} from '../../src/sandbox/seccomp.js';
import { knownRanges, syscallNames, syscallNumber } from '../../src/sandbox/syscall-table.js';
import { runSeccomp } from '../helpers/classic-bpf.js';
import { missingTools, titled } from '../helpers/needs.js';

const AUDIT_ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
const COMPILERS: Record<SeccompArch, string> = { x64: 'gcc', arm64: 'aarch64-linux-gnu-gcc' };
const UNKNOWN = SECCOMP_RET_ERRNO | ENOSYS;
const NETWORKS: readonly SeccompNetwork[] = ['on', 'off', 'none', 'supervised'];

/**
 * `__NR_<name>` → number as `compiler`'s <asm/unistd.h> defines them: the names first (-dM), then each one's value
 * through the preprocessor (aarch64's are macros of macros, __NR3264_fstatat and the like).
 */
function headerTable(compiler: string): Map<string, number> {
  const defines = execFileSync(compiler, ['-E', '-dM', '-'], { input: '#include <asm/unistd.h>\n' }).toString();
  // Not calls: the table's size, and the start of a range some architectures fill with calls of their own.
  const names = [...defines.matchAll(/^#define __NR_(\w+) /gm)]
    .map((m) => m[1]!)
    .filter((name) => name !== 'syscalls' && name !== 'arch_specific_syscall');
  const source = ['#include <asm/unistd.h>', ...names.map((name) => `VALUE ${name} __NR_${name}`)].join('\n');
  const values = execFileSync(compiler, ['-E', '-P', '-'], { input: `${source}\n` }).toString();
  return new Map([...values.matchAll(/^VALUE (\w+) (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
}

const answer = (arch: SeccompArch, network: SeccompNetwork, nr: number) =>
  runSeccomp(seccompProgram(network, arch), { nr, arch: AUDIT_ARCH[arch], args: [] });

describe.each(['x64', 'arm64'] as const)('the system calls of %s', (arch) => {
  const missing = missingTools(COMPILERS[arch]);

  it.skipIf(missing !== undefined)(
    titled("are named with the kernel headers' numbers, every one of them", missing),
    () => {
      const headers = headerTable(COMPILERS[arch]);
      expect(headers.size).toBeGreaterThan(arch === 'x64' ? 350 : 290);
      const differ = [...headers].filter(([name, nr]) => syscallNumber(arch, name) !== nr);
      expect(differ, 'named otherwise in syscall-table.ts').toEqual([]);
    },
  );

  it('are all answered by name: none falls to the answer for an unknown number', () => {
    const byName = new Set([...ANSWERED_ENOSYS, 'clone3', 'openat2']); // ENOSYS on purpose, so programs fall back
    for (const network of NETWORKS)
      for (const name of syscallNames(arch)) {
        if (byName.has(name)) continue;
        expect(answer(arch, network, syscallNumber(arch, name)!), `${name} (${network})`).not.toBe(UNKNOWN);
      }
  });

  it('answer ENOSYS to every number no table names: the gaps, and past the newest call', () => {
    const known = (nr: number) => knownRanges(arch).some(([low, high]) => nr >= low && nr <= high);
    const last = knownRanges(arch).at(-1)![1];
    expect(last).toBeGreaterThanOrEqual(469); // file_setattr, Linux 6.17
    for (const network of NETWORKS)
      for (let nr = 0; nr < 2048; nr++)
        if (!known(nr)) expect(answer(arch, network, nr), `${nr} (${network})`).toBe(UNKNOWN);
    expect(answer(arch, 'none', 0x3fffffff)).toBe(UNKNOWN);
  });

  it('deny the calls of every list by name, each of them known', () => {
    for (const name of [...ALWAYS_DENIED, ...ANSWERED_ENOSYS])
      expect(syscallNumber('x64', name) ?? syscallNumber('arm64', name), name).toBeDefined();
    for (const name of ANSWERED_ENOSYS) expect(answer(arch, 'on', syscallNumber(arch, name)!), name).toBe(UNKNOWN);
    expect(answer(arch, 'on', syscallNumber(arch, 'open_tree_attr')!)).toBe(SECCOMP_RET_ERRNO | 1);
  });
});
