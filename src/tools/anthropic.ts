import { TOOL_NAMES, toolDefinitions, type ToolName } from './definitions.js';
import { toolInputJsonSchema, type ObjectJsonSchema } from './json-schema.js';

/** A Messages API `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectJsonSchema;
}

/**
 * The tools for `client.messages.create({ tools })`: `names`, default the four. Run a `tool_use` block with
 * `callTool(manager, block.name, block.input, names)`.
 */
export function anthropicTools(names: readonly ToolName[] = TOOL_NAMES): AnthropicTool[] {
  return toolDefinitions(names).map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: toolInputJsonSchema(d),
  }));
}
