import { z } from 'zod';
import type { ToolDefinition } from './definitions.js';

/** A tool's parameters as JSON Schema: what OpenAI's `parameters` and Anthropic's `input_schema` expect. */
export interface ObjectJsonSchema {
  type: 'object';
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

/**
 * zod's own conversion of the input schema, as the model sends it (`io: 'input'`: fields with defaults are
 * optional). `$schema` is dropped: function-calling APIs want a bare schema object.
 */
export function toolInputJsonSchema(definition: ToolDefinition): ObjectJsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(definition.input, { io: 'input' });
  return { ...schema, type: 'object' };
}

export function toolOutputJsonSchema(definition: ToolDefinition): ObjectJsonSchema {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(definition.output, { io: 'output' });
  return { ...schema, type: 'object' };
}
