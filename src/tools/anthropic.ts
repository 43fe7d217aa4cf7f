import { DEFAULT_TOOL_TEXT_SETTINGS } from '../manager/requests.js';
import { TOOL_NAMES, toolDefinitions, type ToolName, type ToolTextSettings } from './definitions.js';
import { toolInputJsonSchema, type ObjectJsonSchema } from './json-schema.js';

/** A Messages API `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectJsonSchema;
}

/**
 * The tools for `client.messages.create({ tools })`: `names`, default the four, described for a manager with
 * `settings` (pass `manager.settings`; default: the default settings). Run a `tool_use` block with
 * `callTool(manager, block.name, block.input, names)`.
 */
export function anthropicTools(
  names: readonly ToolName[] = TOOL_NAMES,
  settings: ToolTextSettings = DEFAULT_TOOL_TEXT_SETTINGS,
): AnthropicTool[] {
  return toolDefinitions(names, settings).map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: toolInputJsonSchema(d),
  }));
}
