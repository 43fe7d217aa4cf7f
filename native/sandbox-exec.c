/*
 * unified-exec-sandbox-exec: the first and the last step of the sandbox.
 *
 * Before bubblewrap:
 *
 *   unified-exec-sandbox-exec --seccomp-fd N <base64 BPF program> [--read-only-devices] -- bwrap ... --seccomp N ...
 *
 * puts the program in a memory file at fd N (not close-on-exec) and execvp()s bubblewrap, which installs it on every
 * process of the sandbox, its own init included (the server spawns through a terminal and cannot hand fds on).
 * With --read-only-devices (a root server) it first takes a mount namespace of its own, where the device nodes
 * bubblewrap's --dev binds from the host are read-only binds of themselves (see read_only_devices).
 *
 * Inside bubblewrap, the last step:
 *
 *   unified-exec-sandbox-exec [--seccomp <base64 BPF program>] -- command args...
 *
 * sets no_new_privs, enters a Landlock domain of its own where the kernel has Landlock (it restricts no file access:
 * what it adds is that a process in the domain can trace or open the memory of only processes in the same domain or
 * one nested in it, so the command cannot take over a less restricted process of the sandbox, bubblewrap's init or
 * the allowlist's bridge), installs the seccomp filter when one is given (src/sandbox/seccomp.ts builds them), then
 * execvp()s the command. Filters and domains stack: running it again adds a second one, and both apply.
 *
 * The sandbox without bubblewrap (the Landlock backend, where user namespaces are off or bubblewrap is missing):
 *
 *   unified-exec-sandbox-exec [--args-file FILE] --landlock [--tree DIR]... [--file FILE]... [--read-tree DIR]... [--read-file FILE]...
 *                             [--no-network] [--seccomp B64]
 *                             [--supervise B64 [--root DIR]... [--keep-out DIR]... [--kept-name NAME]...
 *                              [--network-refusals FILE]]
 *                             -- command args...
 *
 * drops every capability (a root server's command is uid 0 without privileges, and stays so across exec), sets
 * no_new_privs, enters a Landlock domain (see enter_write_domain), installs the filter and execs the command. With
 * --supervise it starts a child first (in its memory until the exec): the child does the above under the supervision
 * filter too, and this process stays outside the domain as its supervisor (supervisor.c).
 *
 * Any of these may start with `--cgroup DIR` (a cgroup v2 folder): the launcher moves itself there before anything
 * else, so every socket the sandbox makes is made in that cgroup, which the kernel keeps on the socket whoever holds it
 * later (src/linux/sandbox-cgroup.ts: the server's listeners refuse a connection whose other end was made there).
 *
 *   unified-exec-sandbox-exec --standby FD
 *
 * is the same launcher started before its command is known (the server keeps one ready, so a command's start does not
 * wait for a process to be made and this one to be loaded): it waits for the options above through FD, followed by
 * what its spawner would otherwise have set, `--cwd DIR`, `--env NAME=VALUE` for each variable of the command's
 * environment (the launcher's own is the one it was started with), `--null-stdin` or `--tty PATH` (a terminal the
 * server made, see take_terminal), and then `--` and the command.
 *
 * A path that does not exist (any more) is skipped. Errors go to stderr in one line; the exit status is a shell's: 127
 * when the command is not found, 126 when it cannot run, 125 for our own usage or setup errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/statvfs.h>
#include <termios.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "supervisor.h"

/* Landlock's interface, written out so that old kernel headers build too (the numbers are the same everywhere). */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_ACCESS_FS_EXECUTE (1ULL << 0)
#define LL_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LL_ACCESS_FS_READ_FILE (1ULL << 2)
#define LL_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LL_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LL_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LL_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LL_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LL_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LL_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LL_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LL_ACCESS_FS_MAKE_SYM (1ULL << 12)
#define LL_ACCESS_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_ACCESS_NET_BIND_TCP (1ULL << 0) /* ABI 4 */
#define LL_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define LL_RULE_PATH_BENEATH 1
/* The ruleset's attributes as of ABI 6; older kernels are given only the fields they know (by size). */
struct ll_ruleset_attr {
  unsigned long long handled_access_fs;
  unsigned long long handled_access_net;
  unsigned long long scoped;
};
struct ll_path_beneath_attr {
  unsigned long long allowed_access;
  int parent_fd;
} __attribute__((packed));

