/*
 * The Landlock backend's supervisor: a process outside the sandbox that stays the command's parent.
 *
 * Landlock grants are allow-lists on whole subtrees, and it has no right for a file's metadata. So on its own it
 * cannot let a command make files at the top of a workspace whose `.git` must stay read-only, nor keep it from
 * chmod'ing a file it may only read. The command's system calls that make, remove, rename or open for writing a
 * file, and those that change a file's metadata, stop at a seccomp filter whose answer is SECCOMP_RET_USER_NOTIF;
 * the supervisor reads what was asked (the paths from the command's memory, once: it acts on its own copy), decides,
 * and then either lets the kernel go on (the call then meets the Landlock domain, which decides), or does the call
 * itself on a folder it opened beneath the writable root with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS and checked by
 * device and inode, and answers with its result (a new fd is put into the command with SECCOMP_IOCTL_NOTIF_ADDFD),
 * or refuses:
 *
 * - making, removing, renaming or linking an entry: where the folder lies in a tree the domain grants, the kernel
 *   goes on; where it lies elsewhere in a writable root (its top, or a folder made since), the supervisor does it,
 *   unless the entry is a kept name at the top of a root (.git, HEAD, ...) or holds another root or a kept-out
 *   folder; anywhere else the kernel goes on and the domain refuses;
 * - opening a file for writing: the same, for a regular file (a new one made with the command's umask);
 * - metadata (mode, owner, times, extended attributes, inode flags), by path or by fd: done by the supervisor only for
 *   a file beneath a writable root (not a root's top, not a kept name) or one no path reaches (an anonymous pipe or
 *   socket, a deleted file); refused (EPERM) for everything else, terminals included. The kernel never goes on:
 *   Landlock would allow it.
 *
 * - socket() of an IP family, with the network off: refused, and the first refusal recorded for the server.
 *
 * It is also a child subreaper whose parent's death is a signal to it: whatever the command starts stays its
 * descendant, whatever the command does to its environment or session, and when the command exits, or the server
 * dies, the supervisor stops every descendant and kills it before it exits itself. The command cannot signal,
 * trace or limit it: Landlock scopes signals and ptrace to the domain, and the filter keeps prlimit to the caller.
 */
#define _GNU_SOURCE
#include "supervisor.h"
#include "cleanup.h"
#include "decide.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define NAME "unified-exec-sandbox-exec"
#define EXIT_SETUP 125

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
/* A call newer than the C library's headers (6.6): the same number on x86_64 and aarch64. */
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
/* The signal the supervisor gets when the server (its parent) dies. */
#define PARENT_DIED (SIGRTMIN + 1)

static const struct supervision *cfg;
/* An O_PATH fd on each root, opened at start: what every check and every act goes beneath. */
static int *root_fds;

/* ---- paths ---- (the decisions on them are decide.c's) */

/*
 * /proc/self/fd, opened once (by the supervisor, after the command's start): its own fds are named relative to it,
 * without walking /proc again for each.
 */
static int self_fds = -1;
static char self_fd_name[16];

/* The name of the supervisor's `fd` in self_fds. */
static const char *fd_name(int fd) {
  if (self_fds < 0) self_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  snprintf(self_fd_name, sizeof(self_fd_name), "%d", fd);
  return self_fd_name;
}

/*
 * The path of what `fd` refers to, as the kernel names it now; -1 when it has none a root could hold. `out` holds what
 * the link says ("pipe:[n]", ...) or "" when it could not be read: it is filled on every path.
 */
static int fd_path(int fd, char *out, size_t size) {
  const char *name = fd_name(fd);
  out[0] = '\0';
  /* The whole buffer: a path of size - 1 bytes (PATH_MAX less its NUL, which the kernel takes) fits, a longer one not. */
  ssize_t n = readlinkat(self_fds, name, out, size);
  if (n <= 0 || (size_t)n >= size) {
    out[0] = '\0';
    return -1;
  }
  out[n] = '\0';
  if (out[0] != '/') return -1;
  static const char deleted[] = " (deleted)";
  size_t dl = sizeof(deleted) - 1;
  if ((size_t)n >= dl && strcmp(out + n - dl, deleted) == 0) return -1;
  return 0;
}

/* Whether `fd` is the inode `known` describes (or, without `known`, the inode of `other`). */
static int same_inode(int fd, int other, const struct stat *known) {
  struct stat sa = {0}, sb = {0};
  if (known == NULL && fstat(other, &sb) != 0) return 0;
  if (known == NULL) known = &sb;
  return fstat(fd, &sa) == 0 && sa.st_dev == known->st_dev && sa.st_ino == known->st_ino;
}

/*
 * `fd` reopened beneath root `root` by its path `path` (which lies in the root), no link followed on the way, and
 * checked to be the same inode (`known`, its fstat, when the caller has it): a new O_PATH fd, or -1. Mounts beneath
 * the root may be crossed (a container's volume inside the workspace): RESOLVE_BENEATH still keeps the walk in the
 * root.
 */
static int beneath(int root, const char *path, int fd, const struct stat *known) {
  const char *rel = path + strlen(cfg->roots.path[root]);
  while (*rel == '/') rel++;
  struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                         .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  autoclose int out = (int)syscall(SYS_openat2, root_fds[root], *rel ? rel : ".", &how, sizeof(how));
  if (out < 0 || !same_inode(out, fd, known)) return -1;
  return steal_fd(&out);
}

/* Each root's device and inode, taken from its fd at start (st_dev 0 and st_ino 0 for a root that could not be opened). */
static struct stat *root_stats;

/* The root whose top `st` (a folder's fstat) is, or -1. */
static int root_top(const struct stat *st) {
  for (int i = 0; i < cfg->roots.n; i++)
    if (root_fds[i] >= 0 && root_stats[i].st_ino == st->st_ino && root_stats[i].st_dev == st->st_dev) return i;
  return -1;
}

/* ---- the command's memory and fds ---- */

/* The notification being handled: its pid's memory and /proc files are the caller's only while it is still valid. */
static int current_listener = -1;
static uint64_t current_id;

/* Whether the caller still waits: after reading its memory or opening its /proc files, before acting on them. */
static int still_waiting(void) {
  return ioctl(current_listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &current_id) == 0;
}

/* A NUL-terminated string at `addr` in `pid`, read a page at a time (a string may end just before unmapped memory). */
static int read_string(pid_t pid, uint64_t addr, char *out, size_t size) {
  if (addr == 0) return -1;
  size_t got = 0;
  while (got < size) {
    size_t page_left = 4096 - ((addr + got) & 4095);
    size_t want = page_left < size - got ? page_left : size - got;
    struct iovec local = {out + got, want}, remote = {(void *)(uintptr_t)(addr + got), want};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return -1;
    if (memchr(out + got, '\0', n) != NULL) return 0;
    got += n;
  }
  return -1; /* longer than PATH_MAX: the kernel would refuse it too */
}

static int read_bytes(pid_t pid, uint64_t addr, void *out, size_t size) {
  struct iovec local = {out, size}, remote = {(void *)(uintptr_t)addr, size};
  return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)size ? 0 : -1;
}

/*
 * /proc/<pid> of the callers seen lately, each an O_PATH fd on the folder, and the umask read from it. A folder
 * whose process has gone answers no lookup (ENOENT), even when its pid is another process's now: it is then opened
 * again, and what was kept of it dropped. A umask is kept only for a process of one thread, and every one kept is
 * dropped whenever a caller calls umask(2), which the filter sends here for that alone. Not covered: two processes
 * sharing one umask (clone with CLONE_FS, not a thread), where one's umask(2) could race the other's make; such a
 * process gains nothing by it, since a command may change the mode of what it made anyway.
 */
#define PROC_SLOTS 16
static struct {
  pid_t pid;
  int dir; /* -1: free */
  int umask; /* -1: not read */
} procs[PROC_SLOTS];
static int procs_next;

/* The slot of /proc/<pid>: the one kept, or (`fresh`, or none kept) the folder opened now. -1 when it cannot be. */
static int proc_slot(pid_t pid, int fresh) {
  int slot = -1;
  for (int i = 0; i < PROC_SLOTS && slot < 0; i++)
    if (procs[i].dir >= 0 && procs[i].pid == pid) slot = i;
  if (slot >= 0 && !fresh) return slot;
  if (slot < 0) slot = procs_next = (procs_next + 1) % PROC_SLOTS;
  if (procs[slot].dir >= 0) close(procs[slot].dir);
  char path[32];
  snprintf(path, sizeof(path), "/proc/%d", pid);
  procs[slot].pid = pid;
  procs[slot].umask = -1;
  procs[slot].dir = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return procs[slot].dir >= 0 ? slot : -1;
}

