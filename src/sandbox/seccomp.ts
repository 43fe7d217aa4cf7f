/**
 * The seccomp filter every sandboxed command runs under, as a classic BPF program (what `seccomp(2)` takes). Pure:
 * it builds bytes; native/sandbox-exec.c installs them.
 *
 * Every mode denies what no workload needs and that widens the kernel's surface (new namespaces, mounts, keyrings,
 * eBPF, io_uring, modules, the clock, …). With the network off, a command also cannot reach a unix socket on the
 * file system (an ssh-agent, a Docker socket): the network namespace does not cover those.
 */
import { knownRanges, syscallNumber, type SeccompArch } from './syscall-table.js';

/**
 * What the filter lets sockets do. `on`: anything. `off`: IP sockets, which can only reach the sandbox's own empty
 * network namespace (a test server on its loopback works; with the domain allowlist, the bridge to the proxy is
 * there), and no unix socket but socketpairs: the network namespace does not cover the sockets on the file system.
 * `none`: no socket() at all, socketpairs only (the Landlock backend, which has no network namespace: an IP socket
 * would reach the host's network). `supervised`: as `none`, but socket() of an IP family is let through to the Landlock
 * backend's supervision filter made with `sockets` (supervisionProgram), which sends it to the supervisor: it refuses
 * it (EPERM) itself and records that it did. Only ever installed beside that filter.
 */
export type SeccompNetwork = 'on' | 'off' | 'none' | 'supervised';

/** The architectures we build for (syscall-table.ts names them: the table is pure data and imports nothing of ours). */
export type { SeccompArch };

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** x32 system calls on x86_64 carry this bit in their number: another ABI, denied as a whole. */
const X32_SYSCALL_BIT = 0x40000000;

/**
 * Denied outright in every mode, EPERM (clone and clone3 are handled apart). Each name is looked up in the kernel's
 * tables (syscall-table.ts); one an architecture lacks is skipped there.
 */
export const ALWAYS_DENIED: readonly string[] = [
  // New namespaces and mounts: the sandbox has made its own; a command needs no more.
  'unshare',
  'setns',
  'mount',
  'umount2',
  'pivot_root',
  'open_tree',
  'open_tree_attr',
  'move_mount',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'mount_setattr',
  // Kernel keyrings are not namespaced by our sandbox: a command could read or plant the user's keys.
  'keyctl',
  'add_key',
  'request_key',
  // Large kernel surfaces no build or test needs.
  'bpf',
  'perf_event_open',
  'userfaultfd',
  // io_uring runs socket operations (connect among them) without the system calls this filter sees.
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  // Docker's default profile denies these too: the machine's, not a command's.
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'create_module',
  'get_kernel_syms',
  'query_module',
  'open_by_handle_at',
  'name_to_handle_at',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'syslog',
  'quotactl',
  'quotactl_fd',
  'iopl',
  'ioperm',
  'lookup_dcookie',
  'vhangup',
  'nfsservctl',
  'sethostname',
  'setdomainname',
  'uselib',
  'ustat',
  'sysfs',
  '_sysctl',
];

/**
 * Answered ENOSYS in every mode, as by a kernel without them, so that programs fall back to the older calls this
 * filter and the Landlock supervisor read: file_setattr sets inode flags by path (the supervisor answers the ioctl
 * that does the same by fd), setxattrat and removexattrat change extended attributes (setxattr and removexattr are
 * answered). Their arguments lie behind pointers a filter cannot read.
 */
export const ANSWERED_ENOSYS: readonly string[] = ['file_setattr', 'setxattrat', 'removexattrat'];

/**
 * Calls that set a file's mode, by the argument holding it, and for opens the argument holding the flags (the mode
 * counts only with O_CREAT or O_TMPFILE). A sandboxed command must not leave a set-user-ID or set-group-ID program
 * behind in a writable root: run later by anyone outside, it would run as the server's user, which for a root
 * server is root. (The sandbox mounts carry nosuid only inside it; the bit stays on the file.)
 */
