// Where this process's cgroup v2 folder is, from /proc/self/cgroup and /proc/self/mountinfo: on plain data.
import { describe, expect, it } from 'vitest';
import { ownCgroupFolder } from '../../src/linux/sandbox-cgroup.js';

const V2_ONLY =
  '29 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n';
const HYBRID = [
  '30 25 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755',
  '31 30 0:28 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw',
  '32 30 0:29 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,memory',
].join('\n');

describe('ownCgroupFolder', () => {
  it('joins the v2 mount point and the 0:: path', () => {
    const cgroup = '0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n';
    expect(ownCgroupFolder(cgroup, V2_ONLY)).toBe(
      '/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope',
    );
  });

  it('finds the v2 hierarchy of a hybrid layout, among v1 lines', () => {
    expect(ownCgroupFolder('4:memory:/a\n0::/\n', HYBRID)).toBe('/sys/fs/cgroup/unified');
  });

  it('takes the path beneath a mount whose root is a cgroup, and its escapes', () => {
    const mount = '40 30 0:26 /machine.slice/box /sys/fs/cgroup\\040x rw - cgroup2 cgroup2 rw\n';
    expect(ownCgroupFolder('0::/machine.slice/box/inner\n', mount)).toBe('/sys/fs/cgroup x/inner');
    expect(ownCgroupFolder('0::/elsewhere\n', mount)).toBeUndefined();
  });

  it('has none without a v2 line or a v2 mount', () => {
    expect(ownCgroupFolder('4:memory:/a\n', HYBRID)).toBeUndefined();
    expect(
      ownCgroupFolder('0::/\n', '32 30 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n'),
    ).toBeUndefined();
  });
});
