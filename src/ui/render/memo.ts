/**
 * A memo that keeps what was used lately and forgets the rest: two maps, the older dropped whole
 * once the newer one fills. A lookup costs one or two map reads and memory stays bounded however
 * many distinct keys go through it (streamed text makes a new key every frame).
 */
export class TwoGenerations<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string, make: (key: string) => V): V {
    let v = this.current.get(key);
    if (v !== undefined) return v;
    v = this.previous.get(key);
    if (v === undefined) v = make(key);
    if (this.current.size >= this.limit) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, v);
    return v;
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}
