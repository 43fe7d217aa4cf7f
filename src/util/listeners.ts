/** Something to undo: a subscription, a timer. */
export interface Disposable {
  dispose(): void;
}

/** A typed listener list whose `add` returns a Disposable (no string-keyed emitter, no leaked listeners). */
export class Listeners<T> {
  private readonly fns = new Set<(value: T) => void>();

  add(fn: (value: T) => void): Disposable {
    this.fns.add(fn);
    return { dispose: () => void this.fns.delete(fn) };
  }

  emit(value: T): void {
    for (const fn of [...this.fns]) fn(value);
  }

  clear(): void {
    this.fns.clear();
  }
}
