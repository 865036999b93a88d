/**
 * A Map that holds at most `max` entries, least recently used first (a Map's insertion order):
 * get and set move an entry to the end. set first drops the oldest entries that `stale` calls
 * worthless and, when the map is full, a stale one among the next few, else the least recently
 * used. It looks at no more than LOOK_AHEAD live entries, so a set costs the same however full
 * the map is (a full rate limiter must not scan 10,000 buckets per request from a new address).
 * Shared by the client's card cache, the JWKS cache and the server's rate limiter; runtime-neutral.
 */
const LOOK_AHEAD = 16;

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
    let looked = 0;
    let oldest: { key: K } | undefined;
    for (const [k, v] of this) {
      if (this.stale(v)) this.delete(k);
      else if (this.size < this.max || ++looked > LOOK_AHEAD) break;
      else oldest ??= { key: k };
    }
    if (oldest && this.size >= this.max) this.delete(oldest.key);
    return super.set(key, value);
  }
}
