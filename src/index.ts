// The library's public API: every name here is a promise kept across minor versions (test/api.test.ts pins the
// list). Internals stay importable from nowhere but their own modules.

// The manager and what it takes and answers.
export { UnifiedExecManager } from './manager/manager.js';
export type {
  CallOptions,
  ClosedSession,
  ExecCommandRequest,
  ExecResponse,
  ExitedExecResponse,
  ManagerOptions,
  RunningExecResponse,
  ScreenView,
  SessionInfo,
  SessionState,
  SessionWatch,
  SessionWatcher,
  WriteStdinRequest,
} from './manager/types.js';
export type { ShellRequest, ShellResponse } from './manager/requests.js';
export type { ManagerSettings, ResolvedSettings } from './manager/settings.js';
export { sequentialIds } from './manager/ids.js';
export { SessionBudget, type BudgetMember, type SessionBudgetLimits } from './manager/budget.js';
export { formatResponse } from './manager/format.js';
export { exec, type ExecOutcome } from './manager/one-shot.js';
export type { ExecOptions } from './manager/exec-options.js';
export { UnifiedExecError, type UnifiedExecErrorCode } from './manager/errors.js';

// What the settings and the approval handler speak of: sandboxes, approvals, what a sandbox refused.
export type { NetworkMode, SandboxBackend, SandboxMode, SandboxPolicy } from './sandbox/policy.js';
export type { SandboxDenial } from './sandbox/denial.js';
export type {
  ApprovalDecision,
  ApprovalHandler,
  ApprovalPolicy,
  ApprovalReason,
  ApprovalRequest,
  SandboxPermissions,
} from './approval/policy.js';

// Tools for models: run a call, or hand the definitions to an API.
export { callTool, type ExecSessions, type ToolOutcome, type ToolSuccess } from './tools/run-tool.js';
export type { ToolFailure } from './tools/errors.js';
export {
  ALL_TOOL_NAMES,
  TOOL_NAMES,
  toolDefinitions,
  type ToolDefinition,
  type ToolName,
  type ToolTextSettings,
} from './tools/definitions.js';
export type { CloseSessionResult, ExecResult, SessionListResult, ShellResult } from './tools/output-schemas.js';
export { formatShellResponse } from './tools/shell-format.js';
export type { ObjectJsonSchema } from './tools/json-schema.js';
export {
  openAiChatTools,
  openAiResponsesTools,
  type OpenAiChatTool,
  type OpenAiResponsesTool,
} from './tools/openai.js';
export { anthropicTools, type AnthropicTool } from './tools/anthropic.js';

// Seams: how programs start (Executor) and when a live call answers (ReturnPolicy).
export { LocalExecutor, type LocalExecutorOptions } from './spawn/local-executor.js';
export type {
  CommandRequest,
  Disposable,
  ExecProcess,
  Executor,
  ExitInfo,
  LifetimeHooks,
  OutputStream,
  ProcessSpawner,
  SpawnOptions,
  StartedCommand,
  TerminalHandle,
} from './spawn/types.js';
export type { EnvPolicy } from './spawn/env.js';
export type { EarlyReturn, ReturnPolicy, WatchContext } from './input-wait/return-policy.js';

// Sessions elsewhere: an exec-server (ours or Codex's), a container; and our exec-server itself.
export { RemoteExecutor, type RemoteExecutorOptions } from './executors/remote.js';
export { DockerExecutor, type DockerExecutorOptions } from './executors/docker.js';
export { ExecServer, type ExecServerOptions } from './exec-server/server.js';
export { listenWebSocket, type WebSocketListenOptions, type WebSocketListener } from './exec-server/ws-transport.js';
