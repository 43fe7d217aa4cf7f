export {
  TOOL_NAMES,
  TOOL_DEFINITIONS,
  toolDefinitions,
  isToolName,
  type ToolName,
  type ToolDefinition,
} from './definitions.js';
export {
  execCommandInput,
  writeStdinInput,
  listSessionsInput,
  closeSessionInput,
  type ExecCommandArgs,
  type WriteStdinArgs,
  type ListSessionsArgs,
  type CloseSessionArgs,
} from './input-schemas.js';
export {
  execResultOutput,
  sessionListOutput,
  closeSessionOutput,
  type ExecResult,
  type SessionListResult,
  type CloseSessionResult,
} from './output-schemas.js';
export { callTool, type ExecSessions, type ToolOutcome, type ToolSuccess } from './run-tool.js';
export { toolFailure, toolErrorPrefix, type ToolFailure } from './errors.js';
export { toExecResult, toSessionList, toCloseSessionResult } from './structured.js';
export { formatSessionList, formatClosedSession } from './session-text.js';
export { toolInputJsonSchema, toolOutputJsonSchema, type ObjectJsonSchema } from './json-schema.js';
export { openAiChatTools, openAiResponsesTools, type OpenAiChatTool, type OpenAiResponsesTool } from './openai.js';
export { anthropicTools, type AnthropicTool } from './anthropic.js';