/* `rel` in /proc/<pid> opened with `flags` (O_PATH), or, with `st`, stat'ed; as openat and fstatat answer. */
static int proc_at(pid_t pid, const char *rel, int flags, struct stat *st) {
  int result = -1;
  for (int fresh = 0; fresh < 2; fresh++) {
    int slot = proc_slot(pid, fresh);
    if (slot < 0) return -1;
    result = st ? fstatat(procs[slot].dir, rel, st, 0) : openat(procs[slot].dir, rel, flags);
    if (result >= 0 || (errno != ENOENT && errno != ESRCH)) break;
  }
  return result;
}

/* The folder a path of the command's starts from: its fd `dirfd`, or its working folder (AT_FDCWD). */
static int open_base(pid_t pid, int dirfd) {
  char rel[32];
  if (dirfd == AT_FDCWD)
    snprintf(rel, sizeof(rel), "cwd");
  else
    snprintf(rel, sizeof(rel), "fd/%d", dirfd);
  return proc_at(pid, rel, O_PATH | O_CLOEXEC, NULL);
}

/* The command's umask, from /proc/<pid>/status (kept: see procs); 022 when it cannot be read. */
static mode_t umask_of(pid_t pid) {
  for (int fresh = 0; fresh < 2; fresh++) {
    int slot = proc_slot(pid, fresh);
    if (slot < 0) break;
    /* A lookup tells whether the folder's process is still the one the umask was read from. */
    if (procs[slot].umask >= 0 && faccessat(procs[slot].dir, "status", F_OK, 0) == 0) return procs[slot].umask;
    int fd = openat(procs[slot].dir, "status", O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char text[4096];
    ssize_t n = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (n <= 0) break;
    text[n] = '\0';
    const char *line = strstr(text, "\nUmask:");
    if (line == NULL) break;
    mode_t mask = (mode_t)(strtoul(line + 7, NULL, 8) & 0777);
    /*
     * Kept only for a process of one thread. Another thread's umask(2) reaches the supervisor before the kernel
     * applies it: a value read in between would be the old one, and kept it would outlive the call's return.
     */
    const char *threads = strstr(text, "\nThreads:");
    if (threads != NULL && strtol(threads + 9, NULL, 10) == 1) procs[slot].umask = (int)mask;
    return mask;
  }
  return 022;
}

/* A caller's umask(2): the umasks kept are dropped, and the kernel goes on. */
static void forget_umasks(void) {
  for (int i = 0; i < PROC_SLOTS; i++) procs[i].umask = -1;
}

/* The thread group (process) of the command's thread `tid`, from /proc/<tid>/status; `tid` when it cannot be read. */
static pid_t thread_group_of(pid_t tid) {
  pid_t group = tid;
  int fd = proc_at(tid, "status", O_RDONLY | O_CLOEXEC, NULL);
  if (fd < 0) return group;
  char text[4096];
  ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (n <= 0) return group;
  text[n] = '\0';
  const char *line = strstr(text, "\nTgid:");
  if (line != NULL) group = (pid_t)strtol(line + 6, NULL, 10);
  return group > 0 ? group : tid;
}

/*
 * `path` as the command means it: /proc/self and /proc/thread-self (and /dev/fd, /dev/stdin, ..., links to them)
 * would name the supervisor's own when it resolves them, so they are spelled with the command's ids: /proc/self is
 * its process (the thread group), /proc/thread-self the calling thread in it, as the kernel's links say; a thread
 * made without CLONE_FILES has an fd table of its own, and /proc/self/fd is still the process's. A deeper link to
 * them still resolves to the supervisor's; what it then does stays within the same checks.
 */
static const char *as_command_sees(pid_t tid, const char *path, char *buf, size_t size) {
  static const struct {
    const char *from, *to;
    int thread;
  } names[] = {{"/proc/self", "", 0},         {"/proc/thread-self", "", 1}, {"/dev/fd", "/fd", 0},
               {"/dev/stdin", "/fd/0", 0},    {"/dev/stdout", "/fd/1", 0},  {"/dev/stderr", "/fd/2", 0}};
  for (size_t i = 0; path != NULL && i < sizeof(names) / sizeof(names[0]); i++) {
    size_t n = strlen(names[i].from);
    if (strncmp(path, names[i].from, n) != 0 || (path[n] != '\0' && path[n] != '/')) continue;
    pid_t group = thread_group_of(tid);
    int written = names[i].thread ? snprintf(buf, size, "/proc/%d/task/%d%s", group, tid, path + n)
                                  : snprintf(buf, size, "/proc/%d%s%s", group, names[i].to, path + n);
    if (written < 0 || written >= (int)size) return path;
    return buf;
  }
  return path;
}

/* ---- deciding ---- */

/*
 * An entry named in a folder: what makes, removals, renames and opens are about. Every one starts whole (ENTRY_NONE)
 * and decide_entry fills it for its verdict alone: nothing of an earlier call can be read in it.
 */
struct entry {
  /*
   * O_PATH fd on the folder. ACT (and GRANTED when asked for): checked beneath its root, what the act goes through.
   * REFUSE: the folder as the kernel resolved it, only asked whether the name exists. Else -1.
   */
  int dir;
  /* Why the folder could not be found (UNKNOWN): the errno of its lookup, which the kernel would answer too; else 0. */
  int lookup_error;
  /* Whether the path ended in a slash (the entry must then be a folder). */
  int slash;
  char name[NAME_MAX + 1]; /* "" for UNKNOWN and OUTSIDE */
  char path[PATH_MAX];     /* the entry's whole path; "" for UNKNOWN and OUTSIDE */
};
#define ENTRY_NONE {.dir = -1}

static void drop_entry(struct entry *e) {
  close_fd_at_exit(&e->dir);
}
/* An entry whose folder is closed however its scope is left. */
#define autodrop __attribute__((cleanup(drop_entry)))

/*
 * Finds the folder `path` (relative to the command's `dirfd`) names its last part in, as the kernel would (links
 * on the way followed), and decides (decide_path). `e` must be ENTRY_NONE. With `granted_dir`, a GRANTED entry's
 * folder is opened and checked too (a rename acts on both ends). A folder that cannot be checked is UNKNOWN: the
 * kernel then answers as it would, and the domain decides.
 */
static enum verdict decide_entry(pid_t pid, int dirfd, const char *path, int granted_dir, struct entry *e) {
  char seen[PATH_MAX], parent[PATH_MAX], name[NAME_MAX + 1];
  int slash = 0;
  path = as_command_sees(pid, path, seen, sizeof(seen));
  if (split_path(path, parent, sizeof(parent), name, sizeof(name), &slash) != 0) return UNKNOWN;
  autoclose int base = path[0] == '/' ? AT_FDCWD : open_base(pid, dirfd);
  if (path[0] != '/' && base < 0) return UNKNOWN;
  autoclose int dir = -1;
  /* A name in the folder the command names by `dirfd` (tar's, most often): that folder is the base itself. */
  if (base >= 0 && strcmp(parent, ".") == 0) {
    dir = steal_fd(&base);
  } else {
    dir = openat(base, parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
    e->lookup_error = dir < 0 ? errno : 0;
  }
  if (dir < 0) return UNKNOWN;
  struct stat dir_stat = {0};
  if (fstat(dir, &dir_stat) != 0 || !S_ISDIR(dir_stat.st_mode)) return UNKNOWN;
  /* A root's top itself (where what is made is the supervisor's to make): known by its inode, named by the root. */
  int top = root_top(&dir_stat);
  char dir_path[PATH_MAX], entry_path[PATH_MAX];
  if (top >= 0) {
    snprintf(dir_path, sizeof(dir_path), "%s", cfg->roots.path[top]);
  } else if (fd_path(dir, dir_path, sizeof(dir_path)) != 0) {
    return UNKNOWN;
  }
  enum verdict verdict = decide_path(cfg, dir_path, top, name, entry_path, sizeof(entry_path));
  autoclose int kept = -1;
  switch (verdict) {
    case REFUSE:
      kept = steal_fd(&dir);
      break;
    case GRANTED:
      if (!granted_dir) break;
      __attribute__((fallthrough)); /* opened and checked as for an act */
    case ACT: {
      /* Only an act needs the caller still there: a pid reused meanwhile would make `dir` another process's folder. */
      int root = top >= 0 ? top : root_of(cfg, dir_path);
      if (root < 0 || !still_waiting()) return UNKNOWN;
      kept = top >= 0 ? fcntl(root_fds[top], F_DUPFD_CLOEXEC, 0) : beneath(root, dir_path, dir, &dir_stat);
      if (kept < 0) return UNKNOWN;
      break;
    }
    case UNKNOWN:
    case OUTSIDE:
    default:
      return verdict == OUTSIDE ? OUTSIDE : UNKNOWN;
  }
  e->dir = steal_fd(&kept);
  e->slash = slash;
  snprintf(e->name, sizeof(e->name), "%s", name);
  snprintf(e->path, sizeof(e->path), "%s", entry_path);
  return verdict;
}

/* What is known of the entry `e` names (a link counts as itself); nothing exists when its folder is not known. */
static struct entry_facts facts_of(const struct entry *e) {
  struct stat st = {0};
  int exists = e->dir >= 0 && fstatat(e->dir, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  return (struct entry_facts){.exists = exists, .is_dir = exists && S_ISDIR(st.st_mode), .slash = e->slash};
}

/*
 * The regular files a metadata call by fd was allowed on lately, each held by the O_PATH fd that was checked beneath
 * its root. tar sets a file's times, owner and mode through the fd it wrote it with, three calls in a row: the second
 * and the third find the file here by the device and inode a stat of the command's fd gives, and only where the file
 * lies now is checked again (the kernel's name for the held fd: a file moved out of the roots meanwhile is refused as
 * any other). Holding the fd keeps the inode, and so its number, from going to another file; an O_PATH fd is no
 * writer, so the file can still be run. The oldest is let go when a new one comes.
 */
#define HELD_FILES 8
static struct {
  int fd; /* -1: free */
  dev_t dev;
  ino_t ino;
} held[HELD_FILES];
static int held_next;

static void hold(int fd, const struct stat *st) {
  if (held[held_next].fd >= 0) close(held[held_next].fd);
  held[held_next].fd = fd;
  held[held_next].dev = st->st_dev;
  held[held_next].ino = st->st_ino;
  held_next = (held_next + 1) % HELD_FILES;
}

static int is_held(int fd) {
  for (int i = 0; i < HELD_FILES; i++)
    if (held[i].fd == fd) return 1;
  return 0;
}

/* Closes an fd decide_inode returned, unless it is held. */
static void release(int fd) {
  if (fd >= 0 && !is_held(fd)) close(fd);
}

static void release_at_exit(int *fd) {
  int err = errno;
  release(*fd);
  errno = err;
  *fd = -1;
}
/* An fd decide_inode returned, released however its scope is left. */
#define autorelease __attribute__((cleanup(release_at_exit)))

/*
 * The held fd on the file the command's `fd` refers to, if one is held and the file still lies where metadata may
 * change; else -1. Whoever holds `fd` (a pid reused meanwhile included), a change to that file is one the rules allow.
 */
static int held_for(pid_t pid, int fd) {
  if (fd < 0) return -1;
  char rel[32];
  snprintf(rel, sizeof(rel), "fd/%d", fd);
  struct stat st = {0};
  if (proc_at(pid, rel, 0, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  for (int i = 0; i < HELD_FILES; i++) {
    if (held[i].fd < 0 || held[i].dev != st.st_dev || held[i].ino != st.st_ino) continue;
    char where[PATH_MAX];
    if (fd_path(held[i].fd, where, sizeof(where)) != 0 || metadata_root(cfg, where) < 0) return -1;
    return held[i].fd;
  }
  return -1;
}

/*
 * The file a metadata call is about: `path` from `dirfd` (following a last link unless `nofollow`), or the fd
 * `dirfd` itself when `path` is NULL or empty with `empty_path`. Returns an O_PATH fd to act on and then `release`,
 * or -1 (errno EPERM: refused; another: as the kernel would answer).
 */
static int decide_inode(pid_t pid, int dirfd, const char *path, int nofollow) {
  char seen[PATH_MAX];
  path = as_command_sees(pid, path, seen, sizeof(seen));
  autoclose int fd = -1;
  int by_fd = path == NULL || *path == '\0';
  if (by_fd) {
    int known = held_for(pid, dirfd);
    if (known >= 0) return known;
    fd = open_base(pid, dirfd);
    if (fd < 0) return errno = EBADF, -1;
  } else {
    autoclose int base = path[0] == '/' ? AT_FDCWD : open_base(pid, dirfd);
    if (path[0] != '/' && base < 0) return errno = EBADF, -1;
    fd = openat(base, path, O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (fd < 0) return -1; /* openat's errno: the cleanups keep it */
  }
  struct stat st = {0};
  if (!still_waiting() || fstat(fd, &st) != 0) return errno = EPERM, -1;
  char where[PATH_MAX];
  if (fd_path(fd, where, sizeof(where)) != 0) {
    /* Nothing a path reaches: a deleted file, an anonymous pipe or socket ("pipe:[n]"). */
    if (st.st_nlink == 0 || ((S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && where[0] != '/' && where[0] != '\0'))
      return steal_fd(&fd);
    return errno = EPERM, -1;
  }
  int root = metadata_root(cfg, where);
  if (root < 0) return errno = EPERM, -1;
  int checked = beneath(root, where, fd, &st);
  if (checked < 0) return errno = EPERM, -1;
  if (by_fd && S_ISREG(st.st_mode)) hold(checked, &st);
  return checked;
}

/* ---- acting ---- */

static char self_fd_path[64];
static const char *proc_self(int fd) {
  snprintf(self_fd_path, sizeof(self_fd_path), "/proc/self/fd/%d", fd);
  return self_fd_path;
}

/* A real (not O_PATH) fd on the file behind `fd`, for calls that take no O_PATH fd; -1 for what cannot be opened so. */
static int reopen(int fd) {
  struct stat st = {0};
  if (fstat(fd, &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) return errno = EPERM, -1;
  return open(proc_self(fd), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
}

struct answer {
  int go_on;
  int64_t val;
  int error; /* a positive errno */
  int fd;    /* >= 0: put into the command as the call's result */
  int cloexec;
};

static struct answer go_on(void) { return (struct answer){.go_on = 1, .fd = -1}; }
static struct answer result(int64_t val) {
  return (struct answer){.val = val < 0 ? 0 : val, .error = val < 0 ? errno : 0, .fd = -1};
}
static struct answer fail_with(int err) { return (struct answer){.error = err, .fd = -1}; }

static const struct entry_facts NO_FACTS = {0};

/*
 * The answer to `call` refused on `e` (a REFUSE verdict): what the kernel answers before any security check (EEXIST
 * for a name that exists, ENOENT for one that does not, ...), else EACCES, as the domain answers. Nothing is changed.
 */
static struct answer refused(struct entry *e, enum entry_call call, unsigned flags) {
  int err = answer_before_policy(call, flags, facts_of(e), NO_FACTS);
  drop_entry(e);
  return fail_with(err != 0 ? err : EACCES);
}

/* For an act on `e` named with a slash: what the kernel answers first (0: none, go on with the act). */
static int slash_answer(const struct entry *e, enum entry_call call, unsigned flags) {
  return e->slash ? answer_before_policy(call, flags, facts_of(e), NO_FACTS) : 0;
}

/* Whether `pid` holds the master of the terminal whose slave is /dev/pts/<index> (its fdinfo says `tty-index`). */
static int holds_master(pid_t pid, unsigned index) {
  char dir_path[64];
  snprintf(dir_path, sizeof(dir_path), "/proc/%d/fdinfo", pid);
  DIR *dir = opendir(dir_path);
  if (dir == NULL) return 0;
  int found = 0;
  struct dirent *d;
  while (!found && (d = readdir(dir)) != NULL) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    char path[320], line[128];
    snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", pid, d->d_name);
    FILE *f = fopen(path, "re");
    if (f == NULL) continue;
    unsigned n = 0;
    while (fgets(line, sizeof(line), f) != NULL)
      if (sscanf(line, "tty-index: %u", &n) == 1 && n == index) found = 1;
    fclose(f);
  }
  closedir(dir);
  return found;
}

/*
 * A terminal's slave (/dev/pts/N) whose master the command opened itself (script, tmux, python's pty): opened for
 * it. The domain grants no slave but the session's own, so that no other session's terminal can be opened.
 * Returns an O_PATH fd on the slave when `path` names one the command may have, else -1.
 */
static int own_new_terminal(pid_t pid, int dirfd, const char *path) {
  char seen[PATH_MAX];
  path = as_command_sees(pid, path, seen, sizeof(seen));
  autoclose int base = path[0] == '/' ? AT_FDCWD : open_base(pid, dirfd);
  if (path[0] != '/' && base < 0) return -1;
  autoclose int fd = openat(base, path, O_PATH | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st = {0};
  /* UNIX98 pty slaves: majors 136-143 (Documentation/admin-guide/devices.txt). The caller's /proc read, it must still wait. */
  if (fstat(fd, &st) == 0 && S_ISCHR(st.st_mode) && major(st.st_rdev) >= 136 && major(st.st_rdev) <= 143 &&
      holds_master(pid, (major(st.st_rdev) - 136) * 256 + minor(st.st_rdev)) && still_waiting())
    return steal_fd(&fd);
  return -1;
}

/* A new O_PATH fd on the root whose top `path` (from the command's `dirfd`) names, or -1. */
static int top_named(pid_t pid, int dirfd, const char *path) {
  char seen[PATH_MAX];
  path = as_command_sees(pid, path, seen, sizeof(seen));
  autoclose int base = path[0] == '/' ? AT_FDCWD : open_base(pid, dirfd);
  if (path[0] != '/' && base < 0) return -1;
  autoclose int dir = openat(base, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st = {0};
  if (dir < 0 || fstat(dir, &st) != 0) return -1;
  int top = root_top(&st);
  if (top < 0 || !still_waiting()) return -1;
  return fcntl(root_fds[top], F_DUPFD_CLOEXEC, 0);
}

/* open/openat/creat for writing or making. */
static struct answer open_entry(pid_t pid, int dirfd, const char *path, int flags, mode_t mode, int depth);

/*
 * An open that names a link the supervisor was to act on (a root's top): the kernel would follow it, so the path it
 * points to is decided as the command's own next path (its folder checked, kept names refused, the domain asked
 * where it is granted). At most 40 links, as the kernel follows.
 */
static struct answer follow_link(pid_t pid, const struct entry *e, int flags, mode_t mode, int depth) {
  char target[PATH_MAX] = {0}, next[PATH_MAX] = {0};
  ssize_t n = readlinkat(e->dir, e->name, target, sizeof(target) - 1);
  if (n <= 0) return go_on();
  target[n] = '\0';
  if (depth >= 40) return fail_with(ELOOP);
  if (target[0] == '/') {
    snprintf(next, sizeof(next), "%s", target);
  } else {
    size_t folder = strlen(e->path) - strlen(e->name); /* e->path ends in "/<name>" */
    if ((size_t)snprintf(next, sizeof(next), "%.*s%s", (int)folder, e->path, target) >= sizeof(next))
      return fail_with(ENAMETOOLONG);
  }
  return open_entry(pid, AT_FDCWD, next, flags, mode, depth + 1);
}

static struct answer do_open(pid_t pid, int dirfd, const char *path, int flags, mode_t mode) {
  return open_entry(pid, dirfd, path, flags, mode, 0);
}

static struct answer open_entry(pid_t pid, int dirfd, const char *path, int flags, mode_t mode, int depth) {
  autodrop struct entry e = ENTRY_NONE;
  if (strncmp(path, "/dev/pts/", 9) == 0 && !(flags & O_CREAT)) {
    autoclose int slave = own_new_terminal(pid, dirfd, path);
    if (slave >= 0) {
      int out = open(proc_self(slave), (flags & (O_ACCMODE | O_NONBLOCK | O_APPEND)) | O_NOCTTY | O_CLOEXEC);
      return out < 0 ? fail_with(errno) : (struct answer){.fd = out, .cloexec = flags & O_CLOEXEC};
    }
  }
  if (flags & __O_TMPFILE) {
    /*
     * An unnamed file in the folder `path`: it becomes visible only by linkat, which is checked. A folder beneath a
     * root, or a root's top itself (glibc's tmpfile() asks for one in /tmp), which is no place for metadata changes
     * but is for files.
     */
    int top = top_named(pid, dirfd, path);
    int fd = top >= 0 ? top : decide_inode(pid, dirfd, path, 0);
    if (fd < 0) return errno == EPERM ? go_on() : fail_with(errno);
    int out = openat(fd, ".", flags | O_CLOEXEC, mode & ~umask_of(pid));
    int err = errno;
    release(fd);
    return out < 0 ? fail_with(err) : (struct answer){.fd = out, .cloexec = flags & O_CLOEXEC};
  }
  switch (decide_entry(pid, dirfd, path, 0, &e)) {
    case ACT: break;
    case REFUSE: return refused(&e, OPENS, (unsigned)flags);
    case UNKNOWN:
    case GRANTED:
    case OUTSIDE:
    default: return go_on();
  }
  int early = slash_answer(&e, OPENS, (unsigned)flags);
  if (early != 0) return fail_with(early);
  struct stat st = {0};
  int exists = fstatat(e.dir, e.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
  /* A link the kernel follows (no O_NOFOLLOW; O_CREAT | O_EXCL answers EEXIST on the link itself). */
  if (exists && S_ISLNK(st.st_mode) && !(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL)))
    return follow_link(pid, &e, flags, mode, depth);
  if (exists && !S_ISREG(st.st_mode)) return go_on(); /* a folder, a pipe, a link not followed: the kernel answers */
  /* Non-blocking, so that a pipe put there meanwhile cannot stall the supervisor; the flag is the command's after. */
  /* The mode counts only when the file is made (the umask is read from /proc only then). */
  int out = openat(e.dir, e.name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
                   flags & O_CREAT ? mode & ~umask_of(pid) & 07777 : 0);
  if (out < 0) return fail_with(errno);
  if (!(flags & O_NONBLOCK)) fcntl(out, F_SETFL, fcntl(out, F_GETFL) & ~O_NONBLOCK);
  /*
   * Held, as a file a metadata call was allowed on: tar sets the times, owner and mode of each file it writes next,
   * through this fd, and they find it here (it lies in the folder just checked, its name no kept one).
   */
  int path_fd = openat(self_fds, fd_name(out), O_PATH | O_CLOEXEC);
  struct stat made = {0};
  if (path_fd >= 0 && fstat(path_fd, &made) == 0 && S_ISREG(made.st_mode)) hold(path_fd, &made);
  else if (path_fd >= 0) close(path_fd);
  return (struct answer){.fd = out, .cloexec = flags & O_CLOEXEC};
}

/*
 * The entry a make, a removal or a symlink names, decided into `e` (ENTRY_NONE). Both outputs are filled: 1 when the
 * supervisor is to act on it (`e` holds its checked folder; `*done` a refusal, for the act's own answer to replace),
 * else 0 with `*done` the answer itself (the kernel's, or a refusal).
 */
static int decided_entry(pid_t pid, int dirfd, const char *path, enum entry_call call, struct entry *e,
                         struct answer *done) {
  int early = 0;
  switch (decide_entry(pid, dirfd, path, 0, e)) {
    case ACT:
      early = slash_answer(e, call, 0);
      *done = fail_with(early != 0 ? early : EACCES);
      return early == 0;
    case REFUSE: *done = refused(e, call, 0); return 0;
    case UNKNOWN:
    case GRANTED:
    case OUTSIDE:
    default: *done = go_on(); return 0;
  }
}

static struct answer do_mkdir(pid_t pid, int dirfd, const char *path, mode_t mode) {
  autodrop struct entry e = ENTRY_NONE;
  struct answer a = fail_with(EACCES);
  if (!decided_entry(pid, dirfd, path, MAKES_FOLDER, &e, &a)) return a;
  return result(mkdirat(e.dir, e.name, mode & ~umask_of(pid) & 07777));
}

static struct answer do_mknod(pid_t pid, int dirfd, const char *path, mode_t mode, dev_t dev) {
  /* Pipes, sockets and plain files only: devices need a capability no command has. */
  mode_t type = mode & S_IFMT;
  if (type != 0 && type != S_IFREG && type != S_IFIFO && type != S_IFSOCK) return go_on();
  autodrop struct entry e = ENTRY_NONE;
  struct answer a = fail_with(EACCES);
  if (!decided_entry(pid, dirfd, path, MAKES, &e, &a)) return a;
  return result(mknodat(e.dir, e.name, type | (mode & ~umask_of(pid) & 07777), dev));
}

static struct answer do_unlink(pid_t pid, int dirfd, const char *path, int flags) {
  autodrop struct entry e = ENTRY_NONE;
  struct answer a = fail_with(EACCES);
  if (!decided_entry(pid, dirfd, path, flags & AT_REMOVEDIR ? REMOVES_FOLDER : REMOVES, &e, &a)) return a;
  return result(unlinkat(e.dir, e.name, flags & AT_REMOVEDIR));
}

static struct answer do_symlink(pid_t pid, const char *target, int dirfd, const char *path) {
  autodrop struct entry e = ENTRY_NONE;
  struct answer a = fail_with(EACCES);
  if (!decided_entry(pid, dirfd, path, MAKES, &e, &a)) return a;
  return result(symlinkat(target, e.dir, e.name));
}

/*
 * Both ends of a rename or an exchange. Refused when either is (a refusal changes nothing, whatever the other end);
 * left to the kernel when either is not known or lies outside the roots (the domain refuses what it does not grant),
 * or when the domain grants both; done here when both ends are checked folders in writable roots and one is the
 * supervisor's. An end is used only with the verdict decided for it in this call.
 */
static struct answer do_rename(pid_t pid, int olddir, const char *oldpath, int newdir, const char *newpath,
                               unsigned flags) {
  /* Flags the kernel refuses before it looks at a path (a whiteout needs no capability since Linux 5.8). */
  if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) != 0 ||
      ((flags & (RENAME_NOREPLACE | RENAME_WHITEOUT)) && (flags & RENAME_EXCHANGE)))
    return fail_with(EINVAL);
  autodrop struct entry from = ENTRY_NONE;
  autodrop struct entry to = ENTRY_NONE;
  enum verdict a = decide_entry(pid, olddir, oldpath, 1, &from);
  enum verdict b = decide_entry(pid, newdir, newpath, 1, &to);
  struct answer out = fail_with(EACCES);
  struct stat from_st = {0}, to_st = {0};
  if ((a == REFUSE || b == REFUSE) && from.dir >= 0 && to.dir >= 0 &&
      fstatat(from.dir, from.name, &from_st, AT_SYMLINK_NOFOLLOW) == 0 &&
      fstatat(to.dir, to.name, &to_st, AT_SYMLINK_NOFOLLOW) == 0 && from_st.st_dev == to_st.st_dev &&
      from_st.st_ino == to_st.st_ino && !from.slash && !to.slash)
    return result(0); /* both names are one file: the kernel does nothing, and answers success (an exchange too) */
  if (a == REFUSE || b == REFUSE) {
    /* What the kernel answers first: a folder that could not be found (ENOENT, ENOTDIR), a name missing or there. */
    int known = (a == REFUSE || a == ACT || a == GRANTED) && (b == REFUSE || b == ACT || b == GRANTED);
    int err = 0;
    if (a == UNKNOWN) err = from.lookup_error;
    else if (b == UNKNOWN) err = to.lookup_error;
    else if (known) err = answer_before_policy(RENAMES, flags, facts_of(&from), facts_of(&to));
    out = fail_with(err != 0 ? err : EACCES);
  } else if (a == UNKNOWN || b == UNKNOWN || a == OUTSIDE || b == OUTSIDE || (a == GRANTED && b == GRANTED)) {
    out = go_on();
  } else {
    /* The act names both ends without their slashes: what a slash asks of them is answered first. */
    int err = from.slash || to.slash ? answer_before_policy(RENAMES, flags, facts_of(&from), facts_of(&to)) : 0;
    out = err != 0 ? fail_with(err) : result(renameat2(from.dir, from.name, to.dir, to.name, flags));
  }
  return out;
}

static struct answer do_link(pid_t pid, int olddir, const char *oldpath, int newdir, const char *newpath, int flags) {
  /* What is linked must itself lie in a writable root: a link cannot give a second, writable name to a kept file. */
  int source = decide_inode(pid, olddir, oldpath, !(flags & AT_SYMLINK_FOLLOW));
  if (source < 0) return errno == EPERM ? go_on() : fail_with(errno);
  autodrop struct entry to = ENTRY_NONE;
  struct answer out = fail_with(EACCES);
  switch (decide_entry(pid, newdir, newpath, 0, &to)) {
    case ACT: {
      int early = slash_answer(&to, MAKES, 0);
      out = early != 0 ? fail_with(early)
                       : result(linkat(AT_FDCWD, proc_self(source), to.dir, to.name, AT_SYMLINK_FOLLOW));
      break;
    }
    case REFUSE: out = refused(&to, MAKES, 0); break;
    case UNKNOWN:
    case GRANTED:
    case OUTSIDE:
    default: out = go_on(); break;
  }
  release(source);
  return out;
}

/* A refused truncate's answer: the kernel looks at what the path names before it asks for permission. */
static int refused_truncate(pid_t pid, const char *path) {
  char seen[PATH_MAX];
  path = as_command_sees(pid, path, seen, sizeof(seen));
  autoclose int base = path[0] == '/' ? AT_FDCWD : open_base(pid, AT_FDCWD);
  autoclose int fd = base >= 0 || path[0] == '/' ? openat(base, path, O_PATH | O_CLOEXEC) : -1;
  struct stat st = {0};
  if (fd < 0 || fstat(fd, &st) != 0) return EACCES;
  return S_ISDIR(st.st_mode) ? EISDIR : !S_ISREG(st.st_mode) ? EINVAL : EACCES;
}

static struct answer do_truncate(pid_t pid, const char *path, off_t length) {
  /* Refused here, not left to the domain: Landlock governs truncation only from ABI 3 on. */
  autorelease int fd = decide_inode(pid, AT_FDCWD, path, 0);
  if (fd < 0 && errno == EPERM) return fail_with(refused_truncate(pid, path));
  if (fd < 0) return fail_with(errno);
  struct stat st = {0};
  if (fstat(fd, &st) != 0) return fail_with(errno);
  if (S_ISDIR(st.st_mode)) return fail_with(EISDIR);
  if (!S_ISREG(st.st_mode)) return fail_with(EINVAL);
  /*
   * Opened without blocking: a lease the command holds on the file then answers EWOULDBLOCK, where truncate(2) would
   * hold the supervisor, and with it every call of the session and the server's death signal, until the lease broke.
   */
  autoclose int file = open(proc_self(fd), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (file < 0) return fail_with(errno);
  return result(ftruncate(file, length));
}

/* ---- metadata ---- */

/*
 * Whether the command's `fd` was opened with O_PATH (the flags its fdinfo shows): the kernel answers EBADF to a call
 * that takes a real fd (fchmod, fchown, fsetxattr, futimens, ioctl), while the supervisor acts through its own.
 */
static int is_path_fd(pid_t pid, int fd) {
  char rel[32];
  snprintf(rel, sizeof(rel), "fdinfo/%d", fd);
  autoclose int info = proc_at(pid, rel, O_RDONLY | O_CLOEXEC, NULL);
  char text[512] = {0};
  ssize_t n = info < 0 ? -1 : read(info, text, sizeof(text) - 1);
  const char *flags = n > 0 ? strstr(text, "flags:") : NULL;
  return flags != NULL && (strtoul(flags + 6, NULL, 8) & O_PATH) != 0;
}

/* Fills both outputs: `*fd` (decide_inode's), and the answer for when it is -1. */
static struct answer meta_fd(pid_t pid, int dirfd, const char *path, int nofollow, int *fd) {
  *fd = decide_inode(pid, dirfd, path, nofollow);
  return *fd < 0 ? fail_with(errno) : go_on();
}

static struct answer do_chmod(pid_t pid, int dirfd, const char *path, int flags, mode_t mode) {
  autorelease int fd = -1;
  struct answer a = meta_fd(pid, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, &fd);
  if (fd < 0) return a;
  struct stat st = {0};
  if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) return fail_with(EOPNOTSUPP);
  return result(fchmodat(self_fds, fd_name(fd), mode, 0));
}

static struct answer do_chown(pid_t pid, int dirfd, const char *path, int flags, uid_t uid, gid_t gid) {
  autorelease int fd = -1;
  struct answer a = meta_fd(pid, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, &fd);
  if (fd < 0) return a;
  return result(fchownat(fd, "", uid, gid, AT_EMPTY_PATH));
}

static struct answer do_utimens(pid_t pid, int dirfd, const char *path, int flags, const struct timespec *times) {
  autorelease int fd = -1;
  struct answer a = meta_fd(pid, dirfd, path, flags & AT_SYMLINK_NOFOLLOW, &fd);
  if (fd < 0) return a;
  return result(utimensat(fd, "", times, AT_EMPTY_PATH));
}

static struct answer do_setxattr(pid_t pid, int dirfd, const char *path, int nofollow, const char *name,
                                 const void *value, size_t size, int flags) {
  autorelease int fd = -1;
  struct answer a = meta_fd(pid, dirfd, path, nofollow, &fd);
  if (fd < 0) return a;
  autoclose int real = reopen(fd);
  if (real < 0) return fail_with(EPERM);
  return result(value ? fsetxattr(real, name, value, size, flags) : fremovexattr(real, name));
}

static struct answer do_inode_flags(pid_t pid, int fd_arg, unsigned long request, uint64_t arg) {
  autorelease int fd = -1;
  struct answer a = meta_fd(pid, fd_arg, NULL, 0, &fd);
  if (fd < 0) return a;
  autoclose int real = reopen(fd);
  unsigned char buf[64] = {0};
  size_t size = _IOC_SIZE(request);
  if (real < 0) return fail_with(EPERM);
  if (size > sizeof(buf) || read_bytes(pid, arg, buf, size) != 0) return fail_with(EFAULT);
  return result(ioctl(real, request, buf));
}

/* ---- sockets ---- */

/*
 * socket() of an IP family, sent here only while the network is off: refused (EPERM, what the policy's filter answers
 * every other family), never let through, as the domain does not cover every IP protocol. The first refusal is
 * recorded for the server, which tells the model: a command that retries without printing would otherwise look
 * merely slow. The file appears whole (written aside, then renamed), holding the family.
 */
static int refusal_recorded;
static struct answer refuse_socket(int family) {
  if (!refusal_recorded && cfg->network_refusals != NULL) {
    refusal_recorded = 1;
    char aside[PATH_MAX];
    const char *name = family == AF_INET6 ? "AF_INET6" : "AF_INET";
    if (snprintf(aside, sizeof(aside), "%s.new", cfg->network_refusals) < (int)sizeof(aside)) {
      int fd = open(aside, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0) {
        int whole = write(fd, name, strlen(name)) == (ssize_t)strlen(name);
        close(fd);
        if (!whole || rename(aside, cfg->network_refusals) != 0) unlink(aside);
      }
    }
  }
  return fail_with(EPERM);
}

/* ---- one notification ---- */

/* Whether the domain decides call `nr` by itself (what it makes, removes, renames, links, opens or truncates). */
static int domain_governs(long nr) {
  switch (nr) {
#ifdef SYS_open
    case SYS_open: case SYS_creat: case SYS_mkdir: case SYS_mknod: case SYS_unlink: case SYS_rmdir:
    case SYS_rename: case SYS_link: case SYS_symlink:
#endif
#ifdef SYS_renameat
    case SYS_renameat:
#endif
    case SYS_openat: case SYS_mkdirat: case SYS_mknodat: case SYS_unlinkat: case SYS_renameat2: case SYS_linkat:
    case SYS_symlinkat:
      return 1;
    default:
      return 0;
  }
}

static struct answer unreadable(long nr) {
  return domain_governs(nr) ? go_on() : fail_with(EPERM);
}

#define ARG(i) (notif->data.args[i])
#define INT_ARG(i) ((int)(int32_t)ARG(i))

static struct answer handle(struct seccomp_notif *notif) {
  pid_t pid = notif->pid;
  char path[PATH_MAX], path2[PATH_MAX];
  long nr = notif->data.nr;
  /*
   * A path that cannot be read (a bad pointer, or a command that made itself non-dumpable, whose memory a process
   * without capabilities cannot read): the kernel answers a call the domain governs, and a metadata call, which
   * Landlock would let through, is refused.
   */
#define STRING(i, buf) \
  do { \
    if (read_string(pid, ARG(i), buf, sizeof(buf)) != 0) return unreadable(nr); \
  } while (0)
  switch (nr) {
#ifdef SYS_open
    case SYS_open: STRING(0, path); return do_open(pid, AT_FDCWD, path, INT_ARG(1), ARG(2));
    case SYS_creat: STRING(0, path); return do_open(pid, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, ARG(1));
    case SYS_mkdir: STRING(0, path); return do_mkdir(pid, AT_FDCWD, path, ARG(1));
    case SYS_mknod: STRING(0, path); return do_mknod(pid, AT_FDCWD, path, ARG(1), ARG(2));
    case SYS_unlink: STRING(0, path); return do_unlink(pid, AT_FDCWD, path, 0);
    case SYS_rmdir: STRING(0, path); return do_unlink(pid, AT_FDCWD, path, AT_REMOVEDIR);
    case SYS_rename: STRING(0, path); STRING(1, path2); return do_rename(pid, AT_FDCWD, path, AT_FDCWD, path2, 0);
    case SYS_link: STRING(0, path); STRING(1, path2); return do_link(pid, AT_FDCWD, path, AT_FDCWD, path2, 0);
    case SYS_symlink: STRING(0, path); STRING(1, path2); return do_symlink(pid, path, AT_FDCWD, path2);
    case SYS_chmod: STRING(0, path); return do_chmod(pid, AT_FDCWD, path, 0, ARG(1));
    case SYS_chown: STRING(0, path); return do_chown(pid, AT_FDCWD, path, 0, ARG(1), ARG(2));
    case SYS_lchown: STRING(0, path); return do_chown(pid, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, ARG(1), ARG(2));
    case SYS_utime: {
      STRING(0, path);
      struct { long actime, modtime; } t = {0, 0};
      if (ARG(1) == 0) return do_utimens(pid, AT_FDCWD, path, 0, NULL);
      if (read_bytes(pid, ARG(1), &t, sizeof(t)) != 0) return fail_with(EFAULT);
      struct timespec ts[2] = {{t.actime, 0}, {t.modtime, 0}};
      return do_utimens(pid, AT_FDCWD, path, 0, ts);
    }
    case SYS_utimes:
    case SYS_futimesat: {
      int at = nr == SYS_utimes ? 0 : 1;
      STRING(at, path);
      struct timeval tv[2] = {{0, 0}, {0, 0}};
      if (ARG(at + 1) == 0) return do_utimens(pid, at ? INT_ARG(0) : AT_FDCWD, path, 0, NULL);
      if (read_bytes(pid, ARG(at + 1), tv, sizeof(tv)) != 0) return fail_with(EFAULT);
      struct timespec ts[2] = {{tv[0].tv_sec, tv[0].tv_usec * 1000}, {tv[1].tv_sec, tv[1].tv_usec * 1000}};
      return do_utimens(pid, at ? INT_ARG(0) : AT_FDCWD, path, 0, ts);
    }
#endif
    case SYS_openat: STRING(1, path); return do_open(pid, INT_ARG(0), path, INT_ARG(2), ARG(3));
    case SYS_mkdirat: STRING(1, path); return do_mkdir(pid, INT_ARG(0), path, ARG(2));
    case SYS_mknodat: STRING(1, path); return do_mknod(pid, INT_ARG(0), path, ARG(2), ARG(3));
    case SYS_unlinkat: STRING(1, path); return do_unlink(pid, INT_ARG(0), path, INT_ARG(2));
#ifdef SYS_renameat
    case SYS_renameat:
      STRING(1, path); STRING(3, path2);
      return do_rename(pid, INT_ARG(0), path, INT_ARG(2), path2, 0);
#endif
    case SYS_renameat2:
      STRING(1, path); STRING(3, path2);
      return do_rename(pid, INT_ARG(0), path, INT_ARG(2), path2, (unsigned)ARG(4));
    case SYS_linkat:
      STRING(1, path); STRING(3, path2);
      return do_link(pid, INT_ARG(0), path, INT_ARG(2), path2, INT_ARG(4));
    case SYS_symlinkat: STRING(0, path); STRING(2, path2); return do_symlink(pid, path, INT_ARG(1), path2);
    case SYS_truncate: STRING(0, path); return do_truncate(pid, path, (off_t)ARG(1));
    case SYS_fchmod:
      /* By fd alone: AT_FDCWD is no fd here, nor is one opened with O_PATH. */
      if (INT_ARG(0) < 0 || is_path_fd(pid, INT_ARG(0))) return fail_with(EBADF);
      return do_chmod(pid, INT_ARG(0), NULL, 0, ARG(1));
    case SYS_fchmodat:
    case SYS_fchmodat2: {
      int flags = nr == SYS_fchmodat ? 0 : INT_ARG(3);
      if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH)) return fail_with(EINVAL);
      STRING(1, path);
      if (*path == '\0' && !(flags & AT_EMPTY_PATH)) return fail_with(ENOENT);
      return do_chmod(pid, INT_ARG(0), path, flags, ARG(2));
    }
    case SYS_fchown:
      if (INT_ARG(0) < 0 || is_path_fd(pid, INT_ARG(0))) return fail_with(EBADF);
      return do_chown(pid, INT_ARG(0), NULL, 0, ARG(1), ARG(2));
    case SYS_fchownat:
      STRING(1, path);
      if (*path == '\0' && !(INT_ARG(4) & AT_EMPTY_PATH)) return fail_with(ENOENT);
      return do_chown(pid, INT_ARG(0), path, INT_ARG(4), ARG(2), ARG(3));
    case SYS_utimensat: {
      const char *p = NULL;
      if (ARG(1) == 0 && INT_ARG(0) == AT_FDCWD) return fail_with(EFAULT); /* no path, and no fd to go by */
      if (ARG(1) == 0 && INT_ARG(0) >= 0 && is_path_fd(pid, INT_ARG(0))) return fail_with(EBADF);
      if (ARG(1) != 0) {
        STRING(1, path);
        p = path;
      }
      struct timespec ts[2] = {{0, 0}, {0, 0}};
      if (ARG(2) != 0 && read_bytes(pid, ARG(2), ts, sizeof(ts)) != 0) return fail_with(EFAULT);
      return do_utimens(pid, INT_ARG(0), p, INT_ARG(3), ARG(2) ? ts : NULL);
    }
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_fsetxattr:
    case SYS_removexattr:
    case SYS_lremovexattr:
    case SYS_fremovexattr: {
      int by_fd = nr == SYS_fsetxattr || nr == SYS_fremovexattr;
      int nofollow = nr == SYS_lsetxattr || nr == SYS_lremovexattr;
      int set = nr == SYS_setxattr || nr == SYS_lsetxattr || nr == SYS_fsetxattr;
      if (!by_fd) STRING(0, path);
      if (by_fd && (INT_ARG(0) < 0 || is_path_fd(pid, INT_ARG(0)))) return fail_with(EBADF);
      char name[XATTR_NAME_MAX + 1];
      if (read_string(pid, ARG(1), name, sizeof(name)) != 0) return fail_with(ERANGE);
      static char value[XATTR_SIZE_MAX];
      size_t size = set ? ARG(3) : 0;
      if (size > sizeof(value)) return fail_with(E2BIG);
      if (set && size > 0 && read_bytes(pid, ARG(2), value, size) != 0) return fail_with(EFAULT);
      return do_setxattr(pid, by_fd ? INT_ARG(0) : AT_FDCWD, by_fd ? NULL : path, nofollow, name,
                         set ? value : NULL, size, set ? INT_ARG(4) : 0);
    }
    case SYS_ioctl:
      if (INT_ARG(0) < 0 || is_path_fd(pid, INT_ARG(0))) return fail_with(EBADF);
      return do_inode_flags(pid, INT_ARG(0), (unsigned long)(uint32_t)ARG(1), ARG(2));
    case SYS_socket: return refuse_socket(INT_ARG(0));
    case SYS_umask: forget_umasks(); return go_on();
    default: break;
  }
  /* A call the filter sends here that this build does not know (setxattrat, ...): refused, not let through. */
  return fail_with(ENOSYS);
#undef STRING
}

/* Answers `notif`: the kernel goes on, or the result, or an fd put into the command. */
static void answer(int listener, struct seccomp_notif *notif, struct seccomp_notif_resp *resp, struct answer a) {
  /* A caller gone meanwhile fails both ioctls (ENOENT): what was read of it was checked valid before any act. */
  if (a.fd >= 0) {
    autoclose int fd = a.fd;
    struct seccomp_notif_addfd add = {.id = notif->id,
                                      .flags = SECCOMP_ADDFD_FLAG_SEND,
                                      .srcfd = (uint32_t)fd,
                                      .newfd = 0,
                                      .newfd_flags = a.cloexec ? O_CLOEXEC : 0};
    /* SEND answers the call with the new fd's number at once (5.14+); before, the number is answered after. */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) >= 0) return;
    if (errno == EINVAL) {
      add.flags = 0;
      int added = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
      a = added < 0 ? fail_with(EMFILE) : (struct answer){.val = added, .fd = -1};
    } else {
      /*
       * Not put into the command (EMFILE: its fd table is full): the kernel hands a failed SEND back, and the call is
       * still to be answered, with that error. Unanswered, the command waited in it forever.
       */
      a = fail_with(errno);
    }
  }
  resp->id = notif->id;
  resp->flags = a.go_on ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0;
  resp->error = a.go_on ? 0 : -a.error;
  resp->val = a.go_on || a.error ? 0 : a.val;
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

/* ---- the process tree ---- */

/* The parent of `pid` from /proc/<pid>/stat, or -1. */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof(path), "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  char *end = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
  int ppid = -1;
  if (end == NULL || sscanf(end + 1, " %*c %d", &ppid) != 1) return -1;
  return ppid;
}

/*
 * Signals every descendant with `sig`; returns how many there were. Reads every process's parent from /proc: a
 * subreaper's descendants stay below it whatever they do (setsid, double forks).
 */
static int signal_descendants(int sig) {
  DIR *proc = opendir("/proc");
  if (proc == NULL) return 0;
  size_t cap = 1024, n = 0;
  pid_t *pids = malloc(cap * sizeof(pid_t)), *parents = malloc(cap * sizeof(pid_t));
  struct dirent *d;
  while (pids && parents && (d = readdir(proc)) != NULL) {
    pid_t pid = (pid_t)strtol(d->d_name, NULL, 10);
    if (pid <= 0) continue;
    if (n == cap) {
      /* Out of memory: the processes listed so far are signalled (a failed realloc lost the list, and so all of them). */
      pid_t *more_pids = realloc(pids, 2 * cap * sizeof(pid_t));
      if (more_pids == NULL) break;
      pids = more_pids;
      pid_t *more_parents = realloc(parents, 2 * cap * sizeof(pid_t));
      if (more_parents == NULL) break;
      parents = more_parents;
      cap *= 2;
    }
    pids[n] = pid;
    parents[n++] = parent_of(pid);
  }
  closedir(proc);
  int count = 0;
  if (pids && parents) {
    /* Mark descendants: repeat until no new one (parents may come after their children in /proc's order). */
    char *mine = calloc(n ? n : 1, 1);
    pid_t self = getpid();
    for (int changed = 1; mine && changed;) {
      changed = 0;
      for (size_t i = 0; i < n; i++) {
        if (mine[i]) continue;
        int is_mine = parents[i] == self;
        for (size_t j = 0; !is_mine && j < n; j++) is_mine = mine[j] && pids[j] == parents[i];
        if (is_mine) mine[i] = changed = 1;
      }
    }
    for (size_t i = 0; mine && i < n; i++)
      if (mine[i] && kill(pids[i], sig) == 0) count++;
    free(mine);
  }
  free(pids);
  free(parents);
  return count;
}

/* Stops every descendant until none is left running (a stopped process forks no more), then kills them all. */
static void end_descendants(void) {
  /* No child left (ECHILD): whatever the command started has ended, and nothing can be below the supervisor. */
  pid_t reaped;
  while ((reaped = waitpid(-1, NULL, WNOHANG)) > 0) {
  }
  if (reaped < 0 && errno == ECHILD) return;
  for (int round = 0; round < 100 && signal_descendants(SIGSTOP) > 0; round++) {
    int before = signal_descendants(0);
    usleep(1000);
    if (signal_descendants(0) == before) break;
  }
  signal_descendants(SIGKILL);
  for (int round = 0; round < 1000; round++) {
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
    if (signal_descendants(SIGKILL) == 0) break;
    usleep(1000);
  }
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

/* Exits as the command did: its status, or the same signal (without a core dump). */
static void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + SIGKILL);
}

/* ---- setup ---- */

static int send_fd(int sock, int fd) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof(u));
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof(int));
  return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int receive_fd(int sock) {
  char byte = 0;
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } u;
  memset(&u, 0, sizeof(u));
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
  ssize_t n;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  while (n < 0 && errno == EINTR);
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (n != 1 || c == NULL || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd = -1;
  memcpy(&fd, CMSG_DATA(c), sizeof(int));
  return fd;
}

int install_seccomp_program(const char *base64, unsigned flags); /* sandbox-exec.c */

/* What the command's side needs, handed to start_command. */
struct start {
  pid_t supervisor;
  int kept_socket, socket; /* the supervisor's end of the pair, the command's */
  const sigset_t *mask;    /* the signal mask the command starts with */
  enter_sandbox_fn enter;
  void *context;
  char **command;
};

/*
 * The command's side: enters the sandbox, hands the supervisor its listener and execs the command. It runs in the
 * supervisor's memory (see supervise) while the supervisor waits: it changes nothing there the supervisor reads after.
 */
static int start_command(void *arg) {
  const struct start *s = arg;
  close(s->kept_socket);
  for (int i = 0; i < cfg->roots.n; i++)
    if (root_fds[i] >= 0) close(root_fds[i]);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != s->supervisor) _exit(EXIT_SETUP); /* the supervisor died before the signal was asked for */
  sigprocmask(SIG_SETMASK, s->mask, NULL);
  int status = s->enter(s->context);
  if (status != 0) _exit(status);
  int listener = install_seccomp_program(cfg->program, SECCOMP_FILTER_FLAG_NEW_LISTENER);
  if (listener < 0) _exit(EXIT_SETUP);
  if (send_fd(s->socket, listener) != 0) _exit(EXIT_SETUP);
  close(listener);
  close(s->socket);
  execvp(s->command[0], s->command);
  int err = errno;
  fprintf(stderr, NAME ": %s: %s\n", s->command[0], strerror(err));
  _exit(err == ENOENT ? 127 : 126);
}