const SET_ID_CALLS: Record<string, { mode: number; flags?: number }> = {
  chmod: { mode: 1 },
  fchmod: { mode: 1 },
  fchmodat: { mode: 2 },
  fchmodat2: { mode: 2 },
  mknod: { mode: 1 },
  mknodat: { mode: 2 },
  creat: { mode: 1 },
  open: { mode: 2, flags: 1 },
  openat: { mode: 3, flags: 2 },
};

/** Answers of a filter (`SECCOMP_RET_*`), and the errnos we answer with (the same numbers on both architectures). */
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

const AF_UNIX = 1;
const AF_INET = 2;
const AF_INET6 = 10;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
const SOCK_NONBLOCK = 0o4000;
const SOCK_CLOEXEC = 0o2000000;
const S_ISUID_ISGID = 0o6000;
/** O_CREAT, and O_TMPFILE's own bit (the same numbers on x86_64 and aarch64). */
const O_CREAT_OR_TMPFILE = 0o100 | 0o20000000;
/** CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (CLONE_NEWTIME is clone3 and unshare only). */
const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

/** Offsets into `struct seccomp_data`: nr (u32), arch (u32), instruction_pointer (u64), args (6 × u64). */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of argument `i` (little-endian on both architectures): all an int argument is. */
const argLow = (i: number) => 16 + 8 * i;

/**
 * The opcodes we use: BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K (and JGT, JGE), BPF_JMP|BPF_JSET|BPF_K,
 * BPF_ALU|BPF_AND|BPF_K, BPF_RET|BPF_K.
 */
const BPF = { LD_ABS: 0x20, JEQ: 0x15, JGT: 0x25, JGE: 0x35, JSET: 0x45, AND: 0x54, RET: 0x06 } as const;

export interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const ld = (offset: number): Instruction => ({ code: BPF.LD_ABS, jt: 0, jf: 0, k: offset });
const jeq = (k: number, jt: number, jf: number): Instruction => ({ code: BPF.JEQ, jt, jf, k });
const jset = (k: number, jt: number, jf: number): Instruction => ({ code: BPF.JSET, jt, jf, k });
const jgt = (k: number, jt: number, jf: number): Instruction => ({ code: BPF.JGT, jt, jf, k });
const jge = (k: number, jt: number, jf: number): Instruction => ({ code: BPF.JGE, jt, jf, k });
const and = (k: number): Instruction => ({ code: BPF.AND, jt: 0, jf: 0, k });
const ret = (k: number): Instruction => ({ code: BPF.RET, jt: 0, jf: 0, k });
const deny = (errno = EPERM) => ret(SECCOMP_RET_ERRNO | errno);

/**
 * One rule on syscall `nr`: if A holds `nr`, run `body`, which either returns or falls off its end; then A is `nr`
 * again for the next rule. Each rule jumps only within itself, by at most its own length, so no jump can outgrow
 * the 255 a jt/jf byte holds however many rules there are.
 */
function rule(nr: number, body: Instruction[]): Instruction[] {
  const block = [...body, ld(NR)];
  if (block.length > 255) throw new Error('a seccomp rule is too long to jump over');
  return [jeq(nr, 0, block.length), ...block];
}

/** Deny `nr` with `errno`. */
const denyCall = (nr: number, errno = EPERM) => [jeq(nr, 0, 1), deny(errno)];

/** clone with any CLONE_NEW* flag is denied; fork, vfork and threads (clone without them) go on. */
const cloneRule = (nr: number) => rule(nr, [ld(argLow(0)), jset(CLONE_NEW_FLAGS, 0, 1), deny()]);

/**
 * socket() with the network off: IP sockets only. No unix socket: connect, bind and sendto name their address
 * behind a pointer seccomp cannot read, so a unix socket could reach any socket on the file system (an ssh-agent,
 * Docker's); an IP socket reaches only the sandbox's own network namespace, with nothing in it but what the command
 * starts there.
 */
