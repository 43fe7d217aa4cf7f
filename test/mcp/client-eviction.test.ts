import { describe, expect, it } from 'vitest';
import { pickClientToEvict } from '../../src/mcp/client-eviction.js';

const client = (key: string, lastSeen: number, openCalls = 0, liveSessions = 0) => ({
  key,
  lastSeen,
  openCalls,
  liveSessions,
});

describe('pickClientToEvict', () => {
  it('picks the least recently active idle client', () => {
    expect(pickClientToEvict([client('a', 30), client('b', 10), client('c', 20)])).toBe('b');
  });

  it('never picks a client with a call in flight, however old', () => {
    expect(pickClientToEvict([client('old-busy', 1, 1), client('new', 50)])).toBe('new');
  });

  it('picks a client holding no exec session before an older one that holds some', () => {
    expect(pickClientToEvict([client('with-sessions', 1, 0, 3), client('initialize-only', 50)])).toBe(
      'initialize-only',
    );
  });

  it('picks nothing when every client is busy, or there is none', () => {
    expect(pickClientToEvict([client('a', 1, 2), client('b', 2, 1, 4)])).toBeUndefined();
    expect(pickClientToEvict([])).toBeUndefined();
  });
});
