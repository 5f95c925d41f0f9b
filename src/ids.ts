import { randomFillSync } from "node:crypto";

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/**
 * Time-ordered ids (`sub_01jd…`): 48 bits of milliseconds then 80 random bits, Crockford base32, so ids sort by
 * creation time — keyset pagination and "newest first" need no second column to be stable.
 */
export function newId(prefix: string, now = Date.now()): string {
  let tail = "";
  for (let i = 0; i < 16; i++) tail += CROCKFORD[randomByte() % 32];
  return `${prefix}_${timePart(now)}${tail}`;
}

/**
 * A bound below every id of `prefix` made at or after `ms` and above every one made before: a time range is an id range
 * (time-ordered ids, so a range query runs on the primary key or on an index ending in the id).
 */
export function idFloor(prefix: string, ms: number): string {
  return `${prefix}_${timePart(ms)}`;
}

function timePart(ms: number): string {
  let time = "";
  // Clocks may report fractions of a millisecond; an index into the alphabet must be a whole number.
  let t = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  return time;
}

const HEX = "0123456789abcdef";

/** `bytes` random bytes as lower-case hex, from the same pool (a request id on every request). */
export function randomHex(bytes: number): string {
  let out = "";
  for (let i = 0; i < bytes; i++) {
    const byte = randomByte();
    out += `${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** Random bytes drawn from a pooled buffer: one call into the CSPRNG per 256 ids instead of one per id. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++] ?? 0;
}
