import { DEFAULT_TOOL_TEXT_SETTINGS } from '../manager/requests.js';
import { TOOL_NAMES, toolDefinitions, type ToolName, type ToolTextSettings } from './definitions.js';
import { toolInputJsonSchema, type ObjectJsonSchema } from './json-schema.js';

/** Chat Completions `tools` entry. */
export interface OpenAiChatTool {
  type: 'function';
  function: { name: string; description: string; parameters: ObjectJsonSchema };
}

/** Responses API `tools` entry (the API Codex itself uses). */
export interface OpenAiResponsesTool {
  type: 'function';
  name: string;
  description: string;
  parameters: ObjectJsonSchema;
  strict: boolean;
}

/**
 * The tools for `client.chat.completions.create({ tools })`: `names`, default the four, described for a manager with
 * `settings` (pass `manager.settings`; default: the default settings). Run a call with
 * `callTool(manager, call.function.name, call.function.arguments, names)` (a JSON string is fine).
 */
export function openAiChatTools(
  names: readonly ToolName[] = TOOL_NAMES,
  settings: ToolTextSettings = DEFAULT_TOOL_TEXT_SETTINGS,
): OpenAiChatTool[] {
  return toolDefinitions(names, settings).map((d) => ({
    type: 'function',
    function: { name: d.name, description: d.description, parameters: toolInputJsonSchema(d) },
  }));
}

/**
 * The tools for `client.responses.create({ tools })`: `names` and `settings` as for openAiChatTools. `strict` is
 * false because the Responses API would otherwise require every field, and our optional fields have defaults a model
 * should be free to leave out.
 */
export function openAiResponsesTools(
  names: readonly ToolName[] = TOOL_NAMES,
  settings: ToolTextSettings = DEFAULT_TOOL_TEXT_SETTINGS,
): OpenAiResponsesTool[] {
  return toolDefinitions(names, settings).map((d) => ({
    type: 'function',
    name: d.name,
    description: d.description,
    parameters: toolInputJsonSchema(d),
    strict: false,
  }));
}
