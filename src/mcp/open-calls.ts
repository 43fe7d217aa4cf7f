import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/server';

/**
 * Calls received and not yet answered, each under a key (an HTTP response, a JSON-RPC id) with the JSON-RPC ids it
 * carries: a client with one open is busy, not idle, and a shutdown waits for them to drain or answers them itself.
 */
export class OpenCalls<K> {
  private readonly open = new Map<K, RequestId[]>();
  private readonly waiters = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  add(key: K, ids: RequestId[]): void {
    this.open.set(key, ids);
  }

  /** The call under `key` was answered (or its connection went away). */
  delete(key: K): void {
    if (!this.open.delete(key) || this.open.size > 0) return;
    for (const wake of this.waiters) wake();
  }

  /** The JSON-RPC ids of every call still open. */
  ids(): RequestId[] {
    return [...this.open.values()].flat();
  }

  /** Resolves true once no call is open, or false when `timeoutMs` passed first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.open.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (drained: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(drained);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }
}

/** The ids of the requests among one or several (a batch) JSON-RPC messages; notifications and responses have none. */
export function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? (body as unknown[]) : [body];
  return messages.flatMap((m) => {
    if (typeof m !== 'object' || m === null || !('method' in m) || !('id' in m)) return [];
    const { id } = m as { id: unknown };
    return typeof id === 'string' || typeof id === 'number' ? [id] : [];
  });
}

/** The JSON-RPC error a call still open when its server shuts down is answered with. */
export function shutdownError(id: RequestId): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32000,
      message: 'Server shutting down: this call was not answered in time; its exec sessions are closed',
    },
  };
}
