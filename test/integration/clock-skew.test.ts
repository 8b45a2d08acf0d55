import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClockSkewWatch } from '../../server/src/app/clock.js';
import { databaseClock } from '../../server/src/persistence/workers.js';
import { openTestDatabase } from '../support/in-process.js';

// A worker's clock read against the database's, as each worker does at start and every minute.
describe("a worker's clock against the database's", () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  beforeAll(async () => {
    t = await openTestDatabase('clock_skew');
  });
  afterAll(() => t?.close());

  it('sets the gauge, warns once when the clocks drift apart past the limit, and says when they agree again', async () => {
    let offsetMs = 2_000;
    const gauge: number[] = [];
    const said: { level: string; fields: Record<string, unknown>; message: string }[] = [];
    const watch = new ClockSkewWatch({
      readDatabaseClock: () => databaseClock(t.database.sql),
      clock: () => new Date(Date.now() + offsetMs),
      gauge: { set: (seconds) => gauge.push(seconds) },
      log: {
        warn: (fields, message) =>
          said.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
        info: (fields, message) =>
          said.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
      },
    });

    const ahead = await watch.check();
    expect(ahead.beyond).toBe(true);
    expect(ahead.skewMs).toBeGreaterThan(1_500);
    expect(ahead.skewMs).toBeLessThan(2_500);
    expect(gauge.at(-1)).toBeCloseTo(ahead.skewMs / 1000, 6);
    await watch.check();
    expect(said.map((s) => s.level)).toEqual(['warn']);
    expect(said[0]!.message).toMatch(/clock/);
    expect(said[0]!.fields).toMatchObject({ limitMs: 250 });

    offsetMs = 0;
    const together = await watch.check();
    expect(together.beyond).toBe(false);
    expect(Math.abs(together.skewMs)).toBeLessThan(250);
    expect(said.map((s) => s.level)).toEqual(['warn', 'info']);

    offsetMs = -2_000;
    const behind = await watch.check();
    expect(behind.beyond).toBe(true);
    expect(behind.skewMs).toBeLessThan(-1_500);
    expect(said.map((s) => s.level)).toEqual(['warn', 'info', 'warn']);
  });
});
