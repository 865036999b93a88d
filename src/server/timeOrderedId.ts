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
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
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
  const high = Math.floor(ms / 0x10000);
  const low = ms % 0x10000;
  return (
    hex4(Math.floor(high / 0x10000)) +
    hex4(high % 0x10000) +
    '-' +
    hex4(low) +
    '-' +
    hex4(0x7000 | counter) +
    '-' +
    HEX[((pool[r] as number) & 0x3f) | 0x80] +
    HEX[pool[r + 1] as number] +
    '-' +
    HEX[pool[r + 2] as number] +
    HEX[pool[r + 3] as number] +
    HEX[pool[r + 4] as number] +
    HEX[pool[r + 5] as number] +
    HEX[pool[r + 6] as number] +
    HEX[pool[r + 7] as number]
  );
}

function hex4(n: number): string {
  return (HEX[n >> 8] as string) + (HEX[n & 0xff] as string);
}
