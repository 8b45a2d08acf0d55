import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinationCounts } from '../../server/src/persistence/destination-actions.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

/**
 * The destinations list counts each origin's actions by state up to 10,000 actions with a destination; past that the
 * figures of an origin of more than a few hundred actions are PostgreSQL's estimates from its statistics of account,
 * origin and state together, so each origin gets its own mix of states, and what is in flight is still counted. Counting ten million actions by origin and state ran
 * past the statement timeout.
 */
describe('destination counts past the counting limit', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let big = '';
  let small = '';
  const a = { url: 'https://a.example/hook', host: 'a.example' };
  const b = { url: 'http://b.example:8080/hook', host: 'b.example' };

  beforeAll(async () => {
    t = await openTestDatabase('destination_counts');
    big = await t.newAccount('business');
    small = await t.newAccount('business');
    await seedActions(t.url, { accountId: big, count: 8_000, status: 'executed', ...a });
    await seedActions(t.url, { accountId: big, count: 1_000, status: 'scheduled', ...a });
    await seedActions(t.url, { accountId: big, count: 2_500, status: 'failed', ...b });
    await seedActions(t.url, { accountId: big, count: 500, status: 'executed', ...b });
    await seedActions(t.url, { accountId: small, count: 40, status: 'executed', ...a });
    await seedActions(t.url, { accountId: small, count: 10, status: 'failed', ...b });
    // Two of a's requests on the wire now.
    await rawQuery(
      t.database.sql,
      `update actions set status = 'executing', next_attempt_at = now() - interval '1 second',
              lease_until = now() + interval '1 minute'
        where id in (select id from actions where account_id = $1 and status = 'scheduled' limit 2)`,
      [big],
    );
    // What autovacuum's analyze would have gathered, the statistics of origin and state included.
    await rawQuery(t.database.sql, 'analyze actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  const all = { limit: 100, offset: 0 };
  const near = (estimate: number | undefined, truth: number, within: number) =>
    expect(Math.abs((estimate ?? 0) - truth) / truth).toBeLessThan(within);

  it('counts every figure of an account below the limit', async () => {
    const counts = (await destinationCounts(t.database.sql, small, new Date(), [], all)).rows;
    expect(counts).toEqual([
      {
        origin: 'http://b.example:8080',
        host: 'b.example',
        actions: 10,
        scheduled: 0,
        inFlight: 0,
        failed: 10,
        exact: true,
      },
      {
        origin: 'https://a.example',
        host: 'a.example',
        actions: 40,
        scheduled: 0,
        inFlight: 0,
        failed: 0,
        exact: true,
      },
    ]);
  });

  it("estimates each origin's own mix of states past the limit, and counts what is in flight", async () => {
    const counts = (await destinationCounts(t.database.sql, big, new Date(), ['https://c.example'], all))
      .rows;
    expect(counts.map((c) => [c.origin, c.exact])).toEqual([
      ['http://b.example:8080', false],
      ['https://a.example', false],
      // No action aims at it: counted (none), not estimated.
      ['https://c.example', true],
    ]);
    const [onB, onA, onC] = counts;
    near(onA?.actions, 9_000, 0.15);
    near(onA?.scheduled, 998, 0.25);
    expect(onA?.failed).toBeLessThan(100);
    expect(onA?.inFlight).toBe(2);
    near(onB?.actions, 3_000, 0.15);
    near(onB?.failed, 2_500, 0.15);
    expect(onB?.scheduled).toBeLessThan(100);
    expect(onB?.inFlight).toBe(0);
    // An origin with settings of its own and no action: none estimated.
    expect(onC).toMatchObject({ actions: 0, scheduled: 0, failed: 0, inFlight: 0 });
  });

  it('answers a page of the origins and how many there are, counted or estimated, figures only for the page', async () => {
    const second = { limit: 1, offset: 1 };
    const counted = await destinationCounts(t.database.sql, small, new Date(), [], second);
    expect(counted.total).toBe(2);
    expect(counted.rows.map((c) => [c.origin, c.actions, c.exact])).toEqual([
      ['https://a.example', 40, true],
    ]);
    const estimated = await destinationCounts(t.database.sql, big, new Date(), ['https://c.example'], second);
    expect(estimated.total).toBe(3);
    expect(estimated.rows.map((c) => [c.origin, c.inFlight, c.exact])).toEqual([
      ['https://a.example', 2, false],
    ]);
    near(estimated.rows[0]?.actions, 9_000, 0.15);
    const past = await destinationCounts(t.database.sql, big, new Date(), ['https://c.example'], {
      limit: 10,
      offset: 3,
    });
    expect(past).toEqual({ total: 3, rows: [] });
  });

  it("lists every origin past the limit, also one whose host's newest actions all aim at another, and counts the few", async () => {
    const shared = await t.newAccount('business');
    const rare = { url: 'http://a.example:9000/old', host: 'a.example' };
    await seedActions(t.url, { accountId: shared, count: 3, status: 'executed', ...rare });
    await seedActions(t.url, { accountId: shared, count: 10_050, status: 'executed', ...a });
    await rawQuery(t.database.sql, 'analyze actions');
    const listed = await destinationCounts(t.database.sql, shared, new Date(), [], all);
    expect(listed.total).toBe(2);
    expect(listed.rows.map((c) => [c.origin, c.host, c.exact])).toEqual([
      ['http://a.example:9000', 'a.example', true],
      ['https://a.example', 'a.example', false],
    ]);
    // An origin of a few actions past the limit is counted, every figure exact.
    expect(listed.rows[0]).toMatchObject({ actions: 3, scheduled: 0, failed: 0, inFlight: 0 });
    near(listed.rows[1]?.actions, 10_050, 0.15);
  });
});
