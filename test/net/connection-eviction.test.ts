import { describe, expect, it } from 'vitest';
import { pickConnectionToClose } from '../../src/net/connection-eviction.js';

const TURN = 10;
const connection = (key: string, { acceptedTurn = 1, authenticated = false, sent = false, busy = false } = {}) => ({
  key,
  authenticated,
  sent,
  busy,
  acceptedTurn,
});

describe('pickConnectionToClose', () => {
  it('picks the oldest connection that never carried the token', () => {
    expect(pickConnectionToClose([connection('a'), connection('b'), connection('c')], TURN)).toBe('a');
  });

  it('never picks an authenticated connection, however old, and nothing when all are', () => {
    const held = connection('token-holder', { authenticated: true, sent: true });
    expect(pickConnectionToClose([held, connection('flood', { acceptedTurn: 5 })], TURN)).toBe('flood');
    expect(pickConnectionToClose([held], TURN)).toBeUndefined();
    expect(pickConnectionToClose([], TURN)).toBeUndefined();
  });

  it('picks one that sent a request without the token before an older one that sent nothing yet', () => {
    const silent = connection('silent');
    expect(pickConnectionToClose([silent, connection('answered', { sent: true, busy: true })], TURN)).toBe('answered');
    expect(pickConnectionToClose([silent, connection('half-sent', { acceptedTurn: 9, sent: true })], TURN)).toBe(
      'half-sent',
    );
  });

  it('picks half-sent headers before a request being answered', () => {
    const answering = connection('answering', { sent: true, busy: true });
    expect(pickConnectionToClose([answering, connection('half-sent', { acceptedTurn: 5, sent: true })], TURN)).toBe(
      'half-sent',
    );
  });

  it('picks a silent connection accepted in this turn or the one before only when there is no other', () => {
    const fresh = [connection('before', { acceptedTurn: TURN - 1 }), connection('now', { acceptedTurn: TURN })];
    expect(pickConnectionToClose([connection('two-ago', { acceptedTurn: TURN - 2 }), ...fresh], TURN)).toBe('two-ago');
    expect(pickConnectionToClose(fresh, TURN)).toBe('before');
  });
});
