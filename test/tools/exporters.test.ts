import type Anthropic from '@anthropic-ai/sdk';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UnifiedExecManager } from '../../src/manager/manager.js';
import { aiSdkTools } from '../../src/tools/ai-sdk.js';
import { anthropicTools } from '../../src/tools/anthropic.js';
import { ALL_TOOL_NAMES, TOOL_NAMES } from '../../src/tools/definitions.js';
import { openAiChatTools, openAiResponsesTools } from '../../src/tools/openai.js';
import { shellSessions } from '../helpers/shell-sessions.js';

// Type-level checks against the vendors' own SDK types: `npm run typecheck` fails if a shape drifts.
const chatTools: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = openAiChatTools();
const responsesTools: OpenAI.Responses.FunctionTool[] = openAiResponsesTools();
const messagesTools: Anthropic.Messages.Tool[] = anthropicTools();

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ajv = new Ajv2020({ strict: true, strictRequired: true });

/** What every vendor wants of `parameters` / `input_schema`: a valid JSON Schema for an object, no dialect URI. */
function expectUsableParameters(schema: Record<string, unknown>): void {
  expect(schema.type).toBe('object');
  expect(schema).not.toHaveProperty('$schema');
  expect(ajv.validateSchema(schema), JSON.stringify(ajv.errors)).toBe(true);
}

describe('OpenAI function tools', () => {
  it('have the Chat Completions shape with a usable parameters schema', () => {
    expect(chatTools.map((t) => t.function.name)).toEqual(TOOL_NAMES);
    for (const tool of chatTools) {
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(TOOL_NAME);
      expect(tool.function.description?.length).toBeGreaterThan(40);
      expectUsableParameters(tool.function.parameters ?? {});
    }
  });

  it('have the Responses API shape, not strict, with the same schemas', () => {
    expect(responsesTools.map((t) => t.name)).toEqual(TOOL_NAMES);
    responsesTools.forEach((tool, i) => {
      expect(tool).toMatchObject({ type: 'function', strict: false });
      expect(tool.parameters).toEqual(chatTools[i]?.function.parameters);
    });
  });

  it('accept the arguments a model sends and reject what the contract forbids', () => {
    const validate = (name: string) =>
      ajv.compile(chatTools.find((t) => t.function.name === name)!.function.parameters!);
    const exec = validate('exec_command');
    expect(exec({ cmd: 'ls' })).toBe(true);
    expect(
      exec({ cmd: 'python3', tty: true, yield_time_ms: 1000, workdir: '/tmp', login: false, max_output_tokens: 50 }),
    ).toBe(true);
    expect(exec({})).toBe(false);
    expect(exec({ cmd: 'ls', tty: 'yes' })).toBe(false);
    const write = validate('write_stdin');
    expect(write({ session_id: 1234, chars: 'print(1)\n' })).toBe(true);
    expect(write({ chars: 'x' })).toBe(false);
    expect(validate('list_sessions')({})).toBe(true);
    expect(validate('close_session')({ session_id: 3 })).toBe(true);
  });
});

describe('the tools offered', () => {
  it('are the four by default, and every exporter takes a list with shell', () => {
    expect(openAiChatTools(ALL_TOOL_NAMES).map((t) => t.function.name)).toEqual(ALL_TOOL_NAMES);
    expect(openAiResponsesTools(['shell']).map((t) => t.name)).toEqual(['shell']);
    expect(anthropicTools(['exec_command', 'shell']).map((t) => t.name)).toEqual(['exec_command', 'shell']);
    expect(Object.keys(aiSdkTools(shellSessions(), ['shell', 'list_sessions']))).toEqual(['shell', 'list_sessions']);
  });

  it("describe shell's argv so that a model's arguments validate", () => {
    const [shell] = openAiChatTools(['shell']);
    expectUsableParameters(shell?.function.parameters ?? {});
    const validate = ajv.compile(shell!.function.parameters!);
    expect(validate({ command: ['ls', '-la'], workdir: '/tmp', timeout_ms: 1000 })).toBe(true);
    expect(validate({ command: ['curl', 'x'], sandbox_permissions: 'require_escalated', justification: 'why' })).toBe(
      true,
    );
    expect(validate({ command: 'ls -la' })).toBe(false);
    expect(validate({ command: [] })).toBe(false);
    expect(validate({ command: ['ls'], sandbox_permissions: 'always' })).toBe(false);
  });
});

