import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GuardPolicy } from './request-guard.js';

/**
 * Endpoints an embedder serves beside /mcp on the same server (the CLI's live view), behind the same Host, Origin
 * and token checks. The MCP layer knows nothing of what they are; it only routes to them.
 */
export interface HttpRoutes {
  /** Whether a request for this path (no query) is answered here rather than by /mcp. */
  handles(pathname: string): boolean;
  /**
   * Paths served without the token: files that hold nothing secret, which a browser fetches when it navigates and
   * cannot add an Authorization header to. Host and Origin are still checked (DNS rebinding).
   */
  isPublic(pathname: string): boolean;
  /** Answers a request that passed the checks. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
}

/** The policy a request for `pathname` must pass: public paths of `routes` need no token. */
export function policyFor(policy: GuardPolicy, routes: HttpRoutes | undefined, pathname: string): GuardPolicy {
  if (!routes?.isPublic(pathname)) return policy;
  return { allowedHosts: policy.allowedHosts };
}