#define NAME "unified-exec-sandbox-exec"
#define EXIT_SETUP 125

static int fail(const char *what, int err) {
  fprintf(stderr, NAME ": %s: %s\n", what, strerror(err));
  return EXIT_SETUP;
}

static int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Decodes padded base64 into a new buffer; returns its length, or -1 when `text` is not base64. */
static long base64_decode(const char *text, unsigned char **out) {
  size_t len = strlen(text);
  if (len == 0 || len % 4 != 0) return -1;
  unsigned char *buf = malloc(len / 4 * 3);
  if (buf == NULL) return -1;
  long n = 0;
  for (size_t i = 0; i < len; i += 4) {
    int v[4];
    for (int j = 0; j < 4; j++) {
      char c = text[i + j];
      /* '=' only in the last group's last two places. */
      v[j] = c == '=' && i + 4 == len && j >= 2 ? 0 : base64_value(c);
      if (v[j] < 0 || (j == 3 && text[i + 2] == '=' && c != '=')) {
        free(buf);
        return -1;
      }
    }
    unsigned bits = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
    buf[n++] = bits >> 16;
    if (text[i + 2] != '=') buf[n++] = bits >> 8 & 0xff;
    if (text[i + 3] != '=') buf[n++] = bits & 0xff;
  }
  *out = buf;
  return n;
}

/*
 * Installs the base64 BPF program with seccomp(2)'s `flags`: returns what seccomp returns (with
 * SECCOMP_FILTER_FLAG_NEW_LISTENER, the listener's fd), or -1 having said why on stderr.
 */
int install_seccomp_program(const char *base64, unsigned flags) {
  unsigned char *bytes = NULL;
  long n = base64_decode(base64, &bytes);
  if (n <= 0 || n % sizeof(struct sock_filter) != 0 || n / sizeof(struct sock_filter) > BPF_MAXINSNS) {
    fprintf(stderr, NAME ": a seccomp program must be base64 of whole sock_filter records\n");
    free(bytes);
    return -1;
  }
  struct sock_fprog prog = {.len = (unsigned short)(n / sizeof(struct sock_filter)),
                            .filter = (struct sock_filter *)bytes};
  /* seccomp(2) first; prctl for kernels before 3.17 (which have no flags). */
  int result = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
  if (result < 0 && errno == ENOSYS && flags == 0) result = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  int err = errno;
  free(bytes);
  if (result < 0) fail("cannot install the seccomp filter", err);
  return result;
}

static int install_seccomp(const char *base64) {
  return install_seccomp_program(base64, 0) < 0 ? EXIT_SETUP : 0;
}

/* Puts the program at fd `target` for bubblewrap's --seccomp, in a memory file it reads from the start. */
static int pass_seccomp(const char *base64, int target) {
  autofree unsigned char *bytes = NULL;
  long n = base64_decode(base64, &bytes);
  if (n <= 0 || n % sizeof(struct sock_filter) != 0) {
    fprintf(stderr, NAME ": --seccomp-fd wants a base64 BPF program of whole sock_filter records\n");
    return EXIT_SETUP;
  }
  autoclose int fd = memfd_create("unified-exec-seccomp", 0);
  if (fd < 0) return fail("cannot make a memory file for the seccomp filter", errno);
  long written = 0;
  while (written < n) {
    ssize_t w = write(fd, bytes + written, n - written);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return fail("cannot write the seccomp filter", errno);
    written += w;
  }
  if (lseek(fd, 0, SEEK_SET) != 0) return fail("cannot rewind the seccomp filter", errno);
  if (fd == target) steal_fd(&fd); /* already in place: kept open */
  else if (dup2(fd, target) < 0) return fail("cannot place the seccomp filter", errno);
  return 0;
}

