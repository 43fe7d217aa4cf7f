import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { policyFor, type HttpRoutes } from '../../src/mcp/http-routes.js';
import { buildGuardPolicy, checkRequest } from '../../src/mcp/request-guard.js';

const routes: HttpRoutes = {
  handles: (path) => path.startsWith('/page'),
  isPublic: (path) => path === '/page',
  handle: async (_req: IncomingMessage, _res: ServerResponse) => undefined,
};
const policy = buildGuardPolicy({ host: '127.0.0.1', port: 8765, token: 'a-token-of-at-least-16-bytes' });
const HOST = '127.0.0.1:8765';

describe('policyFor', () => {
  it('lets a public path in without the token, still checking Host and Origin', () => {
    const open = policyFor(policy, routes, '/page');
    expect(checkRequest({ host: HOST }, open)).toEqual({ ok: true });
    expect(checkRequest({ host: 'evil.example:8765' }, open)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ host: HOST, origin: 'https://evil.example' }, open)).toMatchObject({ status: 403 });
  });

  it('keeps the token for every other path, and without routes', () => {
    expect(checkRequest({ host: HOST }, policyFor(policy, routes, '/page/api'))).toMatchObject({ status: 401 });
    expect(checkRequest({ host: HOST }, policyFor(policy, undefined, '/page'))).toMatchObject({ status: 401 });
    expect(policyFor(policy, routes, '/mcp')).toBe(policy);
  });
});
