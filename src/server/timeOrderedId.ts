/**
 * Time-ordered identifiers (UUID version 7, RFC 9562 §5.7) for the ids the server generates:
 * tasks, contexts, messages, artifacts, push configs. Ids made one after another sort one after
 * another, so in the SQL stores a new task, its events and its message claim land on the last
 * pages of their B-tree indexes instead of random ones: a group commit then writes a handful of
 * pages, not one per task per index (about half the CPU of a SQLite-backed SendMessage). They
 * are still unguessable: 62 random bits, plus 12 bits of a randomly seeded counter.
 *
 * Layout: 48-bit Unix milliseconds, version 7, a 12-bit counter (method 1 of §6.2: monotonic
 * within a millisecond, reseeded each new millisecond), variant 10, 62 random bits. Runs on any
 * runtime (Web Crypto only).
 */
/** ASCII codes of the two hex digits of each byte value: byte b at [2b], [2b + 1]. */
const HEX_CODES = Array.from({ length: 512 }, (_, i) => (i >> 1).toString(16).padStart(2, '0').charCodeAt(i & 1));
const DASH = 0x2d;
/**
 * The 36 character codes of the id being built, turned into a string in one step: joining
 * pieces with `+` builds a chain of cons-strings that is flattened again when the id is first
 * hashed (about 600 bytes of garbage per id, three ids per task).
 */
const chars: number[] = Array.from({ length: 36 }, () => DASH);
const POOL_IDS = 256;
/** Random bytes per id: 8 for the tail, and 2 to seed the counter when the millisecond changes. */
const BYTES_PER_ID = 10;

let pool = new Uint8Array(POOL_IDS * BYTES_PER_ID);
let offset = pool.length;
let lastMs = -1;
let counter = 0;

function randomBytes(n: number): number {
  if (offset + n > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(POOL_IDS * BYTES_PER_ID));
    offset = 0;
  }
  const at = offset;
  offset += n;
  return at;
}

/** A new UUIDv7 string, e.g. `019ad6c8-2f4a-7c3e-9b1d-5e0f3a7c9d21`; later calls sort after earlier ones. */
export function timeOrderedId(): string {
  let ms = Date.now();
  if (ms > lastMs) {
    const at = randomBytes(2);
    // Seeded in the lower half so that a burst within one millisecond rarely overflows it.
    counter = ((pool[at] as number) << 3) | ((pool[at + 1] as number) & 0x7);
    lastMs = ms;
  } else {
    // Same millisecond (or the clock went back): count up; on overflow borrow the next millisecond.
    ms = lastMs;
    counter++;
    if (counter > 0xfff) {
      counter = 0;
      ms = ++lastMs;
    }
  }
  const r = randomBytes(8);
  // 48-bit milliseconds as six bytes (above 2^32 only by division: bit operators are 32-bit).
  const high = Math.floor(ms / 0x100000000);
  put(0, (high >> 8) & 0xff);
  put(2, high & 0xff);
  put(4, ms >>> 24);
  put(6, (ms >>> 16) & 0xff);
  put(9, (ms >>> 8) & 0xff);
  put(11, ms & 0xff);
  put(14, 0x70 | (counter >> 8));
  put(16, counter & 0xff);
  put(19, ((pool[r] as number) & 0x3f) | 0x80);
  put(21, pool[r + 1] as number);
  for (let i = 2; i < 8; i++) put(20 + 2 * i, pool[r + i] as number);
  return String.fromCharCode.apply(null, chars);
}

/** Writes byte `b` as two hex digits at `at` in the id being built. */
function put(at: number, b: number): void {
  chars[at] = HEX_CODES[2 * b] as number;
  chars[at + 1] = HEX_CODES[2 * b + 1] as number;
}