/* The host's device nodes bubblewrap's --dev binds into the sandbox (bubblewrap.c's devnodes). */
static const char *const HOST_DEVICES[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"};

/*
 * bubblewrap's --dev binds the host's device inodes, read-write: a root server's sandbox is host uid 0, their owner,
 * so its chmod, chown, utimes or ACL on /dev/null changed the host's. Here, in a mount namespace of this process's own
 * (a slave of the host's: nothing goes back), each node becomes a read-only bind of itself, devices allowed: the
 * binds bubblewrap then makes of them keep those flags, so metadata changes fail with EROFS while opening the node
 * for reading and writing still works (the read-only check on open spares devices). bubblewrap's own --remount-ro
 * cannot do it: it adds nodev, and the node could not be opened at all. A node missing here is skipped.
 */
static int read_only_devices(void) {
  if (unshare(CLONE_NEWNS) != 0) return fail("cannot make a mount namespace for read-only devices", errno);
  if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0) return fail("cannot make the mounts private", errno);
  for (size_t i = 0; i < sizeof(HOST_DEVICES) / sizeof(HOST_DEVICES[0]); i++) {
    const char *dev = HOST_DEVICES[i];
    struct statvfs fs = {0};
    if (statvfs(dev, &fs) != 0) {
      if (errno == ENOENT) continue;
      return fail("cannot read the mount flags of a device", errno);
    }
    /* A remount must repeat the flags a less privileged mount namespace may have locked. */
    unsigned long keep = MS_NOSUID;
    if (fs.f_flag & ST_NODEV) keep |= MS_NODEV;
    if (fs.f_flag & ST_NOEXEC) keep |= MS_NOEXEC;
    if (fs.f_flag & ST_NOATIME) keep |= MS_NOATIME;
    if (fs.f_flag & ST_NODIRATIME) keep |= MS_NODIRATIME;
    if (fs.f_flag & ST_RELATIME) keep |= MS_RELATIME;
    if (mount(dev, dev, NULL, MS_BIND, NULL) != 0 ||
        mount(NULL, dev, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | keep, NULL) != 0) {
      int err = errno;
      fprintf(stderr, NAME ": cannot bind %s read-only: %s\n", dev, strerror(err));
      return EXIT_SETUP;
    }
  }
  return 0;
}

/*
 * A Landlock domain that restricts no file access (its handled rights granted everywhere): what it brings is the
 * kernel's rule that a process in a domain may ptrace (and read /proc/<pid>/mem of) only processes in the same
 * domain or below. From ABI 2 on, every domain refuses to move or link an entry into another folder unless a rule
 * grants LANDLOCK_ACCESS_FS_REFER, handled or not: so it is handled and granted everywhere too (without it, `mv a/f
 * b/` inside bubblewrap answered EXDEV). Quietly skipped where the kernel has no Landlock.
 */
static int enter_landlock_domain(void) {
  int abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  uint64_t rights = LL_ACCESS_FS_EXECUTE | (abi >= 2 ? LL_ACCESS_FS_REFER : 0);
  struct ll_ruleset_attr ruleset = {.handled_access_fs = rights};
  autoclose int rules = (int)syscall(__NR_landlock_create_ruleset, &ruleset, sizeof(ruleset.handled_access_fs), 0);
  if (rules < 0) return errno == ENOSYS || errno == EOPNOTSUPP ? 0 : fail("cannot make a Landlock ruleset", errno);
  autoclose int root = open("/", O_PATH | O_CLOEXEC);
  if (root < 0) return fail("cannot open /", errno);
  struct ll_path_beneath_attr everywhere = {.allowed_access = rights, .parent_fd = root};
  if (syscall(__NR_landlock_add_rule, rules, LL_RULE_PATH_BENEATH, &everywhere, 0) != 0)
    return fail("cannot add a Landlock rule", errno);
  if (syscall(__NR_landlock_restrict_self, rules, 0) != 0) return fail("cannot enter a Landlock domain", errno);
  return 0;
}

