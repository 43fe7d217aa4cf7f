import { describe, expect, it } from 'vitest';
import { parseApiPath } from '../../src/view/api-path.js';

const CLIENT = '3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b';

describe('parseApiPath', () => {
  it('names the session list, a session, its stream and its input', () => {
    expect(parseApiPath('/view/api/sessions')).toEqual({ kind: 'sessions' });
    expect(parseApiPath(`/view/api/sessions/${CLIENT}/48213`)).toEqual({
      kind: 'session',
      clientId: CLIENT,
      sessionId: 48213,
      action: undefined,
    });
    expect(parseApiPath(`/view/api/sessions/${CLIENT}/7/stream`)).toMatchObject({ sessionId: 7, action: 'stream' });
    expect(parseApiPath(`/view/api/sessions/${CLIENT}/7/input`)).toMatchObject({ action: 'input' });
  });

  it('names nothing for any other path', () => {
    for (const path of [
      '/view/api',
      '/view/api/',
      '/view/api/sessions/',
      '/view/api/clients',
      `/view/api/sessions/${CLIENT}`,
      `/view/api/sessions/${CLIENT}/`,
      `/view/api/sessions/${CLIENT}/abc`,
      `/view/api/sessions/${CLIENT}/-1`,
      `/view/api/sessions/${CLIENT}/1.5`,
      `/view/api/sessions/${CLIENT}/1/kill`,
      `/view/api/sessions/${CLIENT}/1/stream/more`,
      '/view/api/sessions/..%2F..%2Fetc/1',
      '/view/api/sessions/a b/1',
      '/mcp',
    ]) {
      expect(parseApiPath(path), path).toEqual({ kind: 'unknown' });
    }
  });
});
