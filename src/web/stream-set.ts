/** Every open event stream, to count them and to end them all (a new token signs every page out). */
export class StreamSet {
  private open = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  add(end: () => void): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}
