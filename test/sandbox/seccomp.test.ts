import { describe, expect, it } from 'vitest';
import {
  ALWAYS_DENIED,
  ENOSYS,
  EPERM,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  seccompInstructions,
  seccompProgram,
  supervisionProgram,
  type SeccompArch,
  type SeccompNetwork,
} from '../../src/sandbox/seccomp.js';
import { runSeccomp } from '../helpers/classic-bpf.js';

const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
const I386 = 0x40000003;
const ALLOW = SECCOMP_RET_ALLOW;
const DENY = SECCOMP_RET_ERRNO | EPERM;

/** Numbers from the kernel's tables (x86_64's unistd_64.h, the generic unistd.h aarch64 uses). */
const NR = {
  x64: {
    read: 0,
    write: 1,
    socket: 41,
    connect: 42,
    accept: 43,
    sendto: 44,
    sendmsg: 46,
    bind: 49,
    listen: 50,
    socketpair: 53,
    clone: 56,
    fork: 57,
    ptrace: 101,
    mount: 165,
    unshare: 272,
    accept4: 288,
    keyctl: 250,
    bpf: 321,
    io_uring_setup: 425,
    clone3: 435,
    iopl: 172,
    reboot: 169,
    setns: 308,
    fsopen: 430,
    chmod: 90,
    fchmod: 91,
    fchmodat: 268,
    openat: 257,
    open: 2,
    creat: 85,
    mknodat: 259,
    openat2: 437,
  },
  arm64: {
    read: 63,
    write: 64,
    socket: 198,
    connect: 203,
    accept: 202,
    sendto: 206,
    sendmsg: 211,
    bind: 200,
    listen: 201,
    socketpair: 199,
    clone: 220,
    fork: undefined,
    ptrace: 117,
    mount: 40,
    unshare: 97,
    accept4: 242,
    keyctl: 219,
    bpf: 280,
    io_uring_setup: 425,
    clone3: 435,
    iopl: undefined,
    reboot: 142,
    setns: 268,
    fsopen: 430,
    chmod: undefined,
    fchmod: 52,
    fchmodat: 53,
    openat: 56,
    open: undefined,
    creat: undefined,
    mknodat: 33,
    openat2: 437,
  },
} as const;

const AF_UNIX = 1n;
const AF_INET = 2n;
const AF_INET6 = 10n;
const AF_NETLINK = 16n;
const SOCK_STREAM = 1n;
const SOCK_DGRAM = 2n;
const SOCK_SEQPACKET = 5n;
const SOCK_NONBLOCK_CLOEXEC = 0o4000n | 0o2000000n;
/** glibc's fork() and pthread_create()'s flags, and `unshare -U`'s way through clone. */
const FORK_FLAGS = 0x01200011n; // CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD
const THREAD_FLAGS = 0x003d0f00n;
const CLONE_NEWUSER = 0x10000000n;
const CLONE_NEWNS = 0x00020000n;

const cases = (['x64', 'arm64'] as const).flatMap((arch) =>
  (['on', 'off', 'none', 'supervised'] as const).map((network) => ({ arch, network })),
);

function decide(arch: SeccompArch, network: SeccompNetwork, name: keyof (typeof NR)['x64'], args: bigint[] = []) {
  const nr = NR[arch][name];
  if (nr === undefined) throw new Error(`${name} is not a syscall on ${arch}`);
  return runSeccomp(seccompProgram(network, arch), { arch: ARCH[arch], nr, args });
}

