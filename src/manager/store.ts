import pLimit from 'p-limit';
import { PRUNE_PROTECTED_RECENT } from './constants.js';
import { unknownSession, UnifiedExecError } from './errors.js';
import type { BudgetMember } from './budget.js';
import type { ExecSession } from './exec-session.js';
import { pickSessionToPrune } from './prune.js';

/**
 * How many process trees may be ended at once. Each polls /proc during its grace period, but kills in flight together
 * share one scan per event-loop turn (linux/process-tree), so a shutdown of many sessions costs a few scans per wave.
 */
const TERMINATE_CONCURRENCY = 64;

export interface SessionStoreOptions {
  /** Session id generator; ids in use are skipped. */
  nextId: () => number;
}

/**
 * Owns the exec sessions: the id map, id allocation, pruning, closing (every way a session ends goes
 * through `close`), the terminations in flight and the output buffered across sessions. Nothing else removes a
 * session.
 */
export class SessionStore implements BudgetMember {
  private readonly sessions = new Map<number, ExecSession>();
  private readonly terminations = new Set<Promise<void>>();
  private readonly terminateLimit = pLimit(TERMINATE_CONCURRENCY);

  constructor(private readonly options: SessionStoreOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  /** A free id, taken before the spawn so that running out of ids never leaves a started process behind. */
  allocateId(): number {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const id = this.options.nextId();
      if (!this.sessions.has(id)) return id;
    }
    throw new UnifiedExecError('SPAWN_FAILED', 'Failed to create unified exec process: no free session id');
  }

  /** Stores a session. Pruning waits until it has outlived its first yield (`pruneOne`): see the manager. */
  add(session: ExecSession): void {
    this.sessions.set(session.id, session);
  }

  /**
   * Closes one session to make room for `keep` (a session that outlived its first yield), chosen by the pruning
   * rule: never `keep`, never the 7 others most recently used (with `keep`, Codex's 8), of the rest the least
   * recently used that has exited, else the least recently used. False when there is no other session.
   */
  pruneOne(keep: ExecSession): boolean {
    const others = this.list().filter((s) => s !== keep);
    if (others.length === 0) return false;
    const meta = others.map((s) => ({ id: s.id, lastUsedMs: s.lastUsedMs, exited: s.state === 'exited' }));
    // Few sessions protect fewer than the usual 7, so there is always someone to prune.
    const protectedRecent = Math.min(PRUNE_PROTECTED_RECENT - 1, others.length - 1);
    const victim = this.sessions.get(pickSessionToPrune(meta, protectedRecent) ?? -1);
    if (!victim) return false;
    void this.close(victim);
    return true;
  }

  /** The live session with this id, or UNKNOWN_SESSION. */
  get(id: number): ExecSession {
    const session = this.sessions.get(id);
    if (!session) throw unknownSession(id);
    return session;
  }

  /** Every session held, oldest first. */
  list(): ExecSession[] {
    return [...this.sessions.values()];
  }

  /** Unread output its sessions hold, in bytes. */
  bufferedBytes(): number {
    let total = 0;
    for (const session of this.sessions.values()) total += session.bufferedBytes;
    return total;
  }

  /**
   * Forgets the session and ends its process tree; its waiters answer at once with the final state. `afterReply`
   * defers the ending (a synchronous /proc scan) by one event-loop turn, so the reply that reported an exit goes
   * out first.
   */
  close(session: ExecSession, { afterReply = false } = {}): Promise<void> {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
    const terminate = () => session.process.terminate();
    const done = session.close(() =>
      this.terminateLimit(
        afterReply ? () => new Promise<void>((resolve) => setImmediate(() => resolve(terminate()))) : terminate,
      ),
    );
    this.terminations.add(done);
    void done.finally(() => this.terminations.delete(done));
    return done;
  }

  /** Closes every session and waits until every process tree, including those closed before, has ended. */
  async closeAll(): Promise<void> {
    await Promise.all(this.list().map((session) => this.close(session)));
    await Promise.all([...this.terminations]);
  }
}
