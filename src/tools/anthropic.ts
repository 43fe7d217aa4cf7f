import { toolDefinitions } from './definitions.js';
import { toolInputJsonSchema, type ObjectJsonSchema } from './json-schema.js';

/** A Messages API `tools` entry. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: ObjectJsonSchema;
}

/** The tools for `client.messages.create({ tools })`. Run a `tool_use` block with `callTool(manager, block.name, block.input)`. */
export function anthropicTools(): AnthropicTool[] {
  return toolDefinitions().map((d) => ({
    name: d.name,
    description: d.description,
    input_schema: toolInputJsonSchema(d),
  }));
}
