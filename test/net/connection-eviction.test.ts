import { describe, expect, it } from 'vitest';
import { pickConnectionToClose, type ConnectionState } from '../../src/net/connection-eviction.js';

type Peer = ReturnType<ConnectionState<string>['peer']>;
const TURN = 10;
const connection = (
  key: string,
  { acceptedTurn = 1, authenticated = false, sent = false, busy = false, peer = 'unknown' as Peer } = {},
) => ({ key, authenticated, sent, busy, acceptedTurn, peer: () => peer });

/**
 * A listener at `cap` held by a flood of silent connections that reopens, in the next turn, every connection the
 * listener closes (test/fixtures/connection-flood.mjs); the token holder's connection arrives and sends nothing for
 * `turns` turns (its client is slow to write, or the server slow to read). Whether that connection is still open.
 */
function holderSurvivesChurn(cap: number, turns: number, flood: Peer, holder: Peer): boolean {
  let open = Array.from({ length: cap }, (_, i) => connection(`flood-${i}`, { acceptedTurn: 0, peer: flood }));
  let turn = 5;
  let reopened = 0;
  const admit = (newcomer: ReturnType<typeof connection>) => {
    const victim = pickConnectionToClose(open, turn);
    open = [...open.filter((c) => c.key !== victim), newcomer];
    return victim !== undefined;
  };
  admit(connection('token-holder', { acceptedTurn: turn, peer: holder }));
  for (let closedLastTurn = 1; turn < 5 + turns;) {
    turn++;
    let closed = 0;
    for (let i = 0; i < closedLastTurn; i++)
      if (admit(connection(`reopened-${reopened++}`, { acceptedTurn: turn, peer: flood }))) closed++;
    closedLastTurn = closed;
  }
  return open.some((c) => c.key === 'token-holder');
}

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

  it('picks a silent connection of another user before any of ours, however young', () => {
    const ours = connection('ours', { acceptedTurn: 1, peer: 'ours' });
    const unknown = connection('unknown', { acceptedTurn: 2 });
    const other = connection('other', { acceptedTurn: TURN, peer: 'other' });
    expect(pickConnectionToClose([ours, unknown, other], TURN)).toBe('other');
    // Bytes without the token still go first: they are known not to be the token holder's.
    expect(pickConnectionToClose([other, connection('answered', { sent: true, busy: true, peer: 'ours' })], TURN)).toBe(
      'answered',
    );
  });

  it('asks whose a connection is only of one that sent nothing and never carried the token', () => {
    const asked: string[] = [];
    const tracked = (key: string, options: Parameters<typeof connection>[1]) => {
      const plain = connection(key, options);
      return { ...plain, peer: () => (asked.push(key), plain.peer()) };
    };
    pickConnectionToClose(
      [tracked('held', { authenticated: true }), tracked('sent', { sent: true, busy: true }), tracked('silent', {})],
      TURN,
    );
    expect(asked).toEqual(['silent']);
  });

  it('keeps the token holder’s silent connection through a reopening flood of another user’s, for as long as it takes', () => {
    expect(holderSurvivesChurn(16, 1_000, 'other', 'ours')).toBe(true);
    // Where whose it is cannot be told, only age protects it: the flood's reopenings close it within cap turns.
    expect(holderSurvivesChurn(16, 20, 'unknown', 'unknown')).toBe(false);
    expect(holderSurvivesChurn(16, 1, 'unknown', 'unknown')).toBe(true);
  });
});