const socketRule = (nr: number) => rule(nr, [ld(argLow(0)), jeq(AF_INET, 2, 0), jeq(AF_INET6, 1, 0), deny()]);

/**
 * socketpair(): AF_UNIX streams and seqpackets. Not datagrams: a datagram socket, connected or not, sends to any
 * path named in sendmsg's msg_name (`/dev/log`, a notify socket), and seccomp cannot read msg_name. A stream or
 * seqpacket socket refuses msg_name, and socket() makes no unix socket at all, so sendmsg and sendmmsg stay
 * allowed: fd passing (SCM_RIGHTS) over a socketpair keeps working.
 */
const socketpairRule = (nr: number) =>
  rule(nr, [
    ld(argLow(0)),
    jeq(AF_UNIX, 0, 4), // not AF_UNIX: deny
    ld(argLow(1)),
    and(~(SOCK_NONBLOCK | SOCK_CLOEXEC) >>> 0),
    jeq(SOCK_STREAM, 2, 0),
    jeq(SOCK_SEQPACKET, 1, 0),
    deny(),
  ]);

/** A mode with the set-user-ID or set-group-ID bit is refused (for an open, only when it creates the file). */
function setIdRule(nr: number, args: { mode: number; flags?: number }): Instruction[] {
  const modeCheck = [ld(argLow(args.mode)), jset(S_ISUID_ISGID, 0, 1), deny()];
  if (args.flags === undefined) return rule(nr, modeCheck);
  return rule(nr, [ld(argLow(args.flags)), jset(O_CREAT_OR_TMPFILE, 0, modeCheck.length), ...modeCheck]);
}

/** The filter for `network` on `arch` (default: this process's), as instructions. */
export function seccompInstructions(network: SeccompNetwork, arch: SeccompArch = hostArch()): Instruction[] {
  const nr = (name: string) => syscallNumber(arch, name);
  const program: Instruction[] = [ld(ARCH), jeq(AUDIT_ARCH[arch], 1, 0), deny(), ld(NR)];
  if (arch === 'x64') program.push(jset(X32_SYSCALL_BIT, 0, 1), deny());
  for (const name of ALWAYS_DENIED) {
    const number = nr(name);
    if (number !== undefined) program.push(...denyCall(number));
  }
  program.push(...cloneRule(nr('clone')!));
  // ENOSYS, not EPERM: libc then falls back to clone, whose flags we can read (clone3's are behind a pointer).
  program.push(...denyCall(nr('clone3')!, ENOSYS));
  for (const [name, args] of Object.entries(SET_ID_CALLS)) {
    const number = nr(name);
    if (number !== undefined) program.push(...setIdRule(number, args));
  }
  // openat2's mode is behind a pointer too; ENOSYS makes libc and runtimes use openat.
  program.push(...denyCall(nr('openat2')!, ENOSYS));
  if (network === 'off') program.push(...socketRule(nr('socket')!), ...socketpairRule(nr('socketpair')!));
  if (network === 'none') program.push(...denyCall(nr('socket')!), ...socketpairRule(nr('socketpair')!));
  // The same rule as `off`, for another reason: the supervision filter beside it answers USER_NOTIF for IP sockets,
  // which an ERRNO from this filter would override (the kernel takes the strictest answer of all filters).
  if (network === 'supervised') program.push(...socketRule(nr('socket')!), ...socketpairRule(nr('socketpair')!));
  for (const name of ANSWERED_ENOSYS) program.push(...denyCall(nr(name)!, ENOSYS));
  program.push(...knownOnly(arch));
  return program;
}

/**
 * The filter's end, with A holding the call's number: allowed when `arch`'s table names it (what no rule before
 * refused), ENOSYS otherwise. A number past the table is a call a newer kernel added: refused until it is named,
 * the answer runc gives calls newer than its profile, so that programs fall back to an older one.
 */
