import { randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let offset = pool.length;

/**
 * A new row id: a UUID version 7 (RFC 9562), its first 48 bits the time in milliseconds and the rest random. Rows
 * written one after another get neighbouring keys, so a table's primary key grows at its right edge instead of
 * touching a random page of a large index for every insert (fewer pages read and written, and smaller WAL). The
 * random bits keep ids unguessable; the last 32 of them decide which worker owns an action (persistence/workers.ts).
 */
export function timeOrderedId(now = Date.now()): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const b = pool.subarray(offset, offset + 16);
  offset += 16;
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The smallest time-ordered id of the instant `at`: every id made at or after `at` sorts at or above it, every one
 * made before sorts below. So "created before `at`" is a range of a primary key of such ids, and a range partition
 * of them by month has this id of the month's first millisecond as its bound.
 */
export function uuidv7LowerBound(at: Date): string {
  const h = Math.min(Math.max(0, at.getTime()), 2 ** 48 - 1)
    .toString(16)
    .padStart(12, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-0000-0000-000000000000`;
}
