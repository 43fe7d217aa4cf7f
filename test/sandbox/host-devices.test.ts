// The host's device nodes against a sandboxed command: bubblewrap's --dev binds the host's inodes, and a root
// server's sandbox is their owner (host uid 0). The attack is aimed at a node the test made, bound over /dev/null in
// a mount namespace of the server's own: the machine's /dev/null is never touched.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CANNOT_SWITCH_USER, removeMountPoint } from '../helpers/nobody.js';
import { titled } from '../helpers/needs.js';
import { type Server, type ServerUser, folderOf, startMcp } from './attacker.js';
import { NO_SANDBOX } from './sandbox-helpers.js';

const users: ServerUser[] = CANNOT_SWITCH_USER === undefined ? ['root', 'nobody'] : ['root'];
const cleanup: string[] = [];
afterAll(() => {
  for (const path of cleanup) rmSync(path, { recursive: true, force: true });
  removeMountPoint();
});

/** What a metadata change would alter: mode, owner, the three times, the extended attributes (ACLs among them). */
const metadata = (path: string, stat: Stats = statSync(path)) => ({
  mode: stat.mode,
  owner: [stat.uid, stat.gid],
  times: [stat.atimeMs, stat.mtimeMs, stat.ctimeMs],
  xattrs: execFileSync('python3', ['-c', 'import os, sys; print(os.listxattr(sys.argv[1]))', path]).toString().trim(),
});

/** A POSIX ACL (system.posix_acl_access) that denies the command's own user, as setfacl would write it. */
const SET_ACL = [
  'import os, struct',
  "entry = lambda tag, perm, id: struct.pack('<HHI', tag, perm, id)",
  "acl = struct.pack('<I', 2) + entry(1, 6, 0xffffffff) + entry(2, 0, os.getuid()) + entry(4, 6, 0xffffffff)",
  'acl += entry(0x10, 6, 0xffffffff) + entry(0x20, 6, 0xffffffff)',
  "os.setxattr('/dev/null', 'system.posix_acl_access', acl)",
].join('\n');

describe.skipIf(NO_SANDBOX !== undefined)(
  titled("the host's device nodes against a sandboxed command", NO_SANDBOX),
  () => {
    const servers: Server[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    describe.each(users)('served as %s', (user) => {
      it("changes no mode, owner, time or attribute of the host's /dev/null, which still takes writes", async () => {
        const dir = mkdtempSync('/var/tmp/ue-devices-');
        chmodSync(dir, 0o755);
        cleanup.push(dir);
        const node = join(dir, 'null');
        execFileSync('mknod', [node, 'c', '1', '3']);
        chmodSync(node, 0o666);
        const before = metadata(node);
        const ws = folderOf(user, join(dir, 'ws'));
        const server = await startMcp(user, ws, [], {}, `mount --bind ${node} /dev/null`);
        servers.push(server);
        const out = await server.call(
          [
            'chmod 000 /dev/null && echo CHMODDED',
            'chown 1:1 /dev/null && echo CHOWNED',
            'chown 0 /dev/null && echo CHOWNED', // to the owner it has: the time of the change would still tell
            'touch -d 2000-01-01 /dev/null && echo TOUCHED',
            `python3 -c "import os; os.setxattr('/dev/null', 'user.x', b'1')" && echo USER_XATTR`,
            `python3 -c "${SET_ACL}" && echo ACL`,
            'echo hi > /dev/null && echo WROTE_NULL',
            'echo "urandom $(head -c1 /dev/urandom | wc -c)"',
            'head -c1 /dev/zero | od -An -tx1',
            // The top mount of each node the host lends: read-only for a root server.
            'for d in null zero full random urandom tty; do echo "$d $(grep " /dev/$d " /proc/self/mountinfo | tail -n1 | cut -d" " -f6)"; done',
          ].join('\n'),
        );
        expect(out).not.toMatch(/CHMODDED|CHOWNED|TOUCHED|USER_XATTR|ACL\n/);
        expect(out).toContain('WROTE_NULL');
        expect(out).toContain('urandom 1');
        expect(out).toContain(' 00');
        if (user === 'root')
          for (const device of ['null', 'zero', 'full', 'random', 'urandom', 'tty'])
            expect(out, device).toMatch(new RegExp(`^${device} ro,`, 'm'));
        await server.close();
        expect(metadata(node)).toEqual(before);
      });
    });
  },
);
