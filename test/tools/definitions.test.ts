import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  ALL_TOOL_NAMES,
  TOOL_DEFINITIONS,
  TOOL_NAMES,
  defineTools,
  toolDefinitions,
} from '../../src/tools/definitions.js';
import { execCommandParams, shellParams, writeStdinParams } from '../../src/manager/requests.js';
import { toolInputJsonSchema, toolOutputJsonSchema } from '../../src/tools/json-schema.js';
import type { ToolDefinition } from '../../src/tools/definitions.js';

describe('tool definitions', () => {
  it('names the four tools in snake_case, in one order everywhere', () => {
    expect(TOOL_NAMES).toEqual(['exec_command', 'write_stdin', 'list_sessions', 'close_session']);
    expect(toolDefinitions().map((d) => d.name)).toEqual(TOOL_NAMES);
  });

  it('offers the four by default; shell only when named', () => {
    expect(ALL_TOOL_NAMES).toEqual([...TOOL_NAMES, 'shell']);
    expect(toolDefinitions(ALL_TOOL_NAMES).map((d) => d.name)).toEqual(ALL_TOOL_NAMES);
    expect(toolDefinitions(['shell', 'exec_command', 'shell']).map((d) => d.name)).toEqual(['shell', 'exec_command']);
    expect(toolDefinitions([])).toEqual([]);
    expect(() => toolDefinitions(['exec', 'shell'] as never)).toThrow(
      'Unknown tool "exec"; the tools are exec_command, write_stdin, list_sessions, close_session, shell',
    );
  });

  it('fills in the compat defaults', () => {
    expect(execCommandParams.parse({ cmd: 'ls' })).toEqual({
      cmd: 'ls',
      login: true,
      tty: false,
      yield_time_ms: 10_000,
      max_output_tokens: 10_000,
      sandbox_permissions: 'use_default',
    });
    expect(shellParams.parse({ command: ['ls'] })).toEqual({ command: ['ls'], sandbox_permissions: 'use_default' });
    expect(writeStdinParams.parse({ session_id: 7 })).toEqual({
      session_id: 7,
      chars: '',
      yield_time_ms: 250,
      max_output_tokens: 10_000,
    });
  });

  it('rejects what the contract does not allow', () => {
    expect(execCommandParams.safeParse({}).success).toBe(false);
    expect(execCommandParams.safeParse({ cmd: '' }).success).toBe(false);
    expect(execCommandParams.safeParse({ cmd: 'ls', tty: 'yes' }).success).toBe(false);
    expect(writeStdinParams.safeParse({ session_id: 'seven' }).success).toBe(false);
    expect(writeStdinParams.safeParse({ session_id: '-7' }).success).toBe(false);
    expect(writeStdinParams.safeParse({ session_id: 1.5 }).success).toBe(false);
    expect(writeStdinParams.safeParse({ session_id: 7, yield_time_ms: -1 }).success).toBe(false);
  });

  it('takes a quoted session id, as models sometimes send one, and fills in the output token default', () => {
    expect(writeStdinParams.parse({ session_id: '7' }).session_id).toBe(7);
    expect(execCommandParams.parse({ cmd: 'ls' }).max_output_tokens).toBe(10_000);
  });

  it('describes every tool and every field, input and output', () => {
    for (const definition of toolDefinitions(ALL_TOOL_NAMES)) {
      expect(definition.description.length, definition.name).toBeGreaterThan(60);
      const describedEverywhere = (schema: unknown, where: string): void => {
        const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
        for (const [name, property] of Object.entries(properties)) {
          expect((property as { description?: string }).description, `${where}.${name}`).toMatch(/\w{3,}/);
          const items = (property as { items?: unknown }).items;
          if (items) describedEverywhere(items, `${where}.${name}[]`);
        }
      };
      describedEverywhere(toolInputJsonSchema(definition), `${definition.name} input`);
      describedEverywhere(toolOutputJsonSchema(definition), `${definition.name} output`);
    }
  });

  it('lists as required only the fields without a default', () => {
    const required = Object.fromEntries(
      toolDefinitions(ALL_TOOL_NAMES).map((d) => [d.name, toolInputJsonSchema(d).required ?? []]),
    );
    expect(required).toEqual({
      exec_command: ['cmd'],
      write_stdin: ['session_id'],
      list_sessions: [],
      close_session: ['session_id'],
      shell: ['command'],
    });
    const exec = toolInputJsonSchema(TOOL_DEFINITIONS.exec_command).properties as Record<
      string,
      { default?: unknown; type?: string }
    >;
    expect(exec.login).toMatchObject({ type: 'boolean', default: true });
    expect(exec.tty).toMatchObject({ type: 'boolean', default: false });
    expect(exec.yield_time_ms).toMatchObject({ type: 'number', default: 10_000 });
  });

  it('converts with zod itself and drops only the $schema dialect', () => {
    for (const definition of toolDefinitions(ALL_TOOL_NAMES)) {
      const { $schema, ...fromZod } = z.toJSONSchema(definition.input, { io: 'input' });
      expect($schema).toMatch(/json-schema\.org/);
      expect(toolInputJsonSchema(definition)).toEqual(fromZod);
    }
  });

  it('checks that a reply carries exactly one of exit_code and session_id', () => {
    const base = { chunk_id: 'abcdef', wall_time_seconds: 0.1, output: '', original_token_count: 0, state: 'running' };
    const output = TOOL_DEFINITIONS.exec_command.output;
    expect(output.safeParse({ ...base, session_id: 1 }).success).toBe(true);
    expect(output.safeParse({ ...base, exit_code: 0, state: 'exited' }).success).toBe(true);
    expect(output.safeParse(base).success).toBe(false);
    expect(output.safeParse({ ...base, exit_code: 0, session_id: 1 }).success).toBe(false);
  });
});

