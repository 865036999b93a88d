/**
 * A Map that holds at most `max` entries, least recently used first (a Map's insertion order):
 * get and set move an entry to the end. set first drops the oldest entries that `stale` calls
 * worthless and, when the map is full, every stale entry and then the least recently used.
 * Shared by the client's card cache, the JWKS cache and the server's rate limiter; runtime-neutral.
 */
export class LruMap<K, V> extends Map<K, V> {
  constructor(
    readonly max: number,
    private readonly stale: (value: V) => boolean = () => false,
  ) {
    super();
    if (!(max >= 1)) throw new RangeError('max entries must be at least 1');
  }

  override get(key: K): V | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      super.delete(key);
      super.set(key, value);
    }
    return value;
  }

  override set(key: K, value: V): this {
    super.delete(key);
    const full = this.size >= this.max;
    for (const [k, v] of this) {
      if (this.stale(v)) this.delete(k);
      else if (!full) break;
    }
    for (const k of this.keys()) {
      if (this.size < this.max) break;
      this.delete(k);
    }
    return super.set(key, value);
  }
}
