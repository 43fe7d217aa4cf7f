import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { unknownSession } from '../../src/manager/errors.js';
import type { SessionWatcher } from '../../src/manager/types.js';
import { MAX_STREAM_BACKLOG_BYTES, STREAM_FLUSH_MS } from '../../src/view/constants.js';
import { ViewHttpError } from '../../src/view/http-io.js';
import { streamSession } from '../../src/view/session-stream.js';

/** What streamSession uses of a ServerResponse, recording what was sent. */
class FakeResponse extends EventEmitter {
  status = 0;
  headers: Record<string, string> = {};
  body = '';
  ended = false;
  writableLength = 0;

  writeHead(status: number, headers: Record<string, string>): this {
    this.status = status;
    this.headers = headers;
    return this;
  }

  write(text: string): boolean {
    this.body += text;
    return true;
  }

  end(): void {
    this.ended = true;
  }

  events(): Array<{ event: string; data: unknown }> {
    return [...this.body.matchAll(/^event: (.*)\ndata: (.*)\n\n/gm)].map((m) => ({
      event: m[1]!,
      data: JSON.parse(m[2]!),
    }));
  }
}

/** A manager with one watchable session (id 1): the test plays its output and its end. */
function fakeManager() {
  const state = { watcher: undefined as SessionWatcher | undefined, disposed: false };
  return {
    state,
    watchSession(sessionId: number, watcher: SessionWatcher) {
      if (sessionId !== 1) throw unknownSession(sessionId);
      state.watcher = watcher;
      return { recent: 'earlier\r\n', tty: true, cols: 100, rows: 30, dispose: () => (state.disposed = true) };
    },
  };
}

function start() {
  const manager = fakeManager();
  const res = new FakeResponse();
  streamSession(manager, 1, res as unknown as ServerResponse);
  return { res, state: manager.state, watcher: manager.state.watcher! };
}

describe('streamSession', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('opens with the recent output and the terminal size, then joins output over a flush interval', () => {
    const { res, watcher } = start();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.events()).toEqual([{ event: 'start', data: { recent: 'earlier\r\n', tty: true, cols: 100, rows: 30 } }]);
    watcher.output('a\n');
    watcher.output('b\n');
    expect(res.events()).toHaveLength(1);
    vi.advanceTimersByTime(STREAM_FLUSH_MS);
    expect(res.events().slice(1)).toEqual([{ event: 'output', data: { text: 'a\nb\n' } }]);
  });

  it('on the end, sends what is pending and the exit code, ends the response and stops watching', () => {
    const { res, state, watcher } = start();
    watcher.output('last words\n');
    watcher.ended(3);
    expect(res.events().slice(1)).toEqual([
      { event: 'output', data: { text: 'last words\n' } },
      { event: 'end', data: { exit_code: 3 } },
    ]);
    expect(res.ended).toBe(true);
    expect(state.disposed).toBe(true);
    watcher.output('after');
    vi.advanceTimersByTime(STREAM_FLUSH_MS);
    expect(res.events()).toHaveLength(3);
  });

  it('says null when no exit status came', () => {
    const { res, watcher } = start();
    watcher.ended(undefined);
    expect(res.events().at(-1)).toEqual({ event: 'end', data: { exit_code: null } });
  });

  it('ends a stream the page reads too slowly with `behind`, dropping what it could not take', () => {
    const { res, state, watcher } = start();
    res.writableLength = MAX_STREAM_BACKLOG_BYTES;
    watcher.output('x');
    expect(res.events().slice(1)).toEqual([{ event: 'behind', data: {} }]);
    expect(res.ended).toBe(true);
    expect(state.disposed).toBe(true);
  });

  it('stops watching when the page goes away', () => {
    const { res, state, watcher } = start();
    watcher.output('unsent');
    res.emit('close');
    expect(state.disposed).toBe(true);
    vi.advanceTimersByTime(60_000);
    expect(res.events()).toHaveLength(1);
  });

  it('answers 404 for a session the manager does not know, before any header', () => {
    const res = new FakeResponse();
    let thrown: unknown;
    try {
      streamSession(fakeManager(), 2, res as unknown as ServerResponse);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ViewHttpError);
    expect(thrown).toMatchObject({ status: 404, code: 'UNKNOWN_SESSION', message: 'Unknown process id 2' });
    expect(res.status).toBe(0);
  });
});
