/**
 * A minimal external store (`subscribe` / `getSnapshot`), the shape `useSyncExternalStore`
 * reads. Domain feeds implement `Source<T>`; UI state is a `ReducerStore` over the reducer.
 * State lives here, not in React, so a remount (after the terminal hand-over, on resize)
 * comes back exactly where it was.
 */
export interface Source<T> {
  subscribe(listener: () => void): () => void;
  getSnapshot(): T;
}

export class Emitter {
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  protected emit(): void {
    for (const l of [...this.listeners]) l();
  }
}

export class ReducerStore<S, A> extends Emitter implements Source<S> {
  constructor(
    private readonly reducer: (s: S, a: A) => S,
    private state: S,
  ) {
    super();
  }

  getSnapshot = (): S => this.state;

  dispatch = (action: A): void => {
    const next = this.reducer(this.state, action);
    if (next === this.state) return;
    this.state = next;
    this.emit();
  };
}
