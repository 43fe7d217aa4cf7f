import type { Disposable } from '../util/listeners.js';

/** What a manager tells the budget it shares with others. */
export interface BudgetMember {
  /** Live exec sessions it holds. */
  readonly size: number;
  /** Unread output its sessions hold, in bytes. */
  bufferedBytes(): number;
}

export interface SessionBudgetLimits {
  /** Live exec sessions across every member. */
  maxSessions: number;
  /** Unread output across every member, in bytes; new sessions are refused above it. */
  maxBufferedBytes: number;
}

/**
 * Limits shared by several managers, e.g. the one-per-client managers of an HTTP server: without it four clients
 * hold four times the sessions and the output one manager may. A manager at the cap prunes among its own sessions;
 * one client never ends another's.
 */
export class SessionBudget {
  private readonly members = new Set<BudgetMember>();

  constructor(readonly limits: SessionBudgetLimits) {}

  /** Counts `member` in until the returned disposable is disposed (its manager shut down). */
  join(member: BudgetMember): Disposable {
    this.members.add(member);
    return { dispose: () => void this.members.delete(member) };
  }

  get liveSessions(): number {
    let total = 0;
    for (const member of this.members) total += member.size;
    return total;
  }

  bufferedBytes(): number {
    let total = 0;
    for (const member of this.members) total += member.bufferedBytes();
    return total;
  }
}