/* Rights on files, the only ones a rule on a file may grant. */
#define LL_FILE_RIGHTS (LL_ACCESS_FS_READ_FILE | LL_ACCESS_FS_WRITE_FILE | LL_ACCESS_FS_TRUNCATE)

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/*
 * The fds the rules were added with, still open: one close_range for each run of them rather than a close each (a
 * grant per folder of every writable root makes hundreds, and a system call costs more than the rest of a rule). At
 * most 256 wait, well below the usual limit of 1024 open fds. New fds come lowest first, so they ascend until a flush.
 */
static int spent[256];
static int spent_n;

static void close_spent(void) {
  for (int i = 0; i < spent_n;) {
    int j = i;
    while (j + 1 < spent_n && spent[j + 1] == spent[j] + 1) j++;
    if (syscall(SYS_close_range, spent[i], spent[j], 0) != 0)
      for (int k = i; k <= j; k++) close(spent[k]); /* kernels before 5.9 */
    i = j + 1;
  }
  spent_n = 0;
}

static void spend(int fd) {
  if (spent_n == (int)(sizeof(spent) / sizeof(spent[0]))) close_spent();
  spent[spent_n++] = fd;
}

/* Grants `rights` (those of them the ruleset handles) on `path`; a path that is gone is skipped. */
static int allow_path(int rules, const char *path, unsigned long long rights, unsigned long long handled) {
  struct ll_path_beneath_attr rule = {.allowed_access = rights & handled,
                                      .parent_fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW)};
  if (rule.parent_fd < 0) return errno == ENOENT || errno == ELOOP ? 0 : fail(path, errno);
  int ok = syscall(__NR_landlock_add_rule, rules, LL_RULE_PATH_BENEATH, &rule, 0);
  int err = errno;
  spend(rule.parent_fd);
  if (ok != 0) return fail(path, err);
  return 0;
}


/*
 * The Landlock backend's domain: writes only where granted, reads too (so that no other terminal under /dev/pts can
 * be read or written: only the command's own), TCP off without the network (ABI 4), signals and abstract unix
 * sockets kept inside (ABI 6). Every right beneath each of `trees`, reading and writing each of `files`, reading
 * beneath each of `read_trees` and each of `read_files`, and reading and writing the terminal on stdin, if any.
 */
static int enter_write_domain(struct paths trees, struct paths files, struct paths read_trees, struct paths read_files,
                              int no_network) {
  int abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 1) {
    fprintf(stderr, NAME ": Landlock is not available in this kernel (%s)\n",
            abi < 0 ? strerror(errno) : "no ABI");
    return EXIT_SETUP;
  }
  unsigned long long handled = LL_ACCESS_FS_READ_FILE | LL_ACCESS_FS_WRITE_FILE | LL_ACCESS_FS_REMOVE_DIR | LL_ACCESS_FS_REMOVE_FILE |
                               LL_ACCESS_FS_MAKE_CHAR | LL_ACCESS_FS_MAKE_DIR | LL_ACCESS_FS_MAKE_REG |
                               LL_ACCESS_FS_MAKE_SOCK | LL_ACCESS_FS_MAKE_FIFO | LL_ACCESS_FS_MAKE_BLOCK |
                               LL_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) handled |= LL_ACCESS_FS_REFER;
  if (abi >= 3) handled |= LL_ACCESS_FS_TRUNCATE;
  struct ll_ruleset_attr attr = {.handled_access_fs = handled};
  size_t size = sizeof(attr.handled_access_fs);
  if (abi >= 4) {
    size = 2 * sizeof(unsigned long long);
    if (no_network) attr.handled_access_net = LL_ACCESS_NET_BIND_TCP | LL_ACCESS_NET_CONNECT_TCP;
  }
  if (abi >= 6) {
    size = sizeof(attr);
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
  }
  autoclose int rules = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (rules < 0) return fail("cannot make a Landlock ruleset", errno);
  int status = 0;
  for (int i = 0; status == 0 && i < trees.n; i++) status = allow_path(rules, trees.path[i], handled, handled);
  for (int i = 0; status == 0 && i < files.n; i++) status = allow_path(rules, files.path[i], LL_FILE_RIGHTS, handled);
  for (int i = 0; status == 0 && i < read_trees.n; i++)
    status = allow_path(rules, read_trees.path[i], LL_ACCESS_FS_READ_FILE, handled);
  for (int i = 0; status == 0 && i < read_files.n; i++)
    status = allow_path(rules, read_files.path[i], LL_ACCESS_FS_READ_FILE, handled);
  /* The session's own terminal, which no grant names: /dev/pts as a whole stays out. */
  const char *tty = isatty(0) ? ttyname(0) : NULL;
  if (status == 0 && tty != NULL) status = allow_path(rules, tty, LL_FILE_RIGHTS, handled);
  close_spent();
  if (status != 0) return status;
  if (syscall(__NR_landlock_restrict_self, rules, 0) != 0) return fail("cannot enter a Landlock domain", errno);
  return 0;
}

