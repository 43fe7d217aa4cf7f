export { createMcpServer, toCallToolResult, SERVER_NAME, type McpServerOptions } from './server.js';
export { startStdioServer, type StdioServerOptions, type RunningStdioServer } from './stdio.js';
export { startHttpServer, type HttpServerOptions, type RunningHttpServer } from './http-server.js';
export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, MCP_PATH } from './defaults.js';
export { ClientRegistry, type ClientListing } from './client-registry.js';
export type { HttpRoutes } from './http-routes.js';
export {
  buildGuardPolicy,
  checkRequest,
  isLoopbackHost,
  type GuardPolicy,
  type GuardVerdict,
} from './request-guard.js';
