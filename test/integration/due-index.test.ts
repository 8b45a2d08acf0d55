import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DueIndex } from '../../server/src/app/due-index.js';
import { dueIndexBound } from '../../server/src/domain/action/due-horizon.js';
import { claimDueShare, expiredLeases } from '../../server/src/persistence/delivery-scan.js';
import { dueIndexName, dueIndexes } from '../../server/src/persistence/due-index.js';
import { dueBacklog } from '../../server/src/persistence/schedule.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

const DAY = 86_400_000;
// A day of our own, far from today, so the clock alone decides which indexes exist.
const D = Date.parse('2031-03-10T00:00:00Z');
const at = (days: number) => new Date(D + days * DAY);

// The due index holds only what falls due in the next days and is rebuilt each day by sched's own job: followed
// across day boundaries with the clock, every attempt is claimed when due whatever index served it, the unbounded
// index of the migrations is replaced, a build a crash left invalid is redone, and a far-future action is in no index.
describe('the day’s due index', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  let clock = at(0.1);
  const job = () => new DueIndex(t.database, () => clock);

  beforeAll(async () => {
    t = await openTestDatabase('due-index');
    accountId = await t.newAccount();
    // Due at half past each of the next days, and one in three weeks.
    for (const days of [0.5, 1.5, 2.5, 3.5, 4.5, 21.5])
      await seedActions(t.url, {
        accountId,
        count: 2,
        status: 'scheduled',
        url: 'https://example.com/hook',
        host: 'example.com',
        name: `due ${days}`,
        scheduledFor: at(days),
      });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The names of the due indexes `actions` has, and whether each is valid. */
  async function indexes(): Promise<Record<string, boolean>> {
    const { rows } = await sql<{ name: string; valid: boolean }>`
      select c.relname as name, i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
       where i.indrelid = 'actions'::regclass and c.relname like 'actions_due%' order by 1`.execute(
      t.database.sql,
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.valid]));
  }

  /** The rows an index holds, as its build counted them. */
  async function entries(name: string): Promise<number> {
    const { rows } = await sql<{
      n: number;
    }>`select reltuples::int as n from pg_class where relname = ${name}`.execute(t.database.sql);
    return rows[0]?.n ?? -1;
  }

  /** Claims what is due at the clock, as a worker does; answers the names of the actions claimed. */
  async function claimDue(): Promise<string[]> {
    const claim = await claimDueShare(t.database.sql, {
      until: clock,
      now: clock,
      leaseUntil: new Date(clock.getTime() + 60_000),
      limit: 100,
      scan: 100,
      share: { slots: 1, slot: 0, overdueBefore: clock },
      rooms: new Map(),
      perAccount: 100,
    });
    const ids = claim.claimed.map((c) => c.id);
    if (ids.length === 0) return [];
    // Delivered: out of the pending phase, as a record would leave them.
    await sql`update actions set status = 'executed', next_attempt_at = null where id = any(${ids}::uuid[])`.execute(
      t.database.sql,
    );
    const { rows } = await sql<{
      name: string;
    }>`select name from actions where id = any(${ids}::uuid[]) order by name`.execute(t.database.sql);
    return [...new Set(rows.map((r) => r.name.replace(/ \d+$/, '')))];
  }

  it('replaces the unbounded index by the day’s, which leaves out what is due past its bound', async () => {
    expect(await indexes()).toEqual({ actions_due_index: true });
    const today = dueIndexName(dueIndexBound(clock));
    expect(today).toBe('actions_due_before_20310313');
    expect(await job().maintain({ wait: true })).toEqual({ built: today, dropped: ['actions_due_index'] });
    expect(await indexes()).toEqual({ [today]: true });
    // Due on days 0.5, 1.5 and 2.5: the three days of its reach; not 3.5, 4.5 or in three weeks.
    expect(await entries(today)).toBe(6);
    // Run again the same day: nothing to do.
    expect(await job().maintain({ wait: true })).toEqual({ built: null, dropped: [] });
  });

  it('claims each day’s attempts when due as the days pass, the indexes built and dropped behind', async () => {
    const claimed: Record<string, string[]> = {};
    for (const day of [0, 1, 2, 3, 4]) {
      clock = at(day + 0.6);
      // The claim before the day's build (yesterday's index serves it), then the build.
      claimed[day] = await claimDue();
      await job().maintain({ wait: true });
      expect(Object.keys(await indexes())).toEqual(
        day === 0
          ? ['actions_due_before_20310313']
          : [dueIndexName(dueIndexBound(at(day - 1))), dueIndexName(dueIndexBound(clock))],
      );
    }
    expect(claimed).toEqual({
      0: ['due 0.5'],
      1: ['due 1.5'],
      2: ['due 2.5'],
      3: ['due 3.5'],
      4: ['due 4.5'],
    });
    // The one in three weeks is in none of these indexes, and still pending: the backlog counts it at its time.
    expect(await dueBacklog(t.database.sql, at(30))).toEqual({ depth: 2, oldestSeconds: 8.5 * 86_400 });
  });

  it('rebuilds an index a crash left invalid, and finds expired leases through the day’s index', async () => {
    const today = dueIndexName(dueIndexBound(clock));
    // What an interrupted CREATE INDEX CONCURRENTLY leaves behind.
    await sql`update pg_index set indisvalid = false where indexrelid = ${today}::regclass`.execute(
      t.database.sql,
    );
    expect((await indexes())[today]).toBe(false);
    const done = await job().maintain({ wait: true });
    expect(done?.built).toBe(today);
    expect((await indexes())[today]).toBe(true);

    // An attempt in flight whose lease ran out (its worker died) is found by the lease sweep.
    await seedActions(t.url, {
      accountId,
      count: 1,
      status: 'scheduled',
      url: 'https://example.com/hook',
      host: 'example.com',
      name: 'leased',
      scheduledFor: new Date(clock.getTime() - 60_000),
    });
    await sql`update actions set status = 'executing', lease_until = ${new Date(clock.getTime() - 1_000)}
               where name = 'leased 1'`.execute(t.database.sql);
    expect(await expiredLeases(t.database.sql, clock)).toHaveLength(1);
  });

  it('runs in one process at a time: another one skips, or waits its turn and finds nothing to do', async () => {
    clock = at(5.6);
    const [a, b] = await Promise.all([job().maintain({ wait: false }), job().maintain({ wait: false })]);
    const ran = [a, b].filter((r) => r !== null);
    expect(ran.length).toBeGreaterThanOrEqual(1);
    expect(ran.map((r) => r?.built).filter(Boolean)).toEqual([dueIndexName(dueIndexBound(clock))]);
    expect(await job().maintain({ wait: true })).toEqual({ built: null, dropped: [] });
    const state = await dueIndexes(t.database.sql);
    expect(state.unbounded).toBe(false);
    expect(state.bounded.every((i) => i.valid)).toBe(true);
  });
});