/*
 * Drops every capability for good: a root server's command is uid 0 without privileges, and an exec does not give
 * them back (SECBIT_NOROOT, locked). Needs CAP_SETPCAP for the bounding set and the securebits; a process without
 * capabilities has nothing to drop, and only its (empty) sets are cleared.
 */
static int drop_capabilities(void) {
  struct {
    unsigned version;
    int pid;
  } header = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
  struct {
    unsigned effective, permitted, inheritable;
  } data[2] = {{0, 0, 0}, {0, 0, 0}};
  if (syscall(SYS_capget, &header, data) != 0) return fail("cannot read the capabilities", errno);
  int privileged = data[0].effective != 0 || data[1].effective != 0;
  if (privileged) {
    /* SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_KEEP_CAPS, each with its lock (include/uapi/linux/securebits.h). */
    if (prctl(PR_SET_SECUREBITS, 0x01 | 0x02 | 0x04 | 0x08 | 0x20, 0, 0, 0) != 0)
      return fail("cannot lock the securebits", errno);
    for (int cap = 0; cap < 64; cap++) {
      if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno == EINVAL) break; /* past the last capability */
    }
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  memset(data, 0, sizeof(data));
  if (syscall(SYS_capset, &header, data) != 0) return fail("cannot drop the capabilities", errno);
  return 0;
}

/*
 * Closes every fd from `first` up, but `keep`: nothing the server inherited from whoever started it (a socket a
 * service manager passed, a CI runner's pipe) may reach the sandbox, where it would lead past the filter.
 */
static void close_from(int first, int keep) {
  if (keep >= first) {
    if (keep > first && syscall(SYS_close_range, first, keep - 1, 0) != 0) goto slow;
    if (syscall(SYS_close_range, keep + 1, ~0U, 0) != 0) goto slow;
  } else if (syscall(SYS_close_range, first, ~0U, 0) != 0) {
    goto slow;
  }
  return;
slow: /* kernels before 5.9 */
  for (long fd = first, max = sysconf(_SC_OPEN_MAX); fd < max && fd < 65536; fd++)
    if (fd != keep) close(fd);
}

/* What the Landlock backend's command enters before it runs. */
struct domain {
  struct paths trees, files, read_trees, read_files;
  int no_network;
  const char *seccomp;
};

static int enter_domain(void *context) {
  struct domain *d = context;
  int status = enter_write_domain(d->trees, d->files, d->read_trees, d->read_files, d->no_network);
  if (status == 0 && d->seccomp != NULL) status = install_seccomp(d->seccomp);
  return status;
}

/* Moves this process into the cgroup v2 folder `dir` (its cgroup.procs), before it makes anything. */
static int join_cgroup(const char *dir) {
  char procs[PATH_MAX];
  if (snprintf(procs, sizeof procs, "%s/cgroup.procs", dir) >= (int)sizeof procs)
    return fail("cannot join the sandboxes' cgroup", ENAMETOOLONG);
  autoclose int fd = open(procs, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0 || write(fd, "0", 1) != 1) return fail("cannot join the sandboxes' cgroup", errno);
  return 0;
}