describe('the seccomp filter', () => {
  describe.each(cases)('on $arch with the network $network', ({ arch, network }) => {
    const program = seccompProgram(network, arch);

    it('is whole sock_filter records, every jump landing inside the program', () => {
      expect(program.length % 8).toBe(0);
      const count = program.length / 8;
      expect(count).toBeLessThan(4096); // BPF_MAXINSNS
      seccompInstructions(network, arch).forEach(({ code, jt, jf }, i) => {
        expect(jt).toBeLessThanOrEqual(255);
        expect(jf).toBeLessThanOrEqual(255);
        if ((code & 0x07) === 0x05) expect(i + 1 + Math.max(jt, jf)).toBeLessThan(count);
      });
      expect(program.readUInt16LE(program.length - 8)).toBe(0x06); // ends in a return
    });

    it('lays each instruction out as u16 code, u8 jt, u8 jf, u32 k, little-endian', () => {
      const first = seccompInstructions(network, arch)[1]!;
      expect(program.readUInt16LE(8)).toBe(first.code);
      expect(program[10]).toBe(first.jt);
      expect(program[11]).toBe(first.jf);
      expect(program.readUInt32LE(12)).toBe(ARCH[arch]);
    });

    it('allows ordinary calls: read, write, fork, threads, ptrace', () => {
      expect(decide(arch, network, 'read')).toBe(ALLOW);
      expect(decide(arch, network, 'write')).toBe(ALLOW);
      expect(decide(arch, network, 'clone', [FORK_FLAGS])).toBe(ALLOW);
      expect(decide(arch, network, 'clone', [THREAD_FLAGS])).toBe(ALLOW);
      expect(decide(arch, network, 'ptrace')).toBe(ALLOW);
      if (arch === 'x64') expect(decide(arch, network, 'fork')).toBe(ALLOW);
    });

    it('denies new namespaces, mounts, keyrings, eBPF, io_uring and reboot', () => {
      for (const name of ['unshare', 'setns', 'mount', 'fsopen', 'keyctl', 'bpf', 'io_uring_setup', 'reboot'] as const)
        expect(decide(arch, network, name), name).toBe(DENY);
      expect(decide(arch, network, 'clone', [FORK_FLAGS | CLONE_NEWUSER])).toBe(DENY);
      expect(decide(arch, network, 'clone', [CLONE_NEWNS | 17n])).toBe(DENY);
      if (arch === 'x64') expect(decide(arch, network, 'iopl')).toBe(DENY);
    });

    it('refuses the set-user-ID and set-group-ID bits, and only them', () => {
      const O_CREAT = 0o100n;
      const O_TMPFILE = 0o20200000n;
      expect(decide(arch, network, 'fchmod', [3n, 0o4755n])).toBe(DENY);
      expect(decide(arch, network, 'fchmod', [3n, 0o2755n])).toBe(DENY);
      expect(decide(arch, network, 'fchmod', [3n, 0o1777n])).toBe(ALLOW); // sticky is harmless
      expect(decide(arch, network, 'fchmodat', [0n, 0x1000n, 0o6755n, 0n])).toBe(DENY);
      expect(decide(arch, network, 'fchmodat', [0n, 0x1000n, 0o755n, 0n])).toBe(ALLOW);
      expect(decide(arch, network, 'openat', [0n, 0x1000n, O_CREAT | 1n, 0o4755n])).toBe(DENY);
      expect(decide(arch, network, 'openat', [0n, 0x1000n, O_TMPFILE | 2n, 0o2755n])).toBe(DENY);
      expect(decide(arch, network, 'openat', [0n, 0x1000n, O_CREAT | 1n, 0o644n])).toBe(ALLOW);
      // Without O_CREAT the mode argument is whatever was left in the register: never looked at.
      expect(decide(arch, network, 'openat', [0n, 0x1000n, 0n, 0o4755n])).toBe(ALLOW);
      expect(decide(arch, network, 'mknodat', [0n, 0x1000n, 0o104755n, 0n])).toBe(DENY);
      expect(decide(arch, network, 'openat2')).toBe(SECCOMP_RET_ERRNO | ENOSYS);
      if (arch === 'x64') {
        expect(decide(arch, network, 'chmod', [0x1000n, 0o4755n])).toBe(DENY);
        expect(decide(arch, network, 'creat', [0x1000n, 0o4755n])).toBe(DENY);
        expect(decide(arch, network, 'open', [0x1000n, O_CREAT, 0o4755n])).toBe(DENY);
        expect(decide(arch, network, 'open', [0x1000n, 0n, 0o4755n])).toBe(ALLOW);
      }
    });

    it('answers clone3 ENOSYS, so libc falls back to clone', () => {
      expect(decide(arch, network, 'clone3')).toBe(SECCOMP_RET_ERRNO | ENOSYS);
    });

    it('denies every call of another architecture', () => {
      expect(runSeccomp(program, { arch: I386, nr: 3 })).toBe(DENY);
      const other = arch === 'x64' ? ARCH.arm64 : ARCH.x64;
      expect(runSeccomp(program, { arch: other, nr: NR[arch].read })).toBe(DENY);
    });

    it('allows socketpairs of streams and seqpackets, and send on a connected socket', () => {
      expect(decide(arch, network, 'socketpair', [AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK_CLOEXEC])).toBe(ALLOW);
      expect(decide(arch, network, 'socketpair', [AF_UNIX, SOCK_SEQPACKET])).toBe(ALLOW);
      expect(decide(arch, network, 'sendto', [3n, 0x1000n, 5n, 0n, 0n, 0n])).toBe(ALLOW);
      expect(decide(arch, network, 'sendmsg')).toBe(ALLOW);
    });
  });

  it.each(['x64', 'arm64'] as const)('on %s denies x32 calls (x86_64), a number no table names (aarch64)', (arch) => {
    const program = seccompProgram('on', arch);
    const x32Read = 0x40000000;
    expect(runSeccomp(program, { arch: ARCH[arch], nr: x32Read })).toBe(
      arch === 'x64' ? DENY : SECCOMP_RET_ERRNO | ENOSYS,
    );
  });

  describe.each(['x64', 'arm64'] as const)('on %s', (arch) => {
    it('with the network on, lets sockets do anything', () => {
      for (const name of ['connect', 'bind', 'listen', 'accept', 'accept4'] as const)
        expect(decide(arch, 'on', name), name).toBe(ALLOW);
      expect(decide(arch, 'on', 'socket', [AF_INET, SOCK_STREAM])).toBe(ALLOW);
      expect(decide(arch, 'on', 'socket', [AF_UNIX, SOCK_DGRAM])).toBe(ALLOW);
      expect(decide(arch, 'on', 'sendto', [3n, 0x1000n, 5n, 0n, 0x2000n, 16n])).toBe(ALLOW);
    });

    it('with the network off, makes IP sockets (its own empty network) and no unix socket', () => {
      expect(decide(arch, 'off', 'socket', [AF_INET, SOCK_STREAM])).toBe(ALLOW);
      expect(decide(arch, 'off', 'socket', [AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK_CLOEXEC])).toBe(ALLOW);
      expect(decide(arch, 'off', 'socket', [AF_UNIX, SOCK_STREAM])).toBe(DENY);
      expect(decide(arch, 'off', 'socket', [AF_UNIX, SOCK_DGRAM])).toBe(DENY);
      expect(decide(arch, 'off', 'socket', [AF_NETLINK, SOCK_DGRAM])).toBe(DENY);
      // Only the int's 32 bits count, as in the kernel: garbage above them changes nothing.
      expect(decide(arch, 'off', 'socket', [AF_INET | (1n << 40n), SOCK_STREAM])).toBe(ALLOW);
      expect(decide(arch, 'off', 'socket', [AF_UNIX | (1n << 40n), SOCK_STREAM])).toBe(DENY);
      // What an IP socket does then stays in the sandbox's network namespace.
      for (const name of ['connect', 'bind', 'listen', 'accept4'] as const)
        expect(decide(arch, 'off', name)).toBe(ALLOW);
    });

    it('with no network at all (the Landlock backend), makes no socket, only stream and seqpacket socketpairs', () => {
      for (const family of [AF_INET, AF_INET6, AF_UNIX, AF_NETLINK])
        expect(decide(arch, 'none', 'socket', [family, SOCK_STREAM]), String(family)).toBe(DENY);
      expect(decide(arch, 'none', 'socket', [AF_INET, SOCK_DGRAM | SOCK_NONBLOCK_CLOEXEC])).toBe(DENY);
      expect(decide(arch, 'none', 'socketpair', [AF_UNIX, SOCK_STREAM])).toBe(ALLOW);
      expect(decide(arch, 'none', 'socketpair', [AF_UNIX, SOCK_DGRAM])).toBe(DENY);
    });

    it('with the network supervised (the Landlock backend, network off), leaves IP sockets to the supervision filter', () => {
      for (const family of [AF_INET, AF_INET6])
        expect(decide(arch, 'supervised', 'socket', [family, SOCK_STREAM]), String(family)).toBe(ALLOW);
      for (const family of [AF_UNIX, AF_NETLINK])
        expect(decide(arch, 'supervised', 'socket', [family, SOCK_DGRAM]), String(family)).toBe(DENY);
      expect(decide(arch, 'supervised', 'socketpair', [AF_UNIX, SOCK_STREAM])).toBe(ALLOW);
      expect(decide(arch, 'supervised', 'socketpair', [AF_UNIX, SOCK_DGRAM])).toBe(DENY);
    });

    it('with the network off, denies datagram socketpairs (sendmsg could name any path)', () => {
      expect(decide(arch, 'off', 'socketpair', [AF_UNIX, SOCK_DGRAM])).toBe(DENY);
      expect(decide(arch, 'off', 'socketpair', [AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK_CLOEXEC])).toBe(DENY);
      expect(decide(arch, 'off', 'socketpair', [AF_INET, SOCK_STREAM])).toBe(DENY);
    });
  });

  it('denies the same list in every mode', () => {
    expect(ALWAYS_DENIED).toEqual(
      expect.arrayContaining(['unshare', 'mount', 'keyctl', 'io_uring_enter', 'kexec_load']),
    );
    expect(ALWAYS_DENIED).not.toContain('ptrace');
  });
});