/*
 * A filter of the supervisor's own, installed once the command runs: the supervisor never runs a program (execve and
 * execveat fail, and every call of another architecture or ABI). It also marks the supervisor as part of the sandbox
 * for the server's listeners, which let a local connection in only when the process holding its other end is not
 * confined beyond the server (no_new_privs and a seccomp filter more): the supervisor opens the command's fds
 * (/proc/<pid>/fd/N) while it decides, a socket among them, and was counted unconfined, so a command that kept moving
 * its socket out of its own table while it asked about that fd was let in as the person's client.
 */
static int confine_self(void) {
  struct sock_filter code[] = {
#if defined(__x86_64__) || defined(__aarch64__)
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
#if defined(__x86_64__)
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
#else
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
#endif
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
#endif
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000 /* x32 */, 2, 0),
#endif
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {(unsigned short)(sizeof(code) / sizeof(code[0])), code};
  return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

int supervise(const struct supervision *config, enter_sandbox_fn enter, void *context, char **command) {
  cfg = config;
  for (int i = 0; i < HELD_FILES; i++) held[i].fd = -1;
  root_fds = calloc(cfg->roots.n ? cfg->roots.n : 1, sizeof(int));
  if (root_fds == NULL) return EXIT_SETUP;
  root_stats = calloc(cfg->roots.n ? cfg->roots.n : 1, sizeof(struct stat));
  if (root_stats == NULL) return EXIT_SETUP;
  for (int i = 0; i < cfg->roots.n; i++) {
    root_fds[i] = open(cfg->roots.path[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root_fds[i] >= 0 && fstat(root_fds[i], &root_stats[i]) != 0) {
      close(root_fds[i]);
      root_fds[i] = -1;
    }
  }
  for (int i = 0; i < PROC_SLOTS; i++) procs[i].dir = -1;

  pid_t server = getppid();
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 || prctl(PR_SET_PDEATHSIG, PARENT_DIED) != 0) {
    fprintf(stderr, NAME ": cannot become the sandbox's supervisor: %s\n", strerror(errno));
    return EXIT_SETUP;
  }
  if (getppid() != server) _exit(EXIT_SETUP); /* the server died before the signal was asked for */
  sigset_t handled, original;
  sigemptyset(&handled);
  /*
   * Taken by the supervisor through a signalfd: SIGTERM and SIGHUP are passed to the command; a terminal's SIGINT,
   * SIGQUIT and job-control signals reach the command's process group themselves (and the server's Ctrl-C without a
   * terminal skips the supervisor), so they are only kept from the supervisor.
   */
  int taken[] = {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU, SIGWINCH, SIGCHLD};
  for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) sigaddset(&handled, taken[i]);
  sigaddset(&handled, PARENT_DIED);
  sigprocmask(SIG_BLOCK, &handled, &original);
  int sv[2] = {-1, -1};
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    fprintf(stderr, NAME ": cannot make a socket pair: %s\n", strerror(errno));
    return EXIT_SETUP;
  }
  struct start start = {getpid(), sv[0], sv[1], &original, enter, context, command};
  /*
   * CLONE_VM | CLONE_VFORK: the child borrows this process's memory until it execs the command, and this process
   * waits until then. No page table is copied and no page copied on a write, which a fork cost on every spawn (a
   * millisecond and more under a hypervisor). The child has fds, credentials, signal state and a stack of its own.
   */
  const size_t stack_size = 1 << 20; /* execvp builds each candidate path on the stack */
  char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    fprintf(stderr, NAME ": cannot map a stack for the command: %s\n", strerror(errno));
    return EXIT_SETUP;
  }
  pid_t child = clone(start_command, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  int clone_error = errno;
  munmap(stack, stack_size); /* the child has exec'd or exited: it no longer runs on it */
  if (child < 0) {
    fprintf(stderr, NAME ": cannot start the command: %s\n", strerror(clone_error));
    return EXIT_SETUP;
  }
  close(sv[1]);
  if (confine_self() != 0) {
    fprintf(stderr, NAME ": cannot install the supervisor's own filter: %s\n", strerror(errno));
    kill(child, SIGKILL);
    return EXIT_SETUP;
  }
  umask(0); /* the command's own umask is applied to what is made for it */
  signal(SIGPIPE, SIG_IGN); /* a closed stderr must not end the supervisor */
  int signals = signalfd(-1, &handled, SFD_CLOEXEC);
  if (signals < 0) {
    fprintf(stderr, NAME ": cannot take signals through a signalfd: %s\n", strerror(errno));
    kill(child, SIGKILL);
    return EXIT_SETUP;
  }
  int listener = receive_fd(sv[0]);
  close(sv[0]);
  /*
   * The command waits on every answer: with this flag (6.6+) the kernel wakes the supervisor, and then the command,
   * on the CPU of the one that waits for it, a direct hand-over instead of a wake-up the scheduler places anywhere.
   * Without it (an older kernel refuses it) the answers are the same, only later.
   */
  if (listener >= 0) ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);

  struct seccomp_notif_sizes sizes = {0};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) sizes.seccomp_notif = sizes.seccomp_notif_resp = 4096;
  struct seccomp_notif *notif = calloc(1, sizes.seccomp_notif > sizeof(*notif) ? sizes.seccomp_notif : sizeof(*notif));
  struct seccomp_notif_resp *resp =
      calloc(1, sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp : sizeof(*resp));
  if (notif == NULL || resp == NULL) {
    kill(child, SIGKILL);
    return EXIT_SETUP;
  }

  for (;;) {
    struct pollfd fds[2] = {{signals, POLLIN, 0}, {listener, POLLIN, 0}};
    int ready = poll(fds, listener >= 0 ? 2 : 1, -1);
    if (ready < 0 && errno != EINTR) break;
    if (listener >= 0 && (fds[1].revents & POLLIN)) {
      memset(notif, 0, sizes.seccomp_notif);
      if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, notif) == 0) {
        current_listener = listener;
        current_id = notif->id;
        struct answer a = handle(notif);
        memset(resp, 0, sizes.seccomp_notif_resp);
        answer(listener, notif, resp, a);
      }
    } else if (listener >= 0 && (fds[1].revents & (POLLHUP | POLLERR))) {
      close(listener); /* every process under the filter is gone */
      listener = -1;
    }
    if (fds[0].revents & POLLIN) {
      struct signalfd_siginfo info = {0};
      if (read(signals, &info, sizeof(info)) != sizeof(info)) continue;
      int sig = (int)info.ssi_signo;
      if (sig == PARENT_DIED) {
        end_descendants();
        _exit(128 + SIGKILL);
      }
      if (sig == SIGTERM || sig == SIGHUP) kill(child, sig); /* the command decides what they mean to it */
      if (sig != SIGCHLD) continue;
      int status = 0;
      pid_t done;
      while ((done = waitpid(-1, &status, WNOHANG)) > 0) {
        if (done != child) continue; /* an orphan that ended: reaped */
        end_descendants();
        exit_like(status);
      }
    }
  }
  kill(child, SIGKILL);
  end_descendants();
  return EXIT_SETUP;
}