describe('the settings the tools are described with', () => {
  const lowered = { maxBackgroundPollMs: 60_000 };
  const pollText = (parameters: unknown) =>
    (parameters as { properties: { yield_time_ms: { description: string } } }).properties.yield_time_ms.description;
  const manager = new UnifiedExecManager(lowered);
  afterAll(() => manager.shutdown());

  it('are the default settings unless given, and every exporter quotes the maxBackgroundPollMs it is given', () => {
    expect(pollText(openAiChatTools(['write_stdin'])[0]?.function.parameters)).toContain('at most 300000.');
    expect(pollText(openAiChatTools(['write_stdin'], lowered)[0]?.function.parameters)).toContain('at most 60000.');
    expect(pollText(openAiResponsesTools(['write_stdin'], lowered)[0]?.parameters)).toContain('at most 60000.');
    expect(pollText(anthropicTools(['write_stdin'], manager.settings)[0]?.input_schema)).toContain('at most 60000.');
  });

  it("are the manager's for the AI SDK tools", () => {
    const write = aiSdkTools(manager).write_stdin;
    expect(pollText(z.toJSONSchema(write.inputSchema as z.ZodType, { io: 'input' }))).toContain('at most 60000.');
    const usual = aiSdkTools(shellSessions()).write_stdin;
    expect(pollText(z.toJSONSchema(usual.inputSchema as z.ZodType, { io: 'input' }))).toContain('at most 300000.');
  });
});

describe('Anthropic tools', () => {
  it('have the Messages API shape with the same schemas', () => {
    expect(messagesTools.map((t) => t.name)).toEqual(TOOL_NAMES);
    messagesTools.forEach((tool, i) => {
      expect(tool.name).toMatch(TOOL_NAME);
      expect(tool.description).toBe(chatTools[i]?.function.description);
      expect(Object.keys(tool).sort()).toEqual(['description', 'input_schema', 'name']);
      expectUsableParameters(tool.input_schema);
      expect(tool.input_schema).toEqual(chatTools[i]?.function.parameters);
    });
  });
});

describe('AI SDK tools', () => {
  const manager = new UnifiedExecManager();
  afterAll(() => manager.shutdown());
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };

  /** A model that makes one tool call, then reads back what the tool returned and stops. */
  function scriptedModel(toolName: string, input: unknown) {
    const seen: { tools?: unknown; toolOutput?: unknown } = {};
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const toolMessage = options.prompt.find((m) => m.role === 'tool');
        if (!toolMessage) {
          seen.tools = options.tools;
          return {
            content: [{ type: 'tool-call', toolCallId: 'call-1', toolName, input: JSON.stringify(input) }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        const part = toolMessage.content.find((p) => p.type === 'tool-result');
        seen.toolOutput = part?.type === 'tool-result' ? part.output : undefined;
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    return { model, seen };
  }

  it('round-trips exec_command `echo hi` through a mock model and returns the compat text', async () => {
    const { model, seen } = scriptedModel('exec_command', { cmd: 'echo hi' });
    const result = await generateText({
      model,
      tools: aiSdkTools(manager),
      prompt: 'say hi',
      stopWhen: stepCountIs(3),
    });

    expect(result.text).toBe('done');
    const offered = seen.tools as Array<{
      type: string;
      name: string;
      inputSchema: { required?: string[]; properties: Record<string, unknown> };
    }>;
    expect(offered.map((t) => t.name)).toEqual(TOOL_NAMES);
    expect(offered[0]).toMatchObject({ type: 'function', inputSchema: { required: ['cmd'] } });
    expect(seen.toolOutput).toEqual({
      type: 'text',
      value: expect.stringMatching(
        /^Chunk ID: [0-9a-f]{6}\nWall time: \d+\.\d{4} seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n$/,
      ),
    });
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult).toMatchObject({ toolName: 'exec_command', input: { cmd: 'echo hi', login: true, tty: false } });
  });

  it('runs shell when asked to offer it, and answers in its JSON', async () => {
    const { model, seen } = scriptedModel('shell', { command: ['bash', '-c', 'echo hi; exit 3'] });
    await generateText({
      model,
      tools: aiSdkTools(shellSessions(), ['shell']),
      prompt: 'run it',
      stopWhen: stepCountIs(3),
    });
    expect(seen.toolOutput).toEqual({
      type: 'text',
      value: expect.stringMatching(/^\{"output":"hi\\n","metadata":\{"exit_code":3,"duration_seconds":\d+\.\d\}\}$/),
    });
  });

  it('hands a failure to the model as a tool error with the prefixed message', async () => {
    const { model, seen } = scriptedModel('write_stdin', { session_id: 424242, chars: 'x' });
    await generateText({ model, tools: aiSdkTools(manager), prompt: 'type', stopWhen: stepCountIs(3) });
    expect(seen.toolOutput).toEqual({ type: 'error-text', value: 'write_stdin failed: Unknown process id 424242' });
  });
});