function knownOnly(arch: SeccompArch): Instruction[] {
  const ranges = knownRanges(arch);
  const tail: Instruction[] = [];
  ranges.forEach(([low, high], i) => {
    const left = 2 * (ranges.length - i); // instructions from this range's first to the ENOSYS return
    tail.push(jge(low, 0, left - 1), jgt(high, 0, left - 1));
  });
  tail.push(deny(ENOSYS), ret(SECCOMP_RET_ALLOW));
  return tail;
}

/** The filter as the kernel takes it: `struct sock_filter` (u16 code, u8 jt, u8 jf, u32 k), little-endian. */
export function seccompProgram(network: SeccompNetwork, arch: SeccompArch = hostArch()): Buffer {
  return encode(seccompInstructions(network, arch));
}

/**
 * The Landlock backend's supervisor's filter (supervisionInstructions), as the kernel takes it; with `sockets`, it
 * also sends socket() of an IP family to the supervisor (with the network off: see SeccompNetwork's `supervised`).
 */
export function supervisionProgram(arch: SeccompArch = hostArch(), sockets = false): Buffer {
  return encode(supervisionInstructions(arch, sockets));
}

function encode(instructions: readonly Instruction[]): Buffer {
  const bytes = Buffer.alloc(instructions.length * 8);
  instructions.forEach(({ code, jt, jf, k }, i) => {
    bytes.writeUInt16LE(code, i * 8);
    bytes.writeUInt8(jt, i * 8 + 2);
    bytes.writeUInt8(jf, i * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return bytes;
}

const SECCOMP_RET_USER_NOTIF = 0x7fc00000;

/**
 * Calls the Landlock backend's supervisor (native/supervisor.c) answers: those that make, remove, rename or link an
 * entry, open a file for writing or making, or change metadata; and umask, which it lets go on. Landlock alone cannot let a command make files at
 * the top of a root whose kept names must stay read-only, and has no right for metadata at all.
 */
const SUPERVISED_CALLS: readonly string[] = [
  'open',
  'creat',
  'openat',
  'mkdir',
  'mkdirat',
  'mknod',
  'mknodat',
  'unlink',
  'rmdir',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'truncate',
  'chmod',
  'fchmod',
  'fchmodat',
  'fchmodat2',
  'chown',
  'lchown',
  'fchown',
  'fchownat',
  'utime',
  'utimes',
  'futimesat',
  'utimensat',
  'setxattr',
  'lsetxattr',
  'fsetxattr',
  'removexattr',
  'lremovexattr',
  'fremovexattr',
  'setxattrat',
  'removexattrat',
  'file_setattr', // answered ENOSYS by the policy's filter first (ANSWERED_ENOSYS), and by the supervisor
  'ioctl',
  // Not a change the supervisor checks: it keeps each caller's umask (read from /proc, which costs more than the rest
  // of making a file), and forgets them when one changes.
  'umask',
];

/** An open reaches the supervisor only with one of these flags: reading goes straight to the domain. */
const O_WRITE_OR_MAKE = 0o1 | 0o2 | 0o100 | 0o1000 | 0o20000000; // O_WRONLY O_RDWR O_CREAT O_TRUNC O_TMPFILE
/** An open's flags argument. */
const OPEN_FLAGS: Record<string, number> = { open: 1, openat: 2 };
/**
 * The ioctls that change an inode's metadata through any fd, even one opened for reading: FS_IOC_SETFLAGS (chattr)
 * and its 32-bit form, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION and its 32-bit form.
 */
const SET_FLAGS_IOCTLS = [0x40086602, 0x40046602, 0x401c5820, 0x40087602, 0x40047602];
/**
 * ioctls that change a file or its file system beyond its flags and that the supervisor does not answer, refused
 * (EPERM) through any fd: an encryption policy set on a folder, fscrypt keys added or removed, fs-verity enabled on
 * a file (each by type 'f' and number, whatever the size its direction bits carry). A folder or file outside the
 * writable roots that a root server's command owns would otherwise take them: Landlock has no right for them.
 */
const REFUSED_IOCTLS = [0x6613, 0x6617, 0x6618, 0x6619, 0x6685];

/**
 * Calls that reach other processes by pid and that neither Landlock nor the sandbox's credentials stop for a
 * process of the same user: limits (prlimit64, which `prlimit --pid` uses), priority and scheduling. Each is allowed
 * on the caller only (pid 0); setpriority and ioprio_set only for the calling process (`which` 0, resp. 1).
 */
const SELF_ONLY: Record<string, { pid: number; which?: [number, number] }> = {
  prlimit64: { pid: 0 },
  sched_setaffinity: { pid: 0 },
  sched_setscheduler: { pid: 0 },
  sched_setparam: { pid: 0 },
  sched_setattr: { pid: 0 },
  setpriority: { pid: 1, which: [0, 0] }, // PRIO_PROCESS
  ioprio_set: { pid: 1, which: [0, 1] }, // IOPRIO_WHO_PROCESS
};

/**
 * The Landlock backend's second filter: SECCOMP_RET_USER_NOTIF for SUPERVISED_CALLS (opens only when they write or
 * make, ioctl only to set inode flags), EPERM for SELF_ONLY calls aimed at another process, everything else allowed
 * (the policy's filter, installed beside it, denies what it denies). With `sockets`, socket() of AF_INET or AF_INET6
 * too: the supervisor refuses it and records the refusal, so the server can tell the model why a command that
 * prints nothing gets nowhere.
 */
function supervisionInstructions(arch: SeccompArch, sockets: boolean): Instruction[] {
  const notify = ret(SECCOMP_RET_USER_NOTIF);
  const program: Instruction[] = [ld(ARCH), jeq(AUDIT_ARCH[arch], 1, 0), deny(), ld(NR)];
  if (sockets)
    program.push(
      ...rule(syscallNumber(arch, 'socket')!, [ld(argLow(0)), jeq(AF_INET, 1, 0), jeq(AF_INET6, 0, 1), notify]),
    );
  for (const name of SUPERVISED_CALLS) {
    const nr = syscallNumber(arch, name);
    if (nr === undefined) continue;
    const flags = OPEN_FLAGS[name];
    if (flags !== undefined) program.push(...rule(nr, [ld(argLow(flags)), jset(O_WRITE_OR_MAKE, 0, 1), notify]));
    else if (name === 'ioctl')
      program.push(
        ...rule(nr, [
          ld(argLow(1)),
          and(0xffff),
          // Each match jumps to the refusal after the last; the last one's miss jumps over it.
          ...REFUSED_IOCTLS.map((request, i, all) =>
            i < all.length - 1 ? jeq(request, all.length - 1 - i, 0) : jeq(request, 0, 1),
          ),
          deny(),
          ld(argLow(1)),
          ...SET_FLAGS_IOCTLS.map((request, i) => jeq(request, SET_FLAGS_IOCTLS.length - i, 0)),
          ret(SECCOMP_RET_ALLOW),
          notify,
        ]),
      );
    else program.push(jeq(nr, 0, 1), notify);
  }
  for (const [name, { pid, which }] of Object.entries(SELF_ONLY)) {
    const nr = syscallNumber(arch, name);
    if (nr === undefined) continue;
    const pidCheck = [ld(argLow(pid)), jeq(0, 1, 0), deny()];
    if (which === undefined) program.push(...rule(nr, pidCheck));
    else program.push(...rule(nr, [ld(argLow(which[0])), jeq(which[1], 1, 0), deny(), ...pidCheck]));
  }
  program.push(ret(SECCOMP_RET_ALLOW));
  return program;
}

/** This process's architecture, when we have a filter for it. */
function hostArch(): SeccompArch {
  if (process.arch === 'x64' || process.arch === 'arm64') return process.arch;
  throw new Error(`the sandbox's seccomp filter supports x86_64 and aarch64, not ${process.arch}`);
}
