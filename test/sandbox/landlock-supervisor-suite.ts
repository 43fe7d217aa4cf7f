// The Landlock backend's supervisor against an attacker: the real server (`mcp --sandbox-backend landlock`, its
// defaults otherwise: workspace-write, network off), served as root and as nobody. Landlock alone has no right for a
// file's metadata, grants whole subtrees, and leaves limits, scheduling and leftover processes alone; the supervisor
// (native/supervisor.c) covers these. Each attack is typed as a model would, and what it left is checked on the host.
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { confinedBeyond, readConfinement } from '../../src/linux/tcp-table.js';
import { NOBODY, removeMountPoint } from '../helpers/nobody.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { NO_LANDLOCK } from './sandbox-helpers.js';

const KEPT = ['.git', '.agents', '.codex', '.aws', 'HEAD'];
const uidOf = (user: ServerUser) => (user === 'root' ? 0 : Number(NOBODY));
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/**
 * 200 trials: the umask is 000 while a thread makes files at the workspace's top over and over; the main thread sets
 * it to 077 and then tells the thread, whose next file must be 0600.
 */
const UMASK_RACE = String.raw`#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
static atomic_int done;
static int trial;
static void *maker(void *arg) {
  char name[64];
  for (int n = 0; !atomic_load(&done); n++) {
    snprintf(name, sizeof name, "spin_%d", n % 4);
    int fd = open(name, O_CREAT | O_WRONLY, 0666);
    if (fd >= 0) close(fd);
  }
  snprintf(name, sizeof name, "final_%d", trial);
  int fd = open(name, O_CREAT | O_WRONLY | O_EXCL, 0666);
  struct stat st;
  *(int *)arg = fd >= 0 && fstat(fd, &st) == 0 ? (int)(st.st_mode & 0777) : -1;
  if (fd >= 0) close(fd);
  unlink(name);
  return NULL;
}
int main(void) {
  int stale = 0;
  for (trial = 0; trial < 200; trial++) {
    umask(0);
    atomic_store(&done, 0);
    int mode;
    pthread_t t;
    pthread_create(&t, NULL, maker, &mode);
    usleep(200 + rand() % 300);
    umask(077);
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    if (mode != 0600) stale++;
  }
  for (int i = 0; i < 4; i++) {
    char name[16];
    snprintf(name, sizeof name, "spin_%d", i);
    unlink(name);
  }
  printf("%d of 200 made with the umask before\n", stale);
  return 0;
}
`;

/**
 * A thread with an fd table of its own (CLONE_THREAD without CLONE_FILES) whose fd 9 is `<top>/sub`, while the
 * process's fd 9 is `<top>`. Through /proc/self the kernel reads the process's table (so `<top>`), through
 * /proc/thread-self the thread's: the kept names are refused at `<top>`, an ordinary name is made there, and .git
 * through /proc/thread-self is an ordinary name in `sub`.
 */
const THREAD_TABLE = String.raw`#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static const char *top;
static atomic_int done;
static int in_thread(void *unused) {
  (void)unused;
  char sub[4096];
  snprintf(sub, sizeof sub, "%s/sub", top);
  int fd = open(sub, O_PATH | O_DIRECTORY);
  dup2(fd, 9);
  if (mkdir("/proc/self/fd/9/.git", 0755) == 0) printf("DID_GIT\n");
  if (mkdir("/proc/self/fd/9/.codex", 0755) == 0) printf("DID_CODEX\n");
  if (mkdir("/proc/self/fd/9/plain", 0755) == 0) printf("PLAIN_MADE\n");
  int head = open("/proc/self/fd/9/HEAD", O_CREAT | O_WRONLY, 0644);
  if (head >= 0) printf("DID_HEAD\n");
  if (mkdir("/proc/thread-self/fd/9/.git", 0755) == 0) printf("THREAD_SELF_MADE\n");
  fflush(stdout);
  atomic_store(&done, 1);
  return 0;
}
int main(int argc, char **argv) {
  if (argc != 2) return 2;
  top = argv[1];
  int fd = open(top, O_PATH | O_DIRECTORY);
  dup2(fd, 9);
  static char stack[1 << 16];
  if (clone(in_thread, stack + sizeof stack, CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, NULL) < 0) return 1;
  for (int i = 0; i < 3000 && !atomic_load(&done); i++) usleep(10 * 1000);
  return 0;
}
`;

/**
 * Threads asking fchmod() of a socket over and over for `argv[1]` seconds: the supervisor opens /proc/<tid>/fd/N for
 * each, so its own fd table holds the socket for a moment each time. Prints the socket and the supervisor's pid.
 */
const SOCKET_METADATA = String.raw`#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
static int fd;
static void *ask(void *unused) {
  for (;;) fchmod(fd, 0600);
  return unused;
}
int main(int argc, char **argv) {
  int pair[2];
  if (argc != 2 || socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return 2;
  fd = pair[0];
  struct stat st;
  fstat(fd, &st);
  printf("SOCKET socket:[%lu] SUPERVISOR %d\n", (unsigned long)st.st_ino, (int)getppid());
  fflush(stdout);
  pthread_t t;
  for (int i = 0; i < 4; i++) pthread_create(&t, NULL, ask, NULL);
  sleep(atoi(argv[1]));
  return 0;
}
`;

/** A folder of `user`'s under /var/tmp, removed after the suite. */
function folder(user: ServerUser, prefix: string): string {
  const dir = folderOf(user, mkdtempSync(`/var/tmp/${prefix}`));
  cleanup.push(dir);
  return dir;
}

/** A git workspace of `user`'s with a commit, a folder `src` and a script in it, as a project has. */
function workspace(user: ServerUser, parent = '/var/tmp'): string {
  const ws = mkdtempSync(join(parent, 'ue-llsup-')); // root's while git runs (git refuses a repository of another user)
  cleanup.push(ws);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', ws, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { stdio: 'ignore' });
  git('init', '-q');
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'README.md'), 'readme\n');
  writeFileSync(join(ws, 'src/x.sh'), 'echo x\n', { mode: 0o644 });
  git('add', '.');
  git('commit', '-q', '-m', 'start');
  folderOf(user, ws); // hands what git and the test made to the user
  return ws;
}

/**
 * A python script that calls renameat2 on (from, to, flags) triples given as arguments `from:to:flags` and prints each
 * answer as `RENAME <from> <to> <flags> <ok|ERRNO-NAME>`, going on after a failure.
 */