static int usage(void) {
  fprintf(stderr, "usage: " NAME " [--cgroup DIR] [--seccomp BASE64 | --seccomp-fd N BASE64 [--read-only-devices]] -- COMMAND [ARG...]\n"
                  "       " NAME " --landlock [--tree DIR]... [--file FILE]... [--read-tree DIR]... [--read-file FILE]... "
                  "[--no-network] [--seccomp BASE64]\n"
                  "         [--supervise BASE64 [--root DIR]... [--keep-out DIR]... [--kept-name NAME]...\n"
                  "          [--network-refusals FILE]] -- "
                  "COMMAND [ARG...]\n"
                  "       " NAME " --standby FD   (the options above, and --cwd DIR, --env NAME=VALUE..., --null-stdin or --tty PATH,\n"
                  "         then -- COMMAND [ARG...], come through FD)\n");
  return EXIT_SETUP;
}

/* What expand_options read, which the arguments point into. */
static char *expanded_text;

/*
 * Reads the options in `fd` to its end (each ended by a NUL byte) and puts them in place of argv[1..skip], before the
 * rest of the command line. `from` names the source in errors. Returns 0, or an exit status having said why.
 */
static int expand_options(int fd, const char *from, int skip, int *argc, char ***argv) {
  autoclose int input = fd;
  size_t size = 0, cap = 65536;
  autofree char *text = malloc(cap);
  if (text == NULL) return fail("out of memory", ENOMEM);
  for (ssize_t n; (n = read(input, text + size, cap - size)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(from, errno);
    size += n;
    if (size == cap) {
      char *more = realloc(text, cap * 2);
      if (more == NULL) return fail("out of memory", ENOMEM);
      text = more;
      cap *= 2;
    }
  }
  close_fd_at_exit(&input);
  if (size == 0 && skip == 2 && strcmp((*argv)[1], "--standby") == 0) _exit(0); /* no command will come */
  if (size > 0 && text[size - 1] != '\0') {
    fprintf(stderr, NAME ": %s: each argument must end with a NUL byte\n", from);
    return EXIT_SETUP;
  }
  int count = 0;
  for (size_t i = 0; i < size; i++) count += text[i] == '\0';
  char **out = calloc(*argc - skip + count + 1, sizeof(char *));
  if (out == NULL) return fail("out of memory", ENOMEM);
  int n = 0;
  out[n++] = (*argv)[0];
  for (size_t i = 0; i < size; i += strlen(text + i) + 1) out[n++] = text + i;
  for (int i = skip + 1; i < *argc; i++) out[n++] = (*argv)[i];
  out[n] = NULL;
  *argc = n;
  *argv = out;
  /* The new arguments point into `text`: it lives as long as the process. */
  expanded_text = steal_pointer(&text);
  return 0;
}

/*
 * `--args-file FILE` first: the options are read from FILE, which is then removed. A Landlock sandbox's grants run to
 * one per entry of each writable root (thousands in a busy /tmp); on the command line they would reach the spawner's
 * own limits.
 *
 * `--standby FD` (and nothing after it): a launcher started ahead of its command, waiting. Everything else (the
 * options, `--`, the command) comes through FD, a pipe only the server holds, once the server has a command for it;
 * the end of FD without a byte means none will come, and it exits at once, quietly, with 0. Until then it does
 * nothing, and it dies with the server.
 */
static int expand_args(int *argc, char ***argv, int *standby) {
  if (*argc == 3 && strcmp((*argv)[1], "--standby") == 0) {
    char *end;
    long fd = strtol((*argv)[2], &end, 10);
    if (*end != '\0' || fd < 3 || fd > 1023) return usage();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() == 1) _exit(0); /* the server is gone already */
    *standby = 1;
    return expand_options((int)fd, "the standby pipe", 2, argc, argv);
  }
  if (*argc < 3 || strcmp((*argv)[1], "--args-file") != 0) return 0;
  const char *path = (*argv)[2];
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return fail(path, errno);
  unlink(path);
  return expand_options(fd, path, 2, argc, argv);
}

/*
 * The terminal the server made for a command on one (node-pty's open()), at `path`: the launcher's controlling
 * terminal (it leads a session of its own, its spawner's setsid, and has none yet), set to the modes node-pty gives a
 * terminal it starts a process on, and its stdin, stdout and stderr.
 */
