import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startServer, type TestServer } from '../support/server.js';

// A worker reads its clock against the database's at start (then each minute) and publishes the difference.
describe('the clock skew gauge', () => {
  let db: TestDatabase;
  let server: TestServer;
  beforeAll(async () => {
    db = await createTestDatabase('clock_skew_gauge');
    server = await startServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it("a running worker publishes its clock minus the database's, near zero on one host, and does not warn", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const value = /^sched_clock_skew_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    // NaN until the worker's first reading, taken as it starts.
    expect(Number.isFinite(Number(value))).toBe(true);
    // One host, one clock: the reading is the round trip's error at most (its resolution is a millisecond).
    expect(Math.abs(Number(value))).toBeLessThan(0.25);
    expect(server.output()).not.toMatch(/clock and the database's are apart/);
  });
});