const RENAMES = String.raw`import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for arg in sys.argv[1:]:
    a, b, flags = arg.split(':')
    res = libc.renameat2(-100, a.encode(), -100, b.encode(), int(flags))
    print('RENAME', a, b, flags, 'ok' if res == 0 else errno.errorcode[ctypes.get_errno()], flush=True)
`;

/**
 * A python script that calls syscall(argv[1]) on the path argv[2] with the rest of the arguments as integers, or a
 * struct file_attr (24 bytes, its flags set) for file_setattr, and prints `SYSCALL <nr> <ok|ERRNO-NAME>`.
 */
const SYSCALL = String.raw`import ctypes, errno, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr, path = int(sys.argv[1]), sys.argv[2].encode()
if nr == 469:
    attr = ctypes.create_string_buffer((0x20 | 0x80 | 0x40).to_bytes(8, 'little') + bytes(16))
    args = [ctypes.c_long(-100), path, attr, ctypes.c_size_t(24), ctypes.c_uint(0)]
else:
    args = [ctypes.c_long(-100), path] + [ctypes.c_long(int(x, 0)) for x in sys.argv[3:]]
res = libc.syscall(ctypes.c_long(nr), *args)
print('SYSCALL', nr, 'ok' if res >= 0 else errno.errorcode[ctypes.get_errno()], flush=True)
`;

/**
 * Calls at a workspace's top, each printed as `CALL <name> <ok|ERRNO-NAME>`: trailing slashes, fd-only calls given
 * no fd, a folder opened for writing, O_TMPFILE at the top and linked there, a truncate of a file the command holds a
 * lease on (timed), an encryption policy set on a folder outside the roots (argv[1]).
 */
const KERNEL_ANSWERS = String.raw`import ctypes, errno, fcntl, os, platform, signal, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
UTIMENSAT = 280 if platform.machine() == 'x86_64' else 88
def call(name, fn):
    try:
        res = fn()
        if isinstance(res, int) and res < 0:
            raise OSError(ctypes.get_errno(), name)
        print('CALL', name, 'ok', flush=True)
    except OSError as e:
        print('CALL', name, errno.errorcode.get(e.errno, e.errno), flush=True)
for name in ['f1', 'f2', 'f3']:
    open(name, 'w').close()
os.mkdir('d2')
call('unlink-slash', lambda: os.unlink('f1/'))
call('rename-to-slash', lambda: os.rename('f2', 'g/'))
call('rename-from-slash', lambda: os.rename('f3/', 'g'))
call('open-creat-slash', lambda: os.open('newf/', os.O_CREAT | os.O_WRONLY, 0o644))
call('mknod-slash', lambda: os.mkfifo('fifo2/'))
call('symlink-slash', lambda: os.symlink('x', 'sl/'))
call('mkdir-slash', lambda: os.mkdir('d/'))
call('rmdir-slash', lambda: os.rmdir('d/'))
call('rename-dirs-slash', lambda: os.rename('d2/', 'e2/'))
call('open-dir-for-writing', lambda: os.open('.git', os.O_WRONLY))
call('open-file-as-folder', lambda: os.open('f1', os.O_WRONLY | os.O_DIRECTORY))
call('fchmod-cwd', lambda: libc.fchmod(-100, 0o700))
call('fchown-cwd', lambda: libc.fchown(-100, os.getuid(), os.getgid()))
call('utimensat-cwd-null', lambda: libc.syscall(UTIMENSAT, -100, None, None, 0))  # libc's wrapper refuses NULL itself
def tmpfile():
    fd = os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o600)
    os.write(fd, b'tmp')
    return libc.linkat(-100, b'/proc/self/fd/%d' % fd, -100, b'linked', 0x400)  # AT_SYMLINK_FOLLOW
call('tmpfile-at-top', tmpfile)
def leased():
    signal.signal(signal.SIGIO, signal.SIG_IGN)  # a lease's break signals its holder, the command itself
    fd = os.open('leased', os.O_CREAT | os.O_RDONLY, 0o644)
    fcntl.fcntl(fd, 1024, fcntl.F_RDLCK)  # F_SETLEASE
    start = time.monotonic()
    try:
        os.truncate('leased', 0)
    finally:
        os.mkdir('after-lease')
        print('LEASE_SECONDS %.1f' % (time.monotonic() - start), flush=True)
call('truncate-leased', leased)
def encrypt():
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
    policy = bytes([0, 1, 4, 0]) + bytes(8)  # v1: AES-256-XTS contents, AES-256-CTS names, a descriptor
    fcntl.ioctl(fd, 0x800c6613, policy)
call('set-encryption-policy', encrypt)
`;

/** The bytes of `.git/config` and of every hook, and whether git keeps worktrees: what an attack on .git changes. */
function gitState(ws: string): string {
  const hooks = join(ws, '.git/hooks');
  return JSON.stringify({
    config: readFileSync(join(ws, '.git/config'), 'utf8'),
    hooks: readdirSync(hooks).map((name) => [name, readFileSync(join(hooks, name), 'utf8')]),
    worktrees: existsSync(join(ws, '.git/worktrees')),
  });
}

/** What metadata an attack could change on a file: mode, owner, times, extended attributes, inode flags. */
function metadata(path: string, flags: boolean): string {
  const st = statSync(path);
  const xattrs = execFileSync('python3', ['-c', 'import os, sys; print(sorted(os.listxattr(sys.argv[1])))', path]);
  const attrs = flags ? execFileSync('lsattr', ['-d', path]).toString().split(' ')[0] : '';
  return JSON.stringify({ mode: st.mode, uid: st.uid, gid: st.gid, mtime: st.mtimeMs, xattrs: String(xattrs), attrs });
}

