import { isNetworkRestricted, isSandboxed, type SandboxPolicy } from './policy.js';

/** What the sandbox refused, as told to the model. */
export interface SandboxDenial {
  kind: 'write' | 'network' | 'domain';
  /** The line of output that shows it, e.g. `bash: line 1: /root/x: Read-only file system`. */
  evidence: string;
}

// Only what the sandbox itself causes counts, so a program that merely prints "sandbox" or "permission denied" is
// never taken for a denial. Inside read-only and workspace-write every path outside the writable roots is on a
// read-only mount, so EROFS there is the sandbox's doing. With the network off, nothing at all is reachable (the
// command has a network namespace of its own), so every failed connection or name lookup is too.
const WRITE = /Read-only file system|\bEROFS\b/;
// The Landlock backend refuses a write with EACCES instead (nothing is a read-only mount there). EACCES has other
// causes, file modes among them, so it counts only on that backend.
const LANDLOCK_WRITE = /Permission denied|\bEACCES\b/;
const NETWORK =
  /Network is unreachable|\bENETUNREACH\b|Could not resolve host|Temporary failure in name resolution|Name or service not known|\bEAI_AGAIN\b|getaddrinfo ENOTFOUND|Couldn't connect to server|Connection refused|\bECONNREFUSED\b|Failed to establish a new connection|Cannot assign requested address/;
// The seccomp filter answers socket calls EPERM while the network is off: only where the line shows a socket call
// (bash's /dev/tcp, node's `connect EPERM`, python's urlopen), since EPERM alone has many causes. bash's path is
// `/dev/tcp/HOST/PORT`: its two steps are matched without crossing a `/`, as `\S+` would rescan a long run of
// `/dev/tcp/` from each one.
const SOCKET_EPERM =
  /\b(socket|connect|bind|listen|accept|sendto): (Operation not permitted|Permission denied)|\/dev\/(tcp|udp)\/[^\s/]+\/[^\s/]+: Operation not permitted|\b(connect|bind|listen) EPERM\b|urlopen error \[Errno 1\]/;
// The proxy's own answer, or curl's report of it for HTTPS (a 403 to CONNECT can only come from the proxy).
const DOMAIN = /unified-exec sandbox: network access to \S+ is blocked|CONNECT tunnel failed, response 403/;

/**
 * The sandbox denial behind a failed command, if any: looked for only when the command failed (non-zero exit) and
 * the policy restricts what the line shows (a write under read-only or workspace-write, a connection with the
 * network off). Pure: works on the output text.
 */
export function detectDenial(
  policy: SandboxPolicy | undefined,
  exitCode: number | undefined,
  output: string,
): SandboxDenial | undefined {
  if (!isSandboxed(policy) || exitCode === undefined || exitCode === 0) return undefined;
  const lines = output.split(/\r?\n/);
  const find = (pattern: RegExp) => lines.find((line) => pattern.test(line))?.trim();
  if (isNetworkRestricted(policy)) {
    const domain = find(DOMAIN);
    if (domain !== undefined) return { kind: 'domain', evidence: domain };
  }
  const landlockWrite = (line: string) => LANDLOCK_WRITE.test(line) && !SOCKET_EPERM.test(line);
  const write = find(WRITE) ?? (policy.backend === 'landlock' ? lines.find(landlockWrite)?.trim() : undefined);
  if (write !== undefined) return { kind: 'write', evidence: write };
  if (isNetworkRestricted(policy)) {
    const network = find(NETWORK) ?? find(SOCKET_EPERM);
    if (network !== undefined) return { kind: 'network', evidence: network };
  }
  return undefined;
}

/** The line the model reads: what happened, and what it can do about it. */
export function describeDenial(denial: SandboxDenial, escalation: 'ask' | 'asked' | 'unavailable'): string {
  const what = {
    write:
      'a write was refused: the sandbox allows writes only in the writable roots, and not to .git, .agents, .codex or .aws in them',
    network: 'network access is off, so the connection failed',
    domain: 'the domain is not in the allowlist, so the request was blocked',
  }[denial.kind];
  const next = {
    ask: 'To run it outside the sandbox, call again with sandbox_permissions "require_escalated" and a justification.',
    asked: 'Running it outside the sandbox was not approved.',
    unavailable: 'Running outside the sandbox is not available (approval policy never).',
  }[escalation];
  return `Sandbox: ${what} (${truncate(denial.evidence)}). ${next}`;
}

const truncate = (line: string) => (line.length > 200 ? `${line.slice(0, 197)}...` : line);
