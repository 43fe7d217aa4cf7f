import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { field, mappedField, toWireForm, wireSchema } from '../../src/manager/reply-fields.js';

const fields = {
  sessionId: field(z.number().describe('The id.')),
  tty: field(z.boolean().describe('Has a terminal.')),
  exitCode: field(z.number().optional().describe('How it ended.')),
  signal: field(z.string().optional().describe('What ended it.')),
  secretPrompt: field(z.boolean().optional().describe('Echo is off.')),
  startedAt: mappedField(z.date(), z.string().describe('ISO 8601 time.'), (date) => date.toISOString()),
  warnings: mappedField(z.array(z.string()), z.array(z.string()).optional().describe('Notes.'), (warnings) =>
    warnings.length > 0 ? warnings : undefined,
  ),
};
const started = new Date(Date.UTC(2024, 0, 2, 3, 4, 5));

describe('reply fields', () => {
  it('name each field in snake_case on the wire, in the order of the table, with its description', () => {
    const schema = z.toJSONSchema(wireSchema(fields)) as { properties: Record<string, { description?: string }> };
    expect(Object.keys(schema.properties)).toEqual([
      'session_id',
      'tty',
      'exit_code',
      'signal',
      'secret_prompt',
      'started_at',
      'warnings',
    ]);
    expect(schema.properties.started_at?.description).toBe('ISO 8601 time.');
    expect(wireSchema(fields).safeParse({ session_id: 1, tty: false, started_at: 'x' }).success).toBe(true);
  });

  it('keep a required field whatever its value, and leave out an optional one that says nothing', () => {
    const reply = { sessionId: 0, tty: false, signal: '', secretPrompt: false, startedAt: started, warnings: [] };
    expect(JSON.stringify(toWireForm(fields, reply))).toBe(
      '{"session_id":0,"tty":false,"started_at":"2024-01-02T03:04:05.000Z"}',
    );
  });

  it('carry an optional field that says something, zero included, in the order of the table', () => {
    const reply = {
      warnings: ['w'],
      startedAt: started,
      secretPrompt: true,
      signal: 'SIGINT',
      exitCode: 0,
      tty: true,
      sessionId: 7,
    };
    expect(JSON.stringify(toWireForm(fields, reply))).toBe(
      '{"session_id":7,"tty":true,"exit_code":0,"signal":"SIGINT","secret_prompt":true,"started_at":"2024-01-02T03:04:05.000Z","warnings":["w"]}',
    );
  });

  it('let a field depend on another', () => {
    const either = {
      exitCode: field(z.number().optional()),
      sessionId: mappedField(z.number().optional(), z.number().optional(), (id, reply) =>
        reply.exitCode === undefined ? id : undefined,
      ),
    };
    expect(toWireForm(either, { exitCode: 1, sessionId: 5 })).toEqual({ exit_code: 1 });
    expect(toWireForm(either, { sessionId: 5 })).toEqual({ session_id: 5 });
  });
});