describe('the tool definitions of given settings', () => {
  /** Every text of every tool (descriptions of tools and fields, inputs and outputs) as one JSON string. */
  const textsOf = (definitions: ReturnType<typeof defineTools>) =>
    JSON.stringify(
      Object.values(definitions).map((d) => [
        d.description,
        toolInputJsonSchema(d as ToolDefinition),
        toolOutputJsonSchema(d as ToolDefinition),
      ]),
    );
  const pollText = (definitions: ReturnType<typeof defineTools>) =>
    (toolInputJsonSchema(definitions.write_stdin).properties?.yield_time_ms as { description: string }).description;

  it("quote maxBackgroundPollMs as the longest poll in write_stdin's yield_time_ms", () => {
    expect(pollText(defineTools({ maxBackgroundPollMs: 60_000 }))).toBe(
      'Milliseconds to wait for output before replying: 250 to 30000 after typing; an empty poll waits at least 5000 and at most 60000. Replies early when the process exits or is back waiting for input.',
    );
  });

  it('read as they always did under the default settings', () => {
    expect(pollText(TOOL_DEFINITIONS)).toBe(
      'Milliseconds to wait for output before replying: 250 to 30000 after typing; an empty poll waits at least 5000 and at most 300000. Replies early when the process exits or is back waiting for input.',
    );
    expect(textsOf(defineTools({ maxBackgroundPollMs: 300_000 }))).toBe(textsOf(TOOL_DEFINITIONS));
  });

  it('quote the 5 s floor when maxBackgroundPollMs is below it, since a poll then waits that long', () => {
    expect(pollText(defineTools({ maxBackgroundPollMs: 1000 }))).toContain('at least 5000 and at most 5000.');
  });

  it('change nothing but the poll text, and parse alike', () => {
    const lowered = defineTools({ maxBackgroundPollMs: 60_000 });
    expect(textsOf(lowered).replace('at most 60000.', 'at most 300000.')).toBe(textsOf(TOOL_DEFINITIONS));
    const call = { session_id: '7', yield_time_ms: 90_000.5 };
    expect(lowered.write_stdin.input.parse(call)).toEqual(TOOL_DEFINITIONS.write_stdin.input.parse(call));
  });

  it('are what toolDefinitions lists for those settings', () => {
    const [write] = toolDefinitions(['write_stdin'], { maxBackgroundPollMs: 60_000 });
    expect(toolInputJsonSchema(write!)).toEqual(
      toolInputJsonSchema(defineTools({ maxBackgroundPollMs: 60_000 }).write_stdin),
    );
    const [usual] = toolDefinitions(['write_stdin']);
    expect(toolInputJsonSchema(usual!)).toEqual(toolInputJsonSchema(TOOL_DEFINITIONS.write_stdin));
  });
});
