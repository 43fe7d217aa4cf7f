/** Something to undo: a subscription, a timer. */
export interface Disposable {
  dispose(): void;
}

/**
 * A typed listener list whose `add` returns a Disposable (no string-keyed emitter, no leaked listeners). Its set is
 * made at the first `add`: most lists of an idle session never get a listener.
 */
export class Listeners<T> {
  private fns: Set<(value: T) => void> | undefined;

  add(fn: (value: T) => void): Disposable {
    (this.fns ??= new Set()).add(fn);
    return { dispose: () => void this.fns?.delete(fn) };
  }

  /** How many listeners there are. */
  get size(): number {
    return this.fns?.size ?? 0;
  }

  /** Calls the listeners there are now; one added or removed by a listener takes effect at the next emit. */
  emit(value: T): void {
    const fns = this.fns;
    if (fns === undefined || fns.size === 0) return;
    if (fns.size === 1) {
      // The usual case, without a copy of the set: its one listener, taken before it runs.
      const only = fns.values().next().value!;
      only(value);
      return;
    }
    for (const fn of [...fns]) fn(value);
  }

  clear(): void {
    this.fns?.clear();
  }
}