/** Whether process `pid` is still the `sleep <seconds>` the attack started (not gone, nor a reused pid). */
function isSleeper(pid: number, seconds: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`;
  } catch {
    return false;
  }
}

/** Waits until `done` holds, for at most `ms`; whether it did. */
async function waitFor(done: () => boolean, ms = 10_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50)))
    if (done()) return true;
  return done();
}

/** The process `parent` started whose command line holds `part`, or undefined. */
function childOf(parent: number, part: string): number | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(part)) return Number(name);
    } catch {
      // gone already
    }
  }
  return undefined;
}

/**
 * The attacks against a server run as `user`: one test file per user (landlock-supervisor-*.test.ts), so that the two
 * run side by side.
 */
export function landlockSupervisorSuite(user: ServerUser): void {
  describe.skipIf(NO_LANDLOCK !== undefined && !process.env.CI)('the Landlock supervisor against an attacker', () => {
    const servers: Server[] = [];
    const leftovers: { pid: number; seconds: number }[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      // A sleeper that outlived its sandbox is the test's own (started by its server's command): ended by pid.
      for (const { pid, seconds } of leftovers.splice(0)) if (isSleeper(pid, seconds)) process.kill(pid, 'SIGKILL');
    });
    const start = async (user: ServerUser, cwd: string, args: string[] = [], env: Record<string, string> = {}) => {
      const server = await startMcp(user, cwd, ['--sandbox-backend', 'landlock', ...args], env);
      servers.push(server);
      return server;
    };
    // Every sleeper has a duration of its own, so that its pid is told from the output and checked by its command line.
    let lastSeconds = 6000 + (process.pid % 500) * 10;
    const seconds = () => ++lastSeconds;
    /**
     * A command that leaves `sleep <seconds>` behind in a session and an environment of its own (no tag of the server's
     * reaches it), and prints its duration and pid once it runs.
     */
    const survivor = (duration: number, pidFile: string) =>
      `setsid -f env -i sh -c 'echo $$ > ${pidFile}; exec sleep ${duration}'\n` +
      `while [ ! -s ${pidFile} ]; do sleep 0.05; done; p=$(cat ${pidFile})\n` +
      `until [ "$(tr '\\0' ' ' < /proc/$p/cmdline)" = "sleep ${duration} " ]; do sleep 0.05; done\n` +
      `echo "SURVIVOR ${duration} $p"`;
    /** `command`, then the session's shell sleeping on (its pid told, to be ended after the test if it outlives it). */
    const held = (command: string) => {
      const duration = seconds();
      return `${command}\necho "HOLDER ${duration} $$"\nexec sleep ${duration}`;
    };
    /** Whether the survivor `out` tells is gone; it is ended after the test if it outlived it. */
    const leftBehind = (out: string) => {
      const [, duration, pid] = /SURVIVOR (\d+) (\d+)/.exec(out) ?? [];
      expect(Number(pid), out).toBeGreaterThan(0);
      leftovers.push({ pid: Number(pid), seconds: Number(duration) });
      const [, heldFor, holder] = /HOLDER (\d+) (\d+)/.exec(out) ?? [];
      if (holder !== undefined) leftovers.push({ pid: Number(holder), seconds: Number(heldFor) });
      return () => !isSleeper(Number(pid), Number(duration));
    };

    describe(`served as ${user}`, () => {
      it('cannot change the metadata of a file outside the writable roots, by path or by an fd it may read', async () => {
        const outside = folder(user, 'ue-victim-');
        const victim = join(outside, 'file');
        writeFileSync(victim, 'victim\n', { mode: 0o644 });
        chownSync(victim, uidOf(user), uidOf(user));
        utimesSync(victim, new Date('2020-02-02'), new Date('2020-02-02'));
        // A device node of the test's own, as /dev/null is (never the machine's own), the server user's.
        const device = join(outside, 'dev');
        execFileSync('mknod', ['-m', '0600', device, 'c', '1', '3']);
        chownSync(device, uidOf(user), uidOf(user));
        const flags = existsSync('/usr/bin/chattr');
        const before = [metadata(victim, flags), metadata(device, false)];
        const server = await start(user, workspace(user));
        const py = (code: string) => `python3 -c "import os; ${code}"`;
        const out = await server.call(
          [
            `chmod 666 ${victim} && echo DID_CHMOD`,
            `chown $(id -u):$(id -g) ${victim} && echo DID_CHOWN`,
            `touch -d 2001-01-01 ${victim} && echo DID_TOUCH`,
            `${py(`os.setxattr('${victim}', 'user.x', b'1')`)} && echo DID_XATTR`,
            flags
              ? `chattr +A ${victim} && echo DID_FLAGS`
              : `${py(`import fcntl, struct; fd = os.open('${victim}', os.O_RDONLY); fcntl.ioctl(fd, 0x40086602, struct.pack('l', 0x80))`)} && echo DID_FLAGS`,
            `${py(`fd = os.open('${victim}', os.O_RDONLY); os.fchmod(fd, 0o666)`)} && echo DID_FCHMOD`,
            `${py(`fd = os.open('${victim}', os.O_RDONLY); os.utime(fd, (0, 0))`)} && echo DID_FUTIME`,
            `${py(`fd = os.open('${victim}', os.O_RDONLY); os.setxattr(fd, 'user.y', b'1')`)} && echo DID_FXATTR`,
            // Non-dumpable, its memory cannot be read by the supervisor (which has no capabilities): the path goes unseen.
            `${py(`import ctypes; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); os.chmod('${victim}', 0o666)`)} && echo DID_HIDDEN_CHMOD`,
            `chmod 666 ${device} && echo DID_DEV_CHMOD`,
            `touch -d 2001-01-01 ${device} && echo DID_DEV_TOUCH`,
            'exit 1',
          ].join('\n'),
        );
        expect(out).not.toMatch(/DID_/);
        expect(out.match(/Operation not permitted/g)?.length, out).toBeGreaterThanOrEqual(9);
        expect([metadata(victim, flags), metadata(device, false)]).toEqual(before);
      });

      // The supervisor holds the files it lately allowed a metadata call on by fd (tar's times, owner, mode in a row) and
      // finds them again by a stat of the command's fd: neither another file on the same fd number nor the held file
      // moved out of the roots meanwhile may pass as held.
      it('cannot change the metadata of a file through an fd by way of a file the supervisor holds', async () => {
        const ws = workspace(user);
        const outside = folder(user, 'ue-victim-');
        const victim = join(outside, 'file');
        writeFileSync(victim, 'victim\n', { mode: 0o644 });
        chownSync(victim, uidOf(user), uidOf(user));
        const before = metadata(victim, false);
        const server = await start(user, ws);
        const script = [
          'import os, time',
          'def attempt(name, fd, mode):',
          '    try:',
          '        os.fchmod(fd, mode)',
          "        print('DID_' + name, flush=True)",
          '    except PermissionError:',
          "        print('REFUSED_' + name, flush=True)",
          "fd = os.open('made.txt', os.O_WRONLY | os.O_CREAT, 0o644)",
          'os.fchmod(fd, 0o600)',
          'os.fchmod(fd, 0o640)',
          'os.close(fd)',
          `other = os.open('${victim}', os.O_RDONLY)`,
          "print('SAME_NUMBER' if other == fd else 'OTHER_NUMBER', flush=True)",
          "attempt('SAME_NUMBER', other, 0o666)",
          "fd = os.open('moved.txt', os.O_WRONLY | os.O_CREAT, 0o644)",
          'os.fchmod(fd, 0o600)',
          "print('HELD', flush=True)",
          "while not os.path.exists('go'): time.sleep(0.05)",
          "attempt('MOVED', fd, 0o666)",
        ].join('\n');
        let out = await server.call(`python3 - <<'EOF'\n${script}\nEOF`, { yield_time_ms: 3000 });
        const id = Number(/session ID (\d+)/.exec(out)?.[1]);
        expect(id, out).toBeGreaterThan(0);
        for (let i = 0; i < 12 && !out.includes('HELD'); i++) out += await server.write(id, '');
        expect(out).toContain('HELD');
        // Moved out of the roots by someone outside the sandbox, while the command keeps its fd on it.
        renameSync(join(ws, 'moved.txt'), join(outside, 'moved.txt'));
        writeFileSync(join(ws, 'go'), '');
        for (let i = 0; i < 12 && !/(DID|REFUSED)_MOVED/.test(out); i++) out += await server.write(id, '');
        expect(out).toContain('SAME_NUMBER');
        expect(out).toContain('REFUSED_SAME_NUMBER');
        expect(out).toContain('REFUSED_MOVED');
        expect(out).not.toMatch(/DID_/);
        expect(statSync(join(ws, 'made.txt')).mode & 0o777).toBe(0o640);
        expect(statSync(join(outside, 'moved.txt')).mode & 0o777).toBe(0o600);
        expect(metadata(victim, false)).toEqual(before);
      });

      it("cannot change the mode of a root's top, its workspace's nor its temp folder's; beneath them it can", async () => {
        const ws = workspace(user);
        const tmp = folder(user, 'ue-llsup-tmp-');
        const before = [statSync(ws).mode, statSync(tmp).mode];
        const server = await start(user, ws, [], { TMPDIR: tmp });
        const out = await server.call(
          [
            'chmod 000 . && echo DID_TOP',
            `chmod 0777 ${tmp} && echo DID_TMP`,
            'chmod +x src/x.sh && echo MADE_EXECUTABLE',
            'touch -d 2001-01-01 README.md && echo TOUCHED',
          ].join('\n'),
        );
        expect(out).not.toMatch(/DID_/);
        expect(out).toContain('MADE_EXECUTABLE');
        expect(out).toContain('TOUCHED');
        expect([statSync(ws).mode, statSync(tmp).mode]).toEqual(before);
        expect(statSync(join(ws, 'src/x.sh')).mode & 0o111).not.toBe(0);
        expect(statSync(join(ws, 'README.md')).mtime.getUTCFullYear()).toBe(2001);
      });

      it('cannot make a kept name at the top of any root, the temp folder included, through any path', async () => {
        const ws = workspace(user);
        const tmp = folder(user, 'ue-llsup-tmp-');
        const before = gitState(ws);
        const server = await start(user, ws, [], { TMPDIR: tmp });
        const out = await server.call(
          [
            'echo x > new.txt && echo WROTE_TOP',
            `git init -q --bare ${tmp} && echo DID_INIT_BARE`,
            `mkdir ${tmp}/.git && echo DID_TMP_GIT`,
            'mv README.md .git && echo DID_MOVE_TO_GIT',
            'ln -s /tmp .agents && echo DID_LINK_AGENTS',
            'ln .git/config cfg && echo "[core] hooksPath = /tmp" >> cfg && echo DID_HARD_LINK',
            'git worktree add -q wt && echo DID_WORKTREE',
            '(cd wt && git config core.hooksPath /tmp && echo DID_CONFIG_THROUGH_WT)',
            'mkdir -p h && printf "#!/bin/sh\\n" > h/pre-commit && chmod +x h/pre-commit',
            'git -c core.hooksPath=h commit -q --allow-empty -m x && echo DID_COMMIT',
            'cp h/pre-commit .git/hooks/pre-commit && echo DID_PLANT',
            'exit 1',
          ].join('\n'),
        );
        expect(out).toContain('WROTE_TOP');
        expect(out).not.toMatch(/DID_/);
        expect(existsSync(join(tmp, 'HEAD'))).toBe(false);
        expect(existsSync(join(tmp, '.git'))).toBe(false);
        expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('readme\n');
        expect(existsSync(join(ws, '.agents'))).toBe(false);
        expect(gitState(ws)).toBe(before);
      });

      // A temp root holding none of the server's folders is granted whole to the Landlock domain, kept names at its
      // top included: there they are the supervisor's alone to refuse, and it must read the path as the kernel will.
      const wholeTempRoot = (user: ServerUser) => ({
        TMPDIR: folder(user, 'ue-llsup-tmp-'),
        // nobody's server has no runtime folder and would keep its own in the temp root (then granted entry by entry).
        XDG_RUNTIME_DIR: folder(user, 'ue-llsup-run-'),
      });

      it("cannot make a kept name at a temp root's top through a path the supervisor would read as its own (/proc/self)", async () => {
        const env = wholeTempRoot(user);
        const server = await start(user, workspace(user), [], env);
        const out = await server.call(
          [
            `exec 9<${env.TMPDIR}`,
            'mkdir /proc/self/fd/9/.git && echo DID_GIT',
            'echo ref > /proc/self/fd/9/HEAD && echo DID_HEAD',
            'ln -s /tmp /proc/self/fd/9/.agents && echo DID_AGENTS',
            'exit 1',
          ].join('\n'),
        );
        expect(out).not.toMatch(/DID_/);
        expect(readdirSync(env.TMPDIR).filter((name) => KEPT.includes(name))).toEqual([]);
      });

      it("is counted as sandboxed by the server's listeners, as its supervisor holds the command's socket for a moment", async () => {
        // The supervisor opens the command's fd (/proc/<tid>/fd/N) to decide a metadata call on it, and was counted
        // unconfined (no seccomp filter of its own): a command that kept its socket in flight (SCM_RIGHTS) while it
        // asked fchmod() of that fd was let into `serve` as the person's client, and approved its own escalation.
        const ws = workspace(user);
        writeFileSync(join(ws, 'hold.c'), SOCKET_METADATA);
        folderOf(user, ws);
        const server = await start(user, ws);
        const out = await server.call('gcc -O2 -pthread -o hold hold.c && ./hold 20', { yield_time_ms: 3_000 });
        const [, link, supervisor] = /SOCKET (socket:\[\d+\]) SUPERVISOR (\d+)/.exec(out) ?? [];
        expect(supervisor, out).toBeDefined();
        let seen = false;
        for (const end = Date.now() + 10_000; !seen && Date.now() < end;) {
          seen = readdirSync(`/proc/${supervisor}/fd`).some((fd) => {
            try {
              return readlinkSync(`/proc/${supervisor}/fd/${fd}`) === link;
            } catch {
              return false; // closed meanwhile
            }
          });
        }
        expect(seen, `the supervisor ${supervisor} was never seen holding ${link}`).toBe(true);
        // As the listeners judge a holder: against the server that started the sandbox.
        const serverPid = Number(/^PPid:\s*(\d+)/m.exec(readFileSync(`/proc/${supervisor}/status`, 'utf8'))![1]);
        const own = readConfinement(serverPid)!;
        expect(confinedBeyond(readConfinement(Number(supervisor))!, own)).toBe(true);
      });

      it("reads /proc/self as the process's and /proc/thread-self as the thread's, in a thread of its own fd table", async () => {
        // /proc/self was read as the calling thread's: a thread without CLONE_FILES was refused an ordinary folder
        // at the temp root's top through /proc/self/fd/9 (the process's fd 9), which the kernel makes.
        const env = wholeTempRoot(user);
        const ws = workspace(user);
        writeFileSync(join(ws, 'table.c'), THREAD_TABLE);
        mkdirSync(join(env.TMPDIR, 'sub'));
        folderOf(user, ws);
        folderOf(user, env.TMPDIR);
        const server = await start(user, ws, [], env);
        const out = await server.call(`gcc -O2 -o table table.c && ./table ${env.TMPDIR}; echo EXIT=$?`, {
          yield_time_ms: 60_000,
        });
        expect(out).toContain('THREAD_SELF_MADE');
        expect(out).toContain('PLAIN_MADE');
        expect(out).toContain('EXIT=0');
        expect(out).not.toMatch(/DID_/);
        expect(readdirSync(env.TMPDIR).filter((name) => KEPT.includes(name))).toEqual([]);
        expect(existsSync(join(env.TMPDIR, 'sub/.git'))).toBe(true);
        expect(existsSync(join(env.TMPDIR, 'plain'))).toBe(true);
      });

      it("cannot make a kept name at a temp root's top by swapping a link while the supervisor decides", async () => {
        const env = wholeTempRoot(user);
        const ws = workspace(user);
        mkdirSync(join(ws, 'src/sub'));
        folderOf(user, ws);
        const server = await start(user, ws, [], env);
        // `src/l` flips between a folder where .git is an ordinary name and the temp root's top; 10 s of tries.
        const out = await server.call(
          [
            'cd src && ln -s sub l',
            `(while :; do ln -sfn ${env.TMPDIR} l; ln -sfn sub l; done) & flipper=$!`,
            'end=$((SECONDS + 10))',
            'while [ $SECONDS -lt $end ]; do',
            `  mkdir l/.git 2>/dev/null; [ -e ${env.TMPDIR}/.git ] && { echo DID_RACE; break; }; rmdir sub/.git 2>/dev/null`,
            'done',
            'kill $flipper',
          ].join('\n'),
          { yield_time_ms: 30_000 },
        );
        expect(out).not.toMatch(/DID_/);
        expect(readdirSync(env.TMPDIR).filter((name) => KEPT.includes(name))).toEqual([]);
      });

      it("cannot change another process's limits, priority or CPUs: the server's, its supervisor's", async () => {
        const server = await start(user, workspace(user));
        const state = () => {
          const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8');
          return {
            limits: readFileSync(`/proc/${server.pid}/limits`, 'utf8'),
            nice: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16],
            cpus: /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1],
            io: execFileSync('ionice', ['-p', String(server.pid)]).toString(),
            policy: execFileSync('chrt', ['-p', String(server.pid)]).toString(),
          };
        };
        const before = state();
        const out = await server.call(
          [
            'prlimit --pid $PPID --nofile=3:3 && echo DID_SUPERVISOR_NOFILE',
            `renice -n 19 -p ${server.pid} && echo DID_RENICE`,
            `taskset -p 1 ${server.pid} && echo DID_TASKSET`,
            `ionice -c 3 -p ${server.pid} && echo DID_IONICE`,
            `chrt -b -p 0 ${server.pid} && echo DID_CHRT`,
            // Last: where it works, the server dies at once (it has used more than a second of CPU).
            `prlimit --pid ${server.pid} --cpu=1:1 && echo DID_SERVER_CPU`,
            'exit 1',
          ].join('\n'),
        );
        expect(out).not.toMatch(/DID_/);
        expect(out).toContain('Operation not permitted');
        expect(await server.call('echo STILL_ANSWERS')).toContain('STILL_ANSWERS');
        expect(state()).toEqual(before);
      });

      it('leaves no process behind when the command exits', async () => {
        const server = await start(user, workspace(user));
        const gone = leftBehind(await server.call(survivor(seconds(), 'src/pid')));
        expect(await waitFor(gone)).toBe(true);
      });

      it('leaves no process behind when a running session is closed', async () => {
        const server = await start(user, workspace(user));
        const running = await server.call(held(survivor(seconds(), 'src/pid')), { yield_time_ms: 3000 });
        const gone = leftBehind(running);
        expect(gone()).toBe(false);
        await server.closeSession(Number(/session ID (\d+)/.exec(running)?.[1]));
        expect(await waitFor(gone)).toBe(true);
      });

      it('leaves no process behind when the server and its watchdog are killed at once', async () => {
        const server = await start(user, workspace(user));
        const gone = leftBehind(await server.call(held(survivor(seconds(), 'src/pid')), { yield_time_ms: 3000 }));
        expect(gone()).toBe(false);
        const watchdog = childOf(server.pid, 'watchdog.mjs');
        expect(watchdog).toBeDefined();
        process.kill(server.pid, 'SIGKILL');
        process.kill(watchdog as number, 'SIGKILL');
        expect(await waitFor(gone)).toBe(true);
      });

      it("opens terminals of its own (script, python's pty), and still no other session's", async () => {
        const server = await start(user, workspace(user));
        const victim = await server.call('tty; read -r secret; echo "got $secret"', { tty: true, yield_time_ms: 1000 });
        const terminal = /\/dev\/pts\/\d+/.exec(victim)?.[0];
        expect(terminal, victim).toBeDefined();
        const out = await server.call(
          [
            "script -qc 'echo SCRIPT_TTY $(tty)' /dev/null",
            'python3 -c "import os, pty',
            'pid, fd = pty.fork()',
            "if pid == 0: print('PTY_TTY', os.ttyname(0)); os._exit(0)",
            "out = b''",
            'while True:',
            '    try: chunk = os.read(fd, 100)',
            '    except OSError: break',
            '    if not chunk: break',
            '    out += chunk',
            'print(out.decode()); os.waitpid(pid, 0)"',
            `python3 -c "import os; os.open('${terminal}', os.O_RDONLY)" && echo DID_OPEN_READ`,
            `python3 -c "import os; os.open('${terminal}', os.O_WRONLY)" && echo DID_OPEN_WRITE`,
            // Holding a master of its own does not make another session's slave its own.
            `python3 -c "import os; m = os.open('/dev/ptmx', os.O_RDWR); os.open('${terminal}', os.O_RDWR)" && echo DID_OPEN_WITH_MASTER`,
            'exit 1',
          ].join('\n'),
        );
        expect(out).toMatch(/SCRIPT_TTY \/dev\/pts\/\d+/);
        expect(out).toMatch(/PTY_TTY \/dev\/pts\/\d+/);
        expect(out).not.toMatch(/DID_/);
        expect(out.match(/Permission denied/g)?.length, out).toBeGreaterThanOrEqual(3);
      });

      it('cannot change the mode of its own terminal, which other users could then read and write', async () => {
        const server = await start(user, workspace(user));
        const out = await server.call(
          [
            'tty',
            'chmod 666 /proc/self/fd/0 && echo DID_CHMOD_FD_PATH',
            'chmod 666 "$(tty)" && echo DID_CHMOD_PATH',
            'python3 -c "import os; os.fchmod(0, 0o666)" && echo DID_FCHMOD',
            'touch -d 2001-01-01 "$(tty)" && echo DID_TOUCH',
            'echo ATTACKED; sleep 60',
          ].join('\n'),
          { tty: true, yield_time_ms: 3000 },
        );
        const terminal = /\/dev\/pts\/\d+/.exec(out)?.[0];
        expect(out).toContain('ATTACKED');
        expect(terminal, out).toBeDefined();
        // Seen on the host while the session still holds it.
        expect(statSync(terminal as string).mode & 0o777).not.toBe(0o666);
        expect(statSync(terminal as string).mtime.getUTCFullYear()).not.toBe(2001);
        await server.closeSession(Number(/session ID (\d+)/.exec(out)?.[1]));
        expect(out).not.toMatch(/DID_/);
        expect(out.match(/Operation not permitted/g)?.length, out).toBeGreaterThanOrEqual(4);
      });

      it("makes what it makes at a root's top with the umask it has then, however often that changes", async () => {
        // The supervisor keeps each caller's umask, and must forget it when the caller changes it (umask(2) reaches it).
        const ws = workspace(user);
        const server = await start(user, ws);
        const out = await server.call(
          [
            'umask 022; touch a; mkdir ad',
            'umask 077; touch b; mkdir bd',
            '(umask 027; touch c; mkdir cd)',
            'touch d',
            "python3 -c \"import os, threading; open('e0', 'w'); t = threading.Thread(target=lambda: os.umask(0o002)); t.start(); t.join(); open('e', 'w')\"",
            'stat -c "%a %n" a ad b bd c cd d e0 e',
          ].join('; '),
          { yield_time_ms: 30_000 },
        );
        expect(out).toContain('644 a\n755 ad\n600 b\n700 bd\n640 c\n750 cd\n600 d\n600 e0\n664 e\n');
      });

      it("keeps no stale umask: a thread's make after another's umask(2) has returned gets the new one", async () => {
        // umask(2) reaches the supervisor before the kernel applies it: a make by another thread handled in between
        // reads the old umask, which must not be kept for that thread's later makes (it was, in 36 of 200 trials).
        const ws = workspace(user);
        writeFileSync(join(ws, 'umrace.c'), UMASK_RACE);
        folderOf(user, ws);
        const server = await start(user, ws);
        const out = await server.call('gcc -O2 -pthread -o umrace umrace.c && ./umrace', { yield_time_ms: 60_000 });
        expect(out).toContain('0 of 200 made with the umask before');
      });

      // A refused renameat2(evil, .git, RENAME_EXCHANGE) left `.git` in the supervisor's memory; the next call, whose
      // second end lay in a missing folder, was decided on it: .git swapped with the command's folder (or made, in a
      // workspace without one), and the person's next `git status` ran the command's fsmonitor outside the sandbox.
      it('cannot swap, replace or make a kept name by a rename after a refused one, whatever the flags', async () => {
        const ws = workspace(user);
        const bare = folder(user, 'ue-nogit-'); // no .git: the same calls made one
        const before = gitState(ws);
        const names = KEPT.filter((name) => name !== '.aws');
        const calls = names.flatMap((name) => [
          `evil:${name}:2`, // RENAME_EXCHANGE, refused
          'evil:missing-dir/x:2', // the second end in a folder that does not exist: ENOENT
          'evil:missing-dir/x:0',
          `evil:${name}:0`,
          `evil:${name}:1`, // RENAME_NOREPLACE
          `missing-dir/x:${name}:2`,
        ]);
        for (const cwd of [ws, bare]) {
          writeFileSync(join(cwd, 'renames.py'), RENAMES);
          folderOf(user, cwd);
          const server = await start(user, cwd);
          const out = await server.call(
            `mkdir evil && printf '[core]\\n\\tfsmonitor = touch HACKED\\n' > evil/config && python3 renames.py ${calls.join(' ')}`,
          );
          expect(out.match(/^RENAME .* (ok|E[A-Z]+)$/gm)?.length, out).toBe(calls.length);
          expect(out, out).not.toMatch(/^RENAME .* ok$/m);
          // The kernel's own answer for the missing folder, not a refusal decided on another name.
          expect(out.match(/^RENAME \S+ missing-dir\/x \d ENOENT$/gm)?.length, out).toBe(2 * names.length);
          expect(readFileSync(join(cwd, 'evil/config'), 'utf8')).toContain('fsmonitor');
        }
        expect(gitState(ws)).toBe(before);
        expect(statSync(join(ws, '.git')).isDirectory()).toBe(true);
        for (const name of names) if (name !== '.git') expect(existsSync(join(ws, name)), name).toBe(false);
        for (const name of names) expect(existsSync(join(bare, name)), name).toBe(false);
        expect(existsSync(join(ws, 'HACKED')) || existsSync(join(bare, 'HACKED'))).toBe(false);
      });

      // mkdir of an existing workspace answered EACCES where the kernel says EEXIST (the workspace is another root,
      // a barrier, in /tmp's top): Node's recursive mkdir gave up, and apply_patch's Add File with it.
      it('adds a file with apply_patch at the top of a git workspace made directly in /tmp', async () => {
        const ws = workspace(user, '/tmp');
        const server = await start(user, ws);
        const patched = await server.call(
          "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: added.txt\n+added\n*** End Patch\nEOF",
        );
        expect(patched).toMatch(/Success\. Updated the following files:\nA .*added\.txt/);
        const out = await server.call(
          [
            `python3 -c "import os; os.mkdir(os.getcwd())" 2>&1 | tail -1`,
            `node -e "require('fs').mkdirSync(process.cwd(), { recursive: true }); console.log('NODE_MKDIR_OK')"`,
            'mkdir -p "$PWD/sub/deeper" && echo MKDIR_P_OK',
          ].join('\n'),
        );
        expect(out).toContain('FileExistsError');
        expect(out).toContain('NODE_MKDIR_OK');
        expect(out).toContain('MKDIR_P_OK');
        expect(readFileSync(join(ws, 'added.txt'), 'utf8')).toBe('added\n');
      });

      // The policy's filter let through every call it did not name: file_setattr (469, Linux 6.17) set inode flags on
      // files outside every root, open_tree_attr (467) passed where open_tree is denied; fchmodat2 (452) answered
      // ENOSYS even in the workspace.
      it('answers a call the filter does not name with ENOSYS, and fchmodat2 as the kernel does', async () => {
        const ws = workspace(user);
        const outside = folder(user, 'ue-victim-');
        const victim = join(outside, 'file');
        writeFileSync(victim, 'victim\n', { mode: 0o644 });
        chownSync(victim, uidOf(user), uidOf(user));
        const before = metadata(victim, true);
        writeFileSync(join(ws, 'syscall.py'), SYSCALL);
        writeFileSync(join(ws, 'mine'), 'mine\n', { mode: 0o644 });
        folderOf(user, ws);
        const server = await start(user, ws);
        const out = await server.call(
          [
            `python3 syscall.py 469 ${victim}`, // file_setattr
            `python3 syscall.py 469 ${join(ws, '.git/config')}`,
            `python3 syscall.py 467 ${outside} 0 0 0`, // open_tree_attr
            `python3 syscall.py 470 ${victim} 0`, // past every table we know
            `python3 syscall.py 1000 ${victim} 0`,
            `python3 syscall.py 452 mine 0o600 0`, // fchmodat2 in the workspace
            `python3 syscall.py 452 ${victim} 0o666 0`,
            `python3 syscall.py 452 mine 0o600 0x10000`, // a flag fchmodat2 does not know
            'stat -c "MODE %a" mine',
          ].join('\n'),
        );
        const answers = [...out.matchAll(/^SYSCALL (\d+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
        expect(answers, out).toEqual([
          '469 ENOSYS',
          '469 ENOSYS',
          '467 EPERM',
          '470 ENOSYS',
          '1000 ENOSYS',
          '452 ok',
          '452 EPERM',
          '452 EINVAL',
        ]);
        expect(out).toContain('MODE 600');
        expect(metadata(victim, true)).toBe(before);
      });

      // The supervisor read the kernel's name of a file into a buffer one byte short of PATH_MAX: a path of 4095 bytes
      // (PATH_MAX less its NUL), which the kernel takes, was refused every metadata change (EPERM).
      it('changes the metadata of what lies at a path as long as the kernel takes (4095 bytes)', async () => {
        const server = await start(user, workspace(user));
        const script = [
          'import errno, os',
          'def answer(f, *args):',
          '    try:',
          '        f(*args)',
          "        return 'ok'",
          '    except OSError as e:',
          '        return errno.errorcode[e.errno]',
          'deep = os.getcwd()',
          'while len(deep) + 201 < 3900:',
          "    deep = os.path.join(deep, 'L' * 200)",
          '    os.mkdir(deep)',
          "edge = os.path.join(deep, 'e' * (4095 - len(deep) - 1))",
          "print('EDGE', len(edge), answer(os.mkdir, edge), answer(os.chmod, edge, 0o700), answer(os.utime, edge, (1, 1)),",
          "      answer(os.mkdir, edge + 'x'), flush=True)",
        ].join('\n');
        const out = await server.call(`python3 - <<'EOF'\n${script}\nEOF`);
        expect(out).toContain('EDGE 4095 ok ok ok ENAMETOOLONG');
      });

      // What the supervisor opens for the command is put into it (SECCOMP_IOCTL_NOTIF_ADDFD). With the command's fd table
      // full that fails, and the kernel hands the call back to be answered: it was left unanswered, and the command
      // waited in open() for ever.
      it('answers EMFILE to an open it does for a command whose fd table is full, instead of leaving it waiting', async () => {
        const server = await start(user, workspace(user));
        const script = [
          'import errno, os, resource',
          'resource.setrlimit(resource.RLIMIT_NOFILE, (32, 32))',
          'fds = []',
          'try:',
          "    while True: fds.append(os.open('/dev/null', os.O_RDONLY))",
          'except OSError as e:',
          "    print('FULL', errno.errorcode[e.errno], flush=True)",
          'try:',
          "    os.open('made.txt', os.O_WRONLY | os.O_CREAT, 0o644)",
          "    print('OPENED', flush=True)",
          'except OSError as e:',
          "    print('ANSWERED', errno.errorcode[e.errno], flush=True)",
        ].join('\n');
        const out = await server.call(`python3 - <<'EOF'\n${script}\nEOF`, { yield_time_ms: 10_000 });
        expect(out).toContain('FULL EMFILE');
        expect(out).toContain('ANSWERED EMFILE');
      });

      // bubblewrap keeps the kept names read-only in the folders between two roots (/tmp and a workspace in
      // /tmp/x) too, and the approval form counts on it; the supervisor refused them at a root's top only, so `git init
      // /tmp/x` planted a repository that an escalated `git status` in the workspace read.
      it('keeps the kept names in the folders between nested roots: a workspace inside a folder of /tmp', async () => {
        const between = folderOf(user, mkdtempSync('/tmp/ue-llsup-between-'));
        cleanup.push(between);
        const ws = folderOf(user, join(between, 'ws'));
        writeFileSync(join(between, 'plain'), 'plain\n');
        folderOf(user, between);
        const server = await start(user, ws);
        const out = await server.call(
          [
            'mkdir ../.git && echo DID_MKDIR',
            'git init -q .. && echo DID_GIT_INIT',
            'echo ref > ../HEAD && echo DID_HEAD',
            'ln -s /tmp ../.codex && echo DID_LINK',
            'mv ../plain ../.agents && echo DID_MOVE',
            'mkdir ../made && echo MADE_OK',
            'chmod 600 ../plain && echo CHMOD_OK',
          ].join('\n'),
        );
        expect(out).not.toMatch(/DID_/);
        expect(out).toContain('MADE_OK');
        expect(out).toContain('CHMOD_OK');
        for (const name of ['.git', 'HEAD', '.codex', '.agents'])
          expect(existsSync(join(between, name)), name).toBe(false);
      });

      // The supervisor dropped a trailing slash and did what the kernel refuses (unlink("f1/") removed the file);
      // fd-only calls given AT_FDCWD changed the working folder; a truncate of a leased file held every call of the
      // session for 45 s; ioctls setting an encryption policy passed through every fd.
      it('answers as the kernel does: trailing slashes, calls without an fd, O_TMPFILE at the top, leases', async () => {
        const ws = workspace(user);
        const outside = folder(user, 'ue-victim-');
        writeFileSync(join(ws, 'answers.py'), KERNEL_ANSWERS);
        folderOf(user, ws);
        const modeBefore = statSync(ws).mode;
        const server = await start(user, ws);
        const out = await server.call(`python3 answers.py ${outside}`);
        const answers = Object.fromEntries([...out.matchAll(/^CALL (\S+) (\S+)$/gm)].map((m) => [m[1], m[2]]));
        expect(answers, out).toEqual({
          'unlink-slash': 'ENOTDIR',
          'rename-to-slash': 'ENOTDIR',
          'rename-from-slash': 'ENOTDIR',
          'open-creat-slash': 'EISDIR',
          'mknod-slash': 'ENOENT',
          'symlink-slash': 'ENOENT',
          'mkdir-slash': 'ok',
          'rmdir-slash': 'ok',
          'rename-dirs-slash': 'ok',
          'open-dir-for-writing': 'EISDIR',
          'open-file-as-folder': 'ENOTDIR',
          'fchmod-cwd': 'EBADF',
          'fchown-cwd': 'EBADF',
          'utimensat-cwd-null': 'EFAULT',
          'tmpfile-at-top': 'ok',
          'truncate-leased': 'EAGAIN',
          'set-encryption-policy': 'EPERM',
        });
        expect(Number(/LEASE_SECONDS (\S+)/.exec(out)?.[1]), out).toBeLessThan(5);
        for (const name of ['f1', 'f2', 'f3', 'e2', 'linked', 'after-lease'])
          expect(existsSync(join(ws, name)), name).toBe(true);
        for (const name of ['g', 'newf', 'fifo2', 'sl', 'd', 'd2'])
          expect(existsSync(join(ws, name)), name).toBe(false);
        expect(readFileSync(join(ws, 'linked'), 'utf8')).toBe('tmp');
        expect(statSync(ws).mode).toBe(modeBefore);
      });

      // bubblewrap refuses to start where a protected name is a link, or a root is a bare repository; the Landlock
      // backend started, and the repository's config and hooks were the command's to write.
      it('refuses to start where .git is a link or a writable root is a bare repository; keeps a HEAD root whole', async () => {
        const linked = workspace(user);
        execFileSync('mv', [join(linked, '.git'), join(linked, 'realgit')]);
        symlinkSync('realgit', join(linked, '.git'));
        folderOf(user, linked);
        if (user === 'nobody') execFileSync('chown', ['-h', `${NOBODY}:${NOBODY}`, join(linked, '.git')]);
        const configBefore = readFileSync(join(linked, 'realgit/config'), 'utf8');
        const first = await start(user, linked);
        const viaLink = await first.call("git config core.fsmonitor 'touch pwned' && echo PLANTED");
        expect(viaLink).toContain('is a symbolic link, which the sandbox cannot keep read-only');
        expect(readFileSync(join(linked, 'realgit/config'), 'utf8')).toBe(configBefore);

        const ws = workspace(user);
        const bare = folder(user, 'ue-bare-');
        execFileSync('git', ['init', '-q', '--bare', bare]);
        folderOf(user, bare);
        const bareConfig = readFileSync(join(bare, 'config'), 'utf8');
        const second = await start(user, ws, ['--writable-root', bare]);
        const inBare = await second.call(`git -C ${bare} config core.fsmonitor 'touch pwned' && echo PLANTED`);
        expect(inBare).toContain('is a bare git repository');
        expect(readFileSync(join(bare, 'config'), 'utf8')).toBe(bareConfig);

        // A HEAD at a root's top (no repository yet): its other repository files stay unmade, as on bubblewrap.
        const headed = workspace(user);
        writeFileSync(join(headed, 'HEAD'), 'ref: refs/heads/main\n');
        folderOf(user, headed);
        const third = await start(user, headed);
        const made = await third.call(
          [
            'mkdir objects && echo DID_OBJECTS',
            'mkdir refs && echo DID_REFS',
            'echo x > config && echo DID_CONFIG',
            'mkdir other && echo OTHER_OK',
          ].join('\n'),
        );
        expect(made).not.toMatch(/DID_/);
        expect(made).toContain('OTHER_OK');
        for (const name of ['objects', 'refs', 'config']) expect(existsSync(join(headed, name)), name).toBe(false);
      });

      it('runs what a project does at the top of a git workspace: files, apply_patch, folders, a venv, npm init, script', async () => {
        const ws = workspace(user);
        const server = await start(user, ws);
        const run = async (cmd: string) => {
          const out = await server.call(`${cmd} && echo DONE_OK`, { yield_time_ms: 30_000 });
          expect(out, cmd).toContain('DONE_OK');
        };
        await run('echo > x.txt');
        await run('echo more >> README.md'); // a file that was there: opened for writing by the supervisor too
        expect(
          await server.call(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: added.txt\n+added\n*** End Patch\nEOF",
          ),
        ).toMatch(/Success\. Updated the following files:\nA .*added\.txt/);
        await run('mkdir d && mv d e && rm -r e');
        await run('python3 -m venv .venv');
        await run('npm init -y >/dev/null');
        await run('script -qc true /dev/null');
        expect(readFileSync(join(ws, 'x.txt'), 'utf8')).toBe('\n');
        expect(readFileSync(join(ws, 'README.md'), 'utf8')).toBe('readme\nmore\n');
        expect(readFileSync(join(ws, 'added.txt'), 'utf8')).toBe('added\n');
        expect(existsSync(join(ws, 'e'))).toBe(false);
        expect(existsSync(join(ws, '.venv/bin/python'))).toBe(true);
        expect(JSON.parse(readFileSync(join(ws, 'package.json'), 'utf8')).name).toBeDefined();
      });
    });
  });
}
