import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../src/manager/types.js';
import { toViewSession } from '../../src/view/session-list.js';

const STARTED = Date.parse('2025-01-02T03:04:05.000Z');
const CLIENT = { clientId: 'c1', clientName: 'claude-code' };

function info(over: Partial<SessionInfo> = {}): SessionInfo {
  return {
    sessionId: 12,
    command: 'npm test',
    tty: true,
    pid: 4242,
    startedAt: new Date(STARTED),
    lastUsedAt: new Date(STARTED),
    executor: 'local',
    location: 'local',
    exited: false,
    bufferedBytes: 0,
    ...over,
  };
}

describe('toViewSession', () => {
  it('gives a row with its client, state and age in whole seconds', () => {
    expect(toViewSession(CLIENT, info(), 'waiting_for_input', STARTED + 61_900)).toEqual({
      client_id: 'c1',
      client_name: 'claude-code',
      session_id: 12,
      command: 'npm test',
      tty: true,
      pid: 4242,
      state: 'waiting_for_input',
      started_at: '2025-01-02T03:04:05.000Z',
      age_s: 61,
      exit_code: null,
      location: 'local',
    });
  });

  it('says exited (with the code) for an exited session, whatever the probe said', () => {
    const row = toViewSession(CLIENT, info({ exited: true, exitCode: 2 }), 'running', STARTED);
    expect(row).toMatchObject({ state: 'exited', exit_code: 2 });
  });

  it('calls a session the probe did not see running, and shows what is missing as null', () => {
    const row = toViewSession(
      { clientId: 'c2', clientName: undefined },
      info({ pid: undefined, location: 'docker://web-1' }),
      undefined,
      STARTED - 5_000, // the clocks disagree: the age is never negative
    );
    expect(row).toMatchObject({ client_name: null, pid: null, state: 'running', age_s: 0, location: 'docker://web-1' });
  });
});
