/** Something to undo: a subscription, a timer. */
export interface Disposable {
  dispose(): void;
}

/**
 * A typed listener list whose `add` returns a Disposable (no string-keyed emitter, no leaked listeners). Its set is
 * made at the first `add`: most lists of an idle session never get a listener. A listener may take a second value
 * (`U`), so a hot path emits two without a record made to hold them.
 */
export class Listeners<T, U = void> {
  private fns: Set<(value: T, extra: U) => void> | undefined;
  /** The listener while there is exactly one (the usual case): called without touching the set. */
  private only: ((value: T, extra: U) => void) | undefined;

  add(fn: (value: T, extra: U) => void): Disposable {
    const fns = (this.fns ??= new Set());
    fns.add(fn);
    this.only = fns.size === 1 ? fn : undefined;
    return { dispose: () => this.remove(fn) };
  }

  /** How many listeners there are. */
  get size(): number {
    return this.fns?.size ?? 0;
  }

  /** Calls the listeners there are now; one added or removed by a listener takes effect at the next emit. */
  emit(value: T, extra: U): void {
    const only = this.only;
    if (only !== undefined) {
      only(value, extra);
      return;
    }
    const fns = this.fns;
    if (fns === undefined || fns.size === 0) return;
    for (const fn of [...fns]) fn(value, extra);
  }

  clear(): void {
    this.fns?.clear();
    this.only = undefined;
  }

  private remove(fn: (value: T, extra: U) => void): void {
    const fns = this.fns;
    if (fns === undefined || !fns.delete(fn)) return;
    this.only = fns.size === 1 ? fns.values().next().value : undefined;
  }
}
