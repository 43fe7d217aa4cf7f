// Replays a script of codex-reference/exec-server/scripts/ (probe.mjs's step language) against a server, and keeps
// every message received, so a test can assert the facts the real server's transcript shows.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { TestClient, decode, type Message } from './client.js';

const SCRIPTS = '/work/shared/codex-reference/exec-server/scripts';

export interface Replay {
  /** Every message received, with the number of the connection it came on (0, 1, ...). */
  received: { conn: number; message: Message }[];
  /** Close codes, by connection. */
  closes: Map<number, number>;
  /** The response to request `id` (on any connection). */
  response(id: number | string): Message;
  result(id: number | string): Message;
  error(id: number | string): { code: number; message: string };
  /** Notifications about one process, in order. */
  events(processId: string): Message[];
  /** What one process printed (decoded), on the given streams. */
  output(processId: string, streams?: string[]): string;
  exited(processId: string): Message;
}

function substitute(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{(ENV:)?([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, env: string | undefined, name: string) =>
      env ? (process.env[name] ?? '') : (vars[name] ?? m),
    );
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

const matches = (want: unknown, got: unknown): boolean =>
  want && typeof want === 'object'
    ? !!got && typeof got === 'object' && Object.entries(want).every(([k, v]) => matches(v, (got as Message)[k]))
    : want === got;

export async function replay(
  url: string,
  script: string,
  options: { cwd: string; init?: boolean; headers?: Record<string, string> },
): Promise<Replay> {
  const steps = JSON.parse(readFileSync(`${SCRIPTS}/${script}.json`, 'utf8')) as Message[];
  const vars: Record<string, string> = { CWD: options.cwd, CWD_URI: pathToFileURL(options.cwd).href, SESSION_ID: '' };
  const received: Replay['received'] = [];
  const closes = new Map<number, number>();
  let client: TestClient | undefined;
  let conn = -1;
  const connect = async (init: boolean) => {
    client = await TestClient.open(url, options.headers);
    const mine = ++conn;
    const watched = client;
    watched.onMessage((message) => {
      received.push({ conn: mine, message });
      if (typeof message.result?.sessionId === 'string') vars.SESSION_ID = message.result.sessionId;
    });
    void watched.closed.then((code) => closes.set(mine, code));
    if (init) await watched.initialize({ clientName: 'probe' });
  };
  await connect(options.init ?? true);
  for (const raw of steps) {
    const step = substitute(raw, vars) as Message;
    if ('comment' in step) continue;
    if ('sleep' in step) await new Promise((r) => setTimeout(r, step.sleep));
    else if ('raw' in step) client!.sendRaw(step.raw);
    else if ('binary' in step) client!.sendRaw(step.binary, true);
    else if ('close' in step) await client!.close();
    else if ('connect' in step) await connect(step.init !== false);
    else if ('waitFor' in step) {
      const { method, params } = step.waitFor;
      await client!.waitFor((m) => m.method === method && matches(params, m.params), step.timeoutMs ?? 10_000);
    } else if ('method' in step) {
      const { _nowait, ...message } = step;
      if (!('id' in message)) client!.send(message);
      else if (_nowait) client!.send(message);
      else {
        const id = message.id;
        const answered = client!.waitFor((m) => m.id === id && !('method' in m), 10_000, false);
        client!.send(message);
        await answered.catch(() => undefined); // a dropped connection answers nothing: the test says what it expects
      }
    }
  }
  await new Promise((r) => setTimeout(r, 300));
  await client!.close();
  const response = (id: number | string) => {
    const hit = received.find(({ message }) => message.id === id && !('method' in message));
    if (!hit) throw new Error(`no response to id ${JSON.stringify(id)}`);
    return hit.message;
  };
  const events = (processId: string) =>
    received.map((r) => r.message).filter((m) => typeof m.method === 'string' && m.params?.processId === processId);
  return {
    received,
    closes,
    response,
    result: (id) => {
      const message = response(id);
      if (!('result' in message)) throw new Error(`id ${id} failed: ${JSON.stringify(message.error)}`);
      return message.result;
    },
    error: (id) => {
      const message = response(id);
      if (!('error' in message)) throw new Error(`id ${id} succeeded: ${JSON.stringify(message.result)}`);
      return message.error;
    },
    events,
    output: (processId, streams = ['stdout', 'stderr', 'pty']) =>
      events(processId)
        .filter((m) => m.method === 'process/output' && streams.includes(m.params.stream))
        .map((m) => decode(m.params.chunk))
        .join(''),
    exited: (processId) => {
      const hit = events(processId).find((m) => m.method === 'process/exited');
      if (!hit) throw new Error(`${processId} never exited`);
      return hit.params;
    },
  };
}

/** Asserts the seq rules of one process: 1, 2, 3, ... over output, exit and close; closed last. */
export function seqs(events: Message[]): { kinds: string[]; seqs: number[] } {
  return {
    kinds: events.filter((m) => m.method !== 'process/inputWait').map((m) => m.method.slice('process/'.length)),
    seqs: events.filter((m) => m.method !== 'process/inputWait').map((m) => m.params.seq),
  };
}
