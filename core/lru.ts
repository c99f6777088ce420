/**
 * A least-recently-used cache of at most `max` entries: reading or writing an entry makes it the newest, and
 * the oldest goes when the cache is full. A Map keeps insertion order, so the first key is the oldest.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly max: number) {
    if (!(Number.isInteger(max) && max >= 1)) throw new Error(`Lru: max must be a positive integer, got ${max}`);
  }

  get size(): number {
    return this.map.size;
  }

  /** The value of `key` (now the newest), or undefined. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  /** Values oldest first. */
  values(): IterableIterator<V> {
    return this.map.values();
  }

  clear(): void {
    this.map.clear();
  }
}
