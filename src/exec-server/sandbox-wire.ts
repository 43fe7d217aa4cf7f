/**
 * Our SandboxPolicy and the `sandbox` object of the exec-server wire, both ways. Pure: plain data in, plain data out.
 *
 * What Codex sends (EXEC-SERVER.md section 13, captured through the tap from 0.169.0; 0.171.0's workspace-write
 * object was the same, byte for byte): read-only is the root readable and
 * nothing else; workspace-write adds the project roots, /tmp and $TMPDIR writable, each extra writable root as an
 * absolute `path` entry (a file:// URI) right after them, then `.git`, `.agents`, `.codex`, `.aws` inside the
 * project roots read-only. `workspaceRoots` lists the working directory and then the extra writable roots.
 * danger-full-access sends `sandbox: null`.
 */

import { PROTECTED_NAMES, type SandboxPolicy } from '../sandbox/policy.js';
import { fileUriToPath, pathToFileUri, type WireFileSystemEntry, type WireSandbox } from './protocol.js';

const special = (kind: 'root' | 'project_roots' | 'slash_tmp' | 'tmpdir', access: 'read' | 'write') =>
  ({ path: { type: 'special', value: { kind } }, access }) as WireFileSystemEntry;

/** The object Codex would send for `policy` run in `cwd`; null for danger-full-access (no sandbox). */
export function toWireSandbox(policy: SandboxPolicy, cwd: string): WireSandbox | null {
  if (policy.mode === 'danger-full-access') return null;
  const entries: WireFileSystemEntry[] = [special('root', 'read')];
  const extraRoots =
    policy.mode === 'workspace-write' ? policy.writableRoots.filter((r) => r !== policy.workspace) : [];
  if (policy.mode === 'workspace-write') {
    entries.push(special('project_roots', 'write'), special('slash_tmp', 'write'), special('tmpdir', 'write'));
    for (const root of extraRoots) entries.push({ path: { type: 'path', path: pathToFileUri(root) }, access: 'write' });
    for (const name of PROTECTED_NAMES) {
      entries.push({
        path: { type: 'special', value: { kind: 'project_roots', subpath: name } },
        access: 'read',
        missing_path_behavior: 'skip',
      });
    }
  }
  return {
    permissions: {
      type: 'managed',
      file_system: { type: 'restricted', entries },
      network: policy.network === 'on' ? 'enabled' : 'restricted',
    },
    cwd: pathToFileUri(cwd),
    workspaceRoots: [policy.workspace, ...extraRoots].map(pathToFileUri),
    windowsSandboxLevel: 'disabled',
    windowsSandboxProxySettingsMode: 'reconcile',
    useLegacyLandlock: false,
  };
}

/**
 * The SandboxPolicy closest to what `wire` asks for, or undefined for no sandbox (null, unrestricted, not managed).
 * read-only when only the root is readable; workspace-write when the project roots are writable (workspace: the
 * first workspace root, else `cwd`); other writable absolute paths and workspace roots become writableRoots (with
 * writable paths but no writable project roots, the first of them is the workspace, so cwd is not made writable);
 * network `enabled` is on, anything else off. Codex's `deny` entries and globs have no equivalent and are ignored. Throws (a message for -32602) on a shape it cannot read.
 */
export function fromWireSandbox(wire: WireSandbox | null | undefined, cwd: string): SandboxPolicy | undefined {
  if (wire === null || wire === undefined) return undefined;
  if (typeof wire !== 'object' || typeof wire.permissions !== 'object' || wire.permissions === null) {
    throw new Error('invalid sandbox: expected an object with `permissions`');
  }
  const { permissions } = wire;
  if (permissions.type !== 'managed') return undefined;
  const fs = permissions.file_system;
  if (fs === undefined || fs.type !== 'restricted') return undefined;
  const entries = Array.isArray(fs.entries) ? fs.entries : [];
  const roots = (Array.isArray(wire.workspaceRoots) ? wire.workspaceRoots : []).map(fileUriToPath);
  const workspace = roots[0] ?? cwd;
  let projectWritable = false;
  const writable: string[] = [];
  for (const entry of entries) {
    if (entry?.access !== 'write') continue;
    const path = entry.path;
    if (path?.type === 'special' && path.value?.kind === 'project_roots' && !path.value.subpath) projectWritable = true;
    if (path?.type === 'path' && typeof path.path === 'string') {
      writable.push(path.path.startsWith('file:') ? fileUriToPath(path.path) : path.path);
    }
  }
  const network = permissions.network === 'enabled' ? 'on' : 'off';
  if (!projectWritable && writable.length === 0) {
    return { mode: 'read-only', network, allowedDomains: [], workspace, writableRoots: [] };
  }
  // Without writable project roots, the first writable path stands in for the workspace: cwd stays read-only.
  const base = projectWritable ? workspace : (writable[0] as string);
  const extra = [...(projectWritable ? roots.slice(1) : []), ...writable].filter((r) => r !== base);
  return { mode: 'workspace-write', network, allowedDomains: [], workspace: base, writableRoots: [...new Set(extra)] };
}
