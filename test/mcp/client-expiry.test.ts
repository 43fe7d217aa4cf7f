import { describe, expect, it } from 'vitest';
import { expiryOf, type ClientPresence } from '../../src/mcp/client-expiry.js';

const limits = { idleTimeoutMs: 1_800_000, disconnectGraceMs: 30_000 };
const client = (presence: Partial<ClientPresence>): ClientPresence => ({
  lastSeen: 0,
  openCalls: 0,
  openStreams: 0,
  hadStream: true,
  ...presence,
});

describe('expiryOf', () => {
  it('ends a client as gone once its stream closed and nothing came for the grace', () => {
    expect(expiryOf(client({}), 30_000, limits)).toBeUndefined();
    expect(expiryOf(client({}), 30_001, limits)).toBe('gone');
  });

  it('keeps a client whose stream is open, until the idle timeout', () => {
    expect(expiryOf(client({ openStreams: 1 }), 1_800_000, limits)).toBeUndefined();
    expect(expiryOf(client({ openStreams: 1 }), 1_800_001, limits)).toBe('idle');
  });

  it('keeps a client that never opened a stream until the idle timeout: it may be between turns', () => {
    expect(expiryOf(client({ hadStream: false }), 600_000, limits)).toBeUndefined();
    expect(expiryOf(client({ hadStream: false }), 1_800_001, limits)).toBe('idle');
  });

  it('keeps any client with a call in flight, its stream closed or not', () => {
    expect(expiryOf(client({ openCalls: 1 }), 10_000_000, limits)).toBeUndefined();
    expect(expiryOf(client({ openCalls: 1, hadStream: false }), 10_000_000, limits)).toBeUndefined();
  });

  it('counts the grace from the latest sign of the client', () => {
    expect(expiryOf(client({ lastSeen: 100_000 }), 129_000, limits)).toBeUndefined();
    expect(expiryOf(client({ lastSeen: 100_000 }), 130_001, limits)).toBe('gone');
  });
});
