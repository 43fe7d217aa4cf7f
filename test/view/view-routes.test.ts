// The live view's routes on a real HTTP server, without a browser: who gets in, what the list says, what a stream
// carries, and what closing and typing do, with sessions started by the MCP SDK's client over HTTP.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAlive, PATIENT, waitUntilGone } from '../helpers/processes.js';
import { AUTH, EventReader, rawRequest, startSession, startViewServer, type ViewServer } from './view-server.js';

const JSON_BODY = { ...AUTH, 'content-type': 'application/json' };

interface Listed {
  input: boolean;
  sessions: Array<Record<string, unknown> & { client_id: string; session_id: number; state: string }>;
}

async function list(view: ViewServer): Promise<Listed> {
  const res = await fetch(`${view.origin}/view/api/sessions`, { headers: AUTH });
  expect(res.status).toBe(200);
  return (await res.json()) as Listed;
}

const sessionUrl = (view: ViewServer, clientId: string, sessionId: number, action = '') =>
  `${view.origin}/view/api/sessions/${clientId}/${sessionId}${action}`;

describe('the live view, read-only (the default)', () => {
  let view: ViewServer;
  beforeAll(async () => {
    view = await startViewServer();
  });
  afterAll(() => view?.close());

  describe('who gets in', () => {
    it.each(['/view', '/view/', '/view/view.js', '/view/view.css', '/view/xterm.js', '/view/xterm.css'])(
      'serves %s without the token, with a content type and no caching',
      async (path) => {
        const res = await fetch(`${view.origin}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/(html|javascript|css); charset=utf-8$/);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect((await res.text()).length).toBeGreaterThan(100);
      },
    );

    it('serves the page with a policy that allows only its own scripts and no framing', async () => {
      const res = await fetch(`${view.origin}/view`);
      const policy = res.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(await res.text()).toContain('<script src="/view/view.js" type="module"></script>');
    });

    it('serves only its files: any other path under /view needs the token, then is not found', async () => {
      for (const path of ['/view/index.html', '/view/../package.json', '/view/api', '/view/nope.js']) {
        expect((await fetch(`${view.origin}${path}`)).status, path).toBe(401);
      }
      const res = await fetch(`${view.origin}/view/nope.js`, { headers: AUTH });
      expect(res.status).toBe(404);
    });

    it('answers the API with 401 without the token or with a wrong one', async () => {
      const bare = await fetch(`${view.origin}/view/api/sessions`);
      expect(bare.status).toBe(401);
      expect(bare.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await fetch(`${view.origin}/view/api/sessions`, {
        headers: { authorization: 'Bearer not-the-token-not-the-token' },
      });
      expect(wrong.status).toBe(401);
      const stream = await fetch(`${view.origin}/view/api/sessions/abc/1/stream`);
      expect(stream.status).toBe(401);
    });

    it('refuses a foreign Host (DNS rebinding), for the page as for the API', async () => {
      for (const path of ['/view', '/view/xterm.js', '/view/api/sessions']) {
        const res = await rawRequest(`${view.origin}${path}`, { headers: { ...AUTH, host: 'attacker.example:80' } });
        expect(res.status, path).toBe(403);
        expect(res.body).toContain('Host header "attacker.example:80"');
      }
    });

    it('refuses a foreign Origin, for the page as for the API', async () => {
      for (const path of ['/view', '/view/api/sessions']) {
        const res = await rawRequest(`${view.origin}${path}`, {
          headers: { ...AUTH, origin: 'https://attacker.example' },
        });
        expect(res.status, path).toBe(403);
      }
      const ok = await rawRequest(`${view.origin}/view/api/sessions`, { headers: { ...AUTH, origin: view.origin } });
      expect(ok.status).toBe(200);
    });

    it('leaves /mcp as it was: the token is still needed there', async () => {
      expect((await fetch(`${view.server.url}`, { method: 'POST' })).status).toBe(401);
    });
  });

  describe('with sessions of two clients', () => {
    let clientA: string;
    let shell: Awaited<ReturnType<typeof startSession>>;
    let sleeper: Awaited<ReturnType<typeof startSession>>;
    let quick: Awaited<ReturnType<typeof startSession>>;

    beforeAll(async () => {
      const a = await view.connect('agent-a');
      const b = await view.connect('agent-b');
      shell = await startSession(a, {
        cmd: "PS1='$ ' exec bash --norc --noprofile -i",
        tty: true,
      });
      sleeper = await startSession(b, { cmd: 'echo started; sleep 600', yield_time_ms: 300 });
      quick = await startSession(b, { cmd: 'sleep 1.5; echo done; exit 3', yield_time_ms: 50 });
      clientA = view.server.clients.listClients().find((c) => c.clientName === 'agent-a')!.clientId;
    });

    it('lists every session of every client, newest first, with its client, state and age', async () => {
      await vi.waitFor(async () => {
        const { sessions } = await list(view);
        expect(sessions.find((s) => s.session_id === quick.sessionId)?.state).toBe('exited');
        expect(sessions.find((s) => s.session_id === shell.sessionId)?.state).toBe('waiting_for_input');
      }, PATIENT);
      const { input, sessions } = await list(view);
      expect(input).toBe(false);
      expect(sessions.map((s) => s.session_id)).toEqual([quick.sessionId, sleeper.sessionId, shell.sessionId]);
      expect(sessions[2]).toMatchObject({
        client_id: clientA,
        client_name: 'agent-a',
        command: "PS1='$ ' exec bash --norc --noprofile -i",
        tty: true,
        pid: shell.pid,
        state: 'waiting_for_input',
        exit_code: null,
        location: 'local',
      });
      expect(sessions[1]).toMatchObject({ client_name: 'agent-b', tty: false, pid: sleeper.pid, state: 'running' });
      expect(sessions[0]).toMatchObject({ state: 'exited', exit_code: 3 });
      for (const s of sessions) {
        expect(Date.parse(s.started_at as string)).toBeLessThanOrEqual(Date.now());
        expect(s.age_s).toBeGreaterThanOrEqual(0);
      }
    });

    it("streams a session's recent output, then what it prints, and takes none of it from the model", async () => {
      const [a] = view.clients;
      const stream = new EventReader(sessionUrl(view, clientA, shell.sessionId, '/stream'));
      await vi.waitFor(() => expect(stream.events[0]?.event).toBe('start'), PATIENT);
      expect(stream.events[0]!.data).toMatchObject({ tty: true, cols: 80, rows: 24 });
      expect(stream.events[0]!.data.recent).toContain('$ ');

      const reply = await a!.callTool({
        name: 'write_stdin',
        arguments: { session_id: shell.sessionId, chars: 'echo watched-$((6 * 7))\n', yield_time_ms: 2000 },
      });
      expect((reply.structuredContent as { output: string }).output).toContain('watched-42');
      await vi.waitFor(() => expect(stream.text()).toContain('watched-42'), PATIENT);
      expect(stream.events.slice(1).every((e) => e.event === 'output')).toBe(true);
      stream.stop();
    });

    it('refuses typing while --view-input is off, whatever the session', async () => {
      const res = await fetch(sessionUrl(view, clientA, shell.sessionId, '/input'), {
        method: 'POST',
        headers: JSON_BODY,
        body: JSON.stringify({ chars: 'echo nope\n' }),
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        error: { code: 'INPUT_OFF', message: 'Typing from the live view is off; start serve with --view-input' },
      });
    });

    it('closes a session: its stream ends with the exit, its process is gone, and it leaves the list', async () => {
      const stream = new EventReader(sessionUrl(view, clientA, shell.sessionId, '/stream'));
      await vi.waitFor(() => expect(stream.events[0]?.event).toBe('start'), PATIENT);
      const res = await fetch(sessionUrl(view, clientA, shell.sessionId), { method: 'DELETE', headers: AUTH });
      expect(res.status).toBe(200);
      expect(await res.json()).toHaveProperty('exit_code');
      await stream.done;
      expect(stream.events.at(-1)?.event).toBe('end');
      await waitUntilGone(shell.pid);
      const { sessions } = await list(view);
      expect(sessions.map((s) => s.session_id)).not.toContain(shell.sessionId);

      const again = await fetch(sessionUrl(view, clientA, shell.sessionId), { method: 'DELETE', headers: AUTH });
      expect(again.status).toBe(404);
      expect(((await again.json()) as { error: { code: string } }).error.code).toBe('UNKNOWN_SESSION');
    });

    it('ends the stream of a session that exits with its exit code', async () => {
      const [, b] = view.clients;
      const clientB = view.server.clients.listClients().find((c) => c.clientName === 'agent-b')!.clientId;
      const short = await startSession(b!, { cmd: 'echo begin; sleep 1; echo finish; exit 5', yield_time_ms: 100 });
      const stream = new EventReader(sessionUrl(view, clientB, short.sessionId, '/stream'));
      await stream.done;
      expect(stream.text()).toContain('finish');
      expect(stream.events.at(-1)).toEqual({ event: 'end', data: { exit_code: 5 } });
      // The model still gets the whole output and the exit.
      const reply = await b!.callTool({ name: 'write_stdin', arguments: { session_id: short.sessionId, chars: '' } });
      expect(reply.structuredContent).toMatchObject({ exit_code: 5 });
      expect((reply.structuredContent as { output: string }).output).toContain('finish');
    });

    it('answers 404 for a client or a session that does not exist, and 405 for a wrong method', async () => {
      const noClient = await fetch(sessionUrl(view, '0000aaaa-0000', 1, '/stream'), { headers: AUTH });
      expect(noClient.status).toBe(404);
      expect(((await noClient.json()) as { error: { code: string } }).error.code).toBe('UNKNOWN_CLIENT');
      const noSession = await fetch(sessionUrl(view, clientA, 1, '/stream'), { headers: AUTH });
      expect(noSession.status).toBe(404);
      const wrongMethod = await fetch(`${view.origin}/view/api/sessions`, { method: 'POST', headers: AUTH });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET');
      const odd = await fetch(`${view.origin}/view/api/sessions/${clientA}/12/kill`, { headers: AUTH });
      expect(odd.status).toBe(404);
    });

    it("left the other client's sessions running", () => {
      expect(isAlive(sleeper.pid)).toBe(true);
    });
  });
});

describe('the live view with --view-input', () => {
  let view: ViewServer;
  beforeAll(async () => {
    view = await startViewServer({ input: true });
  });
  afterAll(() => view?.close());

  it('says typing is on, types into a tty session, and the model reads the answer too', async () => {
    const client = await view.connect('typist');
    const shell = await startSession(client, { cmd: "PS1='$ ' exec bash --norc --noprofile -i", tty: true });
    const [listing] = view.server.clients.listClients();
    expect(((await list(view)) as Listed).input).toBe(true);
    const stream = new EventReader(sessionUrl(view, listing!.clientId, shell.sessionId, '/stream'));
    const res = await fetch(sessionUrl(view, listing!.clientId, shell.sessionId, '/input'), {
      method: 'POST',
      headers: JSON_BODY,
      body: JSON.stringify({ chars: 'echo typed-$((6 * 7))\n' }),
    });
    expect(res.status).toBe(200);
    await vi.waitFor(() => expect(stream.text()).toContain('typed-42'), PATIENT);
    stream.stop();
    const reply = await client.callTool({
      name: 'write_stdin',
      arguments: { session_id: shell.sessionId, chars: '', yield_time_ms: 500 },
    });
    expect((reply.structuredContent as { output: string }).output).toContain('typed-42');
  });

  it('refuses a body without chars (400) and a pipe session, whose stdin is closed (409)', async () => {
    const client = await view.connect('typist-2');
    const pipe = await startSession(client, { cmd: 'sleep 600' });
    const clientId = view.server.clients.listClients().find((c) => c.clientName === 'typist-2')!.clientId;
    const url = sessionUrl(view, clientId, pipe.sessionId, '/input');
    const bad = await fetch(url, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ keys: 'x' }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toBe(
      'Expected `chars` to be a string, got undefined',
    );
    const notJson = await fetch(url, { method: 'POST', headers: JSON_BODY, body: '{' });
    expect(notJson.status).toBe(400);
    const closed = await fetch(url, { method: 'POST', headers: JSON_BODY, body: JSON.stringify({ chars: 'x' }) });
    expect(closed.status).toBe(409);
    expect(((await closed.json()) as { error: { code: string } }).error.code).toBe('STDIN_CLOSED');
  });
});

describe('the live view without a token (--no-auth)', () => {
  it('serves the API without one, and still checks Host', async () => {
    const view = await startViewServer({ token: false });
    try {
      expect((await fetch(`${view.origin}/view/api/sessions`)).status).toBe(200);
      const res = await rawRequest(`${view.origin}/view/api/sessions`, { headers: { host: 'attacker.example' } });
      expect(res.status).toBe(403);
    } finally {
      await view.close();
    }
  });
});

describe('closing the server', () => {
  it('ends open streams with the sessions, instead of waiting for them', async () => {
    const view = await startViewServer();
    const client = await view.connect('closer');
    const session = await startSession(client, { cmd: 'sleep 600' });
    const clientId = view.server.clients.listClients()[0]!.clientId;
    const stream = new EventReader(sessionUrl(view, clientId, session.sessionId, '/stream'));
    await vi.waitFor(() => expect(stream.events[0]?.event).toBe('start'), PATIENT);
    await view.close();
    await stream.done.catch(() => undefined);
    await waitUntilGone(session.pid);
  });
});