static int take_terminal(const char *path) {
  autoclose int fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return fail(path, errno);
  if (ioctl(fd, TIOCSCTTY, 0) != 0) return fail("cannot make the terminal the controlling one", errno);
  struct termios t;
  memset(&t, 0, sizeof(t));
  t.c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT | IUTF8;
  t.c_oflag = OPOST | ONLCR;
  t.c_cflag = CREAD | CS8 | HUPCL;
  t.c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t.c_cc[VEOF] = 4;
  t.c_cc[VEOL] = 0xff;
  t.c_cc[VEOL2] = 0xff;
  t.c_cc[VERASE] = 0x7f;
  t.c_cc[VWERASE] = 23;
  t.c_cc[VKILL] = 21;
  t.c_cc[VREPRINT] = 18;
  t.c_cc[VINTR] = 3;
  t.c_cc[VQUIT] = 0x1c;
  t.c_cc[VSUSP] = 26;
  t.c_cc[VSTART] = 17;
  t.c_cc[VSTOP] = 19;
  t.c_cc[VLNEXT] = 22;
  t.c_cc[VDISCARD] = 15;
  t.c_cc[VMIN] = 1;
  t.c_cc[VTIME] = 0;
  cfsetispeed(&t, B38400);
  cfsetospeed(&t, B38400);
  if (tcsetattr(fd, TCSANOW, &t) != 0) return fail("cannot set the terminal's modes", errno);
  for (int target = 0; target < 3; target++)
    if (dup2(fd, target) != target) return fail("cannot take the terminal as stdin, stdout and stderr", errno);
  return 0;
}

/* Replaces the environment the command is started with (a launcher in standby was started with another). */
extern char **environ;