describe("the Landlock backend's supervision filter", () => {
  const NOTIFY = 0x7fc00000;
  /** Numbers from the kernel's tables, as above. */
  const CALLS = {
    x64: {
      openat: 257,
      mkdirat: 258,
      renameat2: 316,
      fchmod: 91,
      utimensat: 280,
      fsetxattr: 190,
      ioctl: 16,
      umask: 95,
    },
    arm64: { openat: 56, mkdirat: 34, renameat2: 276, fchmod: 52, utimensat: 88, fsetxattr: 7, ioctl: 29, umask: 166 },
  } as const;
  const OTHERS = {
    x64: { prlimit64: 302, setpriority: 141, sched_setaffinity: 203, ioprio_set: 251, read: 0 },
    arm64: { prlimit64: 261, setpriority: 140, sched_setaffinity: 122, ioprio_set: 30, read: 63 },
  } as const;

  for (const arch of ['x64', 'arm64'] as const) {
    const program = supervisionProgram(arch);
    const run = (nr: number, ...args: number[]) =>
      runSeccomp(program, { nr, arch: ARCH[arch], args: args.map((a) => BigInt(a)) });
    const nr = CALLS[arch];
    const other = OTHERS[arch];

    it(`${arch}: sends what makes, writes or changes metadata to the supervisor; plain reads go straight`, () => {
      expect(run(nr.openat, -100, 0, 0 /* O_RDONLY */)).toBe(ALLOW);
      expect(run(nr.openat, -100, 0, 0o2000000 /* O_CLOEXEC */)).toBe(ALLOW);
      for (const flags of [0o1, 0o2, 0o100, 0o1000, 0o20200000]) expect(run(nr.openat, -100, 0, flags)).toBe(NOTIFY);
      for (const call of [nr.mkdirat, nr.renameat2, nr.fchmod, nr.utimensat, nr.fsetxattr])
        expect(run(call)).toBe(NOTIFY);
      expect(run(nr.ioctl, 1, 0x40086602 /* FS_IOC_SETFLAGS */)).toBe(NOTIFY);
      expect(run(nr.ioctl, 1, 0x401c5820 /* FS_IOC_FSSETXATTR */)).toBe(NOTIFY);
      expect(run(nr.ioctl, 1, 0x5401 /* TCGETS */)).toBe(ALLOW);
      expect(run(other.read, 0, 0, 0)).toBe(ALLOW);
      // Let go on by the supervisor, which forgets the umasks it kept.
      expect(run(nr.umask, 0o22)).toBe(NOTIFY);
    });

    it(`${arch}: refuses the ioctls that set an encryption policy, fscrypt keys or fs-verity, through any fd`, () => {
      // Landlock has no right for them: a folder outside the roots that a root server's command owns took them.
      for (const request of [0x800c6613, 0x400c6613, 0xc0506617, 0xc0406618, 0xc0406619, 0x40806685])
        expect(run(nr.ioctl, 3, request), request.toString(16)).toBe(DENY);
      for (const request of [0, 0x5401 /* TCGETS */, 0x80086601 /* FS_IOC_GETFLAGS */, 0x6614, 0x6685_0000])
        expect(run(nr.ioctl, 3, request), request.toString(16)).toBe(ALLOW);
      expect(run(nr.ioctl, 3, 0x40086602 /* FS_IOC_SETFLAGS */)).toBe(NOTIFY);
    });

    it(`${arch}: keeps limits, priority and scheduling to the caller`, () => {
      expect(run(other.prlimit64, 0)).toBe(ALLOW);
      expect(run(other.prlimit64, 4242)).toBe(DENY);
      expect(run(other.sched_setaffinity, 0)).toBe(ALLOW);
      expect(run(other.sched_setaffinity, 4242)).toBe(DENY);
      expect(run(other.setpriority, 0 /* PRIO_PROCESS */, 0)).toBe(ALLOW);
      expect(run(other.setpriority, 0, 4242)).toBe(DENY);
      expect(run(other.setpriority, 2 /* PRIO_USER: every process of the user */, 0)).toBe(DENY);
      expect(run(other.ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0)).toBe(ALLOW);
      expect(run(other.ioprio_set, 3 /* IOPRIO_WHO_USER */, 0)).toBe(DENY);
    });

    it(`${arch}: refuses another architecture's calls`, () => {
      expect(runSeccomp(program, { nr: nr.openat, arch: I386 })).toBe(DENY);
    });

    it(`${arch}: sends IP sockets to the supervisor only when made with sockets`, () => {
      const socket = NR[arch].socket;
      const withSockets = supervisionProgram(arch, true);
      for (const family of [AF_INET, AF_INET6]) {
        expect(runSeccomp(program, { nr: socket, arch: ARCH[arch], args: [family, SOCK_STREAM] })).toBe(ALLOW);
        expect(runSeccomp(withSockets, { nr: socket, arch: ARCH[arch], args: [family, SOCK_DGRAM] })).toBe(NOTIFY);
      }
      for (const family of [AF_UNIX, AF_NETLINK])
        expect(runSeccomp(withSockets, { nr: socket, arch: ARCH[arch], args: [family, SOCK_STREAM] })).toBe(ALLOW);
      // The rest is as without: a write still goes to the supervisor, a read straight on.
      const on = (nr: number, ...args: bigint[]) => runSeccomp(withSockets, { nr, arch: ARCH[arch], args });
      expect(on(nr.openat, -100n, 0n, 0o1n)).toBe(NOTIFY);
      expect(on(other.read, 0n, 0n, 0n)).toBe(ALLOW);
    });

    it(`${arch}: beside the policy's filter, the supervisor gets IP sockets with the network supervised, never with none`, () => {
      // The kernel takes the strictest answer of all the filters: an ERRNO beats a USER_NOTIF.
      const strictest = (network: SeccompNetwork, family: bigint) => {
        const data = { nr: NR[arch].socket, arch: ARCH[arch], args: [family, SOCK_STREAM] };
        const answers = [
          runSeccomp(seccompProgram(network, arch), data),
          runSeccomp(supervisionProgram(arch, true), data),
        ];
        return answers.find((a) => a === DENY) ?? answers.find((a) => a === NOTIFY) ?? ALLOW;
      };
      expect(strictest('supervised', AF_INET)).toBe(NOTIFY);
      expect(strictest('supervised', AF_INET6)).toBe(NOTIFY);
      expect(strictest('supervised', AF_UNIX)).toBe(DENY);
      expect(strictest('supervised', AF_NETLINK)).toBe(DENY);
      expect(strictest('none', AF_INET)).toBe(DENY);
    });
  }
});