int main(int argc, char **argv) {
  int standby = 0;
  int expanded = expand_args(&argc, &argv, &standby);
  if (expanded != 0) return expanded;
  const char *cwd = NULL, *terminal = NULL;
  int null_stdin = 0;
  /* Each list below holds fewer than argc entries (env so ends with a NULL): one allocation holds the eight. */
  autofree char **lists = calloc(8 * (size_t)argc, sizeof(char *));
  if (lists == NULL) return fail("out of memory", ENOMEM);
  char **env = lists;
  int env_n = 0;
  const char *seccomp = NULL;
  const char *pass = NULL;
  const char *cgroup = NULL;
  int pass_fd = -1;
  int landlock = 0, no_network = 0, devices = 0;
  struct paths trees = {lists + argc, 0}, files = {lists + 2 * argc, 0};
  struct paths read_trees = {lists + 3 * argc, 0}, read_files = {lists + 4 * argc, 0};
  struct supervision sup = {{lists + 5 * argc, 0}, trees, {lists + 6 * argc, 0}, {lists + 7 * argc, 0}, NULL, NULL};
  int i = 1;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
    if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc && cgroup == NULL) {
      cgroup = argv[++i];
    } else if (strcmp(argv[i], "--seccomp") == 0 && i + 1 < argc && seccomp == NULL && pass == NULL) {
      seccomp = argv[++i];
    } else if (strcmp(argv[i], "--seccomp-fd") == 0 && i + 2 < argc && seccomp == NULL && pass == NULL) {
      pass_fd = atoi(argv[++i]);
      pass = argv[++i];
      if (pass_fd < 3) return usage();
    } else if (strcmp(argv[i], "--landlock") == 0) {
      landlock = 1;
    } else if (strcmp(argv[i], "--tree") == 0 && i + 1 < argc) {
      trees.path[trees.n++] = argv[++i];
    } else if (strcmp(argv[i], "--file") == 0 && i + 1 < argc) {
      files.path[files.n++] = argv[++i];
    } else if (strcmp(argv[i], "--read-tree") == 0 && i + 1 < argc) {
      read_trees.path[read_trees.n++] = argv[++i];
    } else if (strcmp(argv[i], "--read-file") == 0 && i + 1 < argc) {
      read_files.path[read_files.n++] = argv[++i];
    } else if (strcmp(argv[i], "--supervise") == 0 && i + 1 < argc && sup.program == NULL) {
      sup.program = argv[++i];
    } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
      sup.roots.path[sup.roots.n++] = argv[++i];
    } else if (strcmp(argv[i], "--keep-out") == 0 && i + 1 < argc) {
      sup.keep_out.path[sup.keep_out.n++] = argv[++i];
    } else if (strcmp(argv[i], "--kept-name") == 0 && i + 1 < argc) {
      sup.kept_names.path[sup.kept_names.n++] = argv[++i];
    } else if (strcmp(argv[i], "--network-refusals") == 0 && i + 1 < argc && sup.network_refusals == NULL) {
      sup.network_refusals = argv[++i];
    } else if (strcmp(argv[i], "--no-network") == 0) {
      no_network = 1;
    } else if (strcmp(argv[i], "--read-only-devices") == 0) {
      devices = 1;
    } else if (standby && strcmp(argv[i], "--cwd") == 0 && i + 1 < argc && cwd == NULL) {
      cwd = argv[++i];
    } else if (standby && strcmp(argv[i], "--env") == 0 && i + 1 < argc) {
      env[env_n++] = argv[++i];
    } else if (standby && strcmp(argv[i], "--null-stdin") == 0) {
      null_stdin = 1;
    } else if (standby && strcmp(argv[i], "--tty") == 0 && i + 1 < argc && terminal == NULL) {
      terminal = argv[++i];
    } else {
      return usage();
    }
  }
  if (i + 1 >= argc) return usage();
  if (!landlock && (trees.n > 0 || files.n > 0 || read_trees.n > 0 || read_files.n > 0 || no_network)) return usage();
  if (landlock && pass != NULL) return usage();
  if (!landlock && (sup.program != NULL || sup.roots.n > 0 || sup.keep_out.n > 0 || sup.kept_names.n > 0))
    return usage();
  if (sup.network_refusals != NULL && sup.program == NULL) return usage();
  if (devices && pass == NULL) return usage();
  if ((standby && !landlock) || (terminal != NULL && null_stdin)) return usage();
  char **command = argv + i + 1;

  /* Before the command can make a socket: the sandboxes' cgroup, which every socket made from here on carries. */
  if (cgroup != NULL) {
    int status = join_cgroup(cgroup);
    if (status != 0) return status;
  }

  /* What a spawner does for a command it starts itself, done here for one in standby: its folder, stdin, environment. */
  if (cwd != NULL && chdir(cwd) != 0) {
    int err = errno;
    fprintf(stderr, NAME ": cannot enter %s: %s\n", cwd, strerror(err));
    return EXIT_SETUP;
  }
  if (terminal != NULL) {
    int status = take_terminal(terminal);
    if (status != 0) return status;
  }
  if (null_stdin) {
    autoclose int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || dup2(fd, 0) != 0) return fail("cannot read stdin from /dev/null", errno);
  }
  if (standby) environ = steal_pointer(&lists); /* env leads the lists: the environment outlives main */

  if (landlock) {
    close_from(3, -1);
    int status = drop_capabilities();
    if (status != 0) return status;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("cannot set no_new_privs", errno);
    struct domain domain = {trees, files, read_trees, read_files, no_network, seccomp};
    sup.trees = trees;
    if (sup.program != NULL) return supervise(&sup, enter_domain, &domain, command);
    status = enter_domain(&domain);
    if (status != 0) return status;
  } else if (pass != NULL) {
    int status = devices ? read_only_devices() : 0;
    if (status == 0) status = pass_seccomp(pass, pass_fd);
    if (status != 0) return status;
    close_from(3, pass_fd);
  } else {
    close_from(3, -1);
    /* Required for Landlock and an unprivileged filter, and keeps setuid programs from gaining what is withheld. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("cannot set no_new_privs", errno);
    int status = enter_landlock_domain();
    if (status == 0 && seccomp != NULL) status = install_seccomp(seccomp);
    if (status != 0) return status;
  }

  execvp(command[0], command);
  int err = errno;
  fprintf(stderr, NAME ": %s: %s\n", command[0], strerror(err));
  return err == ENOENT ? 127 : 126;
}
