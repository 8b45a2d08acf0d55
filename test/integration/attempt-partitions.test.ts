import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AttemptPartitions } from '../../server/src/app/partitions.js';
import { RetentionService } from '../../server/src/app/retention.js';
import { monthStart } from '../../server/src/domain/history/partitions.js';
import { usePlanLimits } from '../../server/src/domain/quota/plans.js';
import { attemptPage, insertAction, type NewAction } from '../../server/src/persistence/actions.js';
import { timeOrderedId } from '../../server/src/persistence/ids.js';
import { attemptMonths, attemptPartitionName } from '../../server/src/persistence/partitions.js';
import { manualClock } from '../support/manual-clock.js';
import { logSuccessfulAttempt, openTestDatabase, rawQuery } from '../support/in-process.js';
import { webhookActionRow } from '../support/seed.js';

/**
 * sched's own partition job across month boundaries, on the manual clock. An attempt's id is made from the process's
 * time when it is recorded, so the test sets that time (`vi.setSystemTime`, Date only) with the clock: the two are
 * one instant, as in a server.
 */
describe('attempt partitions by month', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  // Well ahead of the real date, so nothing here touches the months the migration made for today.
  const clock = manualClock(new Date('2027-05-15T12:00:00.000Z'));
  const at = (iso: string) => {
    const d = new Date(iso);
    vi.setSystemTime(d);
    return d;
  };
  let business = '';
  let free = '';

  const partitions = async () => (await attemptMonths(t.database.sql)).map(attemptPartitionName);
  const partitionOf = async (actionId: string) =>
    (
      await rawQuery<{ p: string }>(
        t.database.sql,
        `select tableoid::regclass::text as p from delivery_attempts where action_id = $1 order by id`,
        [actionId],
      )
    ).map((r) => r.p);

  async function action(
    accountId: string,
    status: NewAction['status'],
    createdAt: Date,
    updatedAt: Date,
  ): Promise<string> {
    const row = webhookActionRow(accountId, createdAt, {
      name: `${status} ${createdAt.toISOString()}`,
      status,
      updated_at: updatedAt,
    });
    await insertAction(t.database.sql, row);
    return row.id;
  }
  /** Records an attempt of `actionId` at `iso` through the engine's insert, the process's time set to it. */
  const attempt = (actionId: string, iso: string, n = 1) =>
    logSuccessfulAttempt(t.database.sql, actionId, at(iso), n);
  const stats = async (partition: string) =>
    (
      await rawQuery<{ ins: number; del: number; dead: number }>(
        t.database.sql,
        `select n_tup_ins::int as ins, n_tup_del::int as del, n_dead_tup::int as dead
           from pg_stat_user_tables where relname = $1`,
        [partition],
      )
    )[0];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    at('2027-05-15T12:00:00.000Z');
    t = await openTestDatabase('attempt_partitions');
    business = await t.newAccount('business');
    free = await t.newAccount('free');
  });
  afterAll(async () => {
    vi.useRealTimers();
    await t?.close();
  });

  it('keeps this month and the next two, idempotently, even when two processes run it at once', async () => {
    const job = new AttemptPartitions(t.database, clock.clock);
    const [a, b] = await Promise.all([
      job.maintain(),
      new AttemptPartitions(t.database, clock.clock).maintain(),
    ]);
    expect([...a.created, ...b.created].sort()).toEqual([
      'delivery_attempts_y2027m05',
      'delivery_attempts_y2027m06',
      'delivery_attempts_y2027m07',
    ]);
    expect(await job.maintain()).toEqual({ created: [], dropped: [] });
    expect(await partitions()).toEqual(
      expect.arrayContaining([
        'delivery_attempts_y2027m05',
        'delivery_attempts_y2027m06',
        'delivery_attempts_y2027m07',
      ]),
    );
  });

  it('has the next month before its first attempt, and files an attempt on either side of midnight in its month', async () => {
    const series = await action(
      business,
      'scheduled',
      new Date('2027-05-20T00:00:00Z'),
      new Date('2027-05-20T00:00:00Z'),
    );
    await attempt(series, '2027-05-31T23:59:59.900Z', 1);
    // The daily run on the last day of June: July exists already (it was made in May), August is made now.
    await clock.advance(new Date('2027-06-30T23:59:59.000Z').getTime() - clock.clock().getTime());
    at('2027-06-30T23:59:59.000Z');
    expect(await partitions()).toContain('delivery_attempts_y2027m07');
    expect((await new AttemptPartitions(t.database, clock.clock).maintain()).created).toEqual([
      'delivery_attempts_y2027m08',
    ]);
    await attempt(series, '2027-06-30T23:59:59.999Z', 2);
    await attempt(series, '2027-07-01T00:00:00.000Z', 3);
    await attempt(series, '2027-07-01T00:00:00.001Z', 4);
    expect(await partitionOf(series)).toEqual([
      'delivery_attempts_y2027m05',
      'delivery_attempts_y2027m06',
      'delivery_attempts_y2027m07',
      'delivery_attempts_y2027m07',
    ]);
    // An action's attempts page newest first across the months' partitions.
    const first = await attemptPage(t.database.sql, series, { limit: 3 });
    expect(first.map((r) => r.attempt_number)).toEqual([4, 3, 2]);
    const last = first.at(-1)!;
    const next = await attemptPage(t.database.sql, series, {
      limit: 3,
      before: { at: last.started_at, id: last.id },
    });
    expect(next.map((r) => r.attempt_number)).toEqual([1]);
  });

  it('waits out a delivery in flight instead of deadlocking it: the change takes its locks only when free', async () => {
    const series = await action(
      business,
      'scheduled',
      new Date('2027-07-01T00:00:00Z'),
      new Date('2027-07-01T00:00:00Z'),
    );
    // A delivery's transaction holds the attempt log (it wrote an attempt) and has not committed yet.
    const delivery = new pg.Client({ connectionString: t.url });
    await delivery.connect();
    try {
      await delivery.query('begin');
      await delivery.query(
        `insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
           outcome, response_truncated) values ($1, $2, 9, $3, $3, 0, 1, 'success', false)`,
        [timeOrderedId(), series, new Date()],
      );
      // The month after August is due now: the job must create it, which needs both tables.
      await clock.advance(new Date('2027-07-02T00:00:00.000Z').getTime() - clock.clock().getTime());
      at('2027-07-02T00:00:00.000Z');
      const change = new AttemptPartitions(t.database, clock.clock).maintain();
      let settled = false;
      void change.finally(() => {
        settled = true;
      });
      // The delivery goes on (it updates its action: a cycle with the change, which gives up first, never the
      // delivery), and the change keeps trying until the delivery commits.
      await delivery.query(`update actions set attempt_count = 9 where id = $1`, [series]);
      expect(settled).toBe(false);
      await delivery.query('commit');
      expect((await change).created).toEqual(['delivery_attempts_y2027m09']);
    } finally {
      await delivery.end();
    }
    expect(
      (await rawQuery(t.database.sql, `select 1 from delivery_attempts where attempt_number = 9`)).length,
    ).toBe(1);
  });

  it('drops a month past every plan retention whole, keeps a month a 365-day account still has, deletes no row of it', async () => {
    // May: attempts of both plans (the series above, a live one, has one too). June: only the business account's.
    const oldFree = await action(
      free,
      'executed',
      new Date('2027-05-02T00:00:00Z'),
      new Date('2027-05-02T00:01:00Z'),
    );
    await attempt(oldFree, '2027-05-02T00:00:30.000Z');
    const june = await action(
      business,
      'executed',
      new Date('2027-06-20T00:00:00Z'),
      new Date('2027-06-20T00:01:00Z'),
    );
    await attempt(june, '2027-06-20T00:00:30.000Z');
    // A Business action that ended on June 1st is past 365 days below, but its month of attempts is kept: it waits
    // for that month to go whole, so deleting it deletes no attempt row. One that ended in May goes (its month did).
    const juneFirst = await action(
      business,
      'executed',
      new Date('2027-06-01T00:00:00Z'),
      new Date('2027-06-01T12:00:00Z'),
    );
    await attempt(juneFirst, '2027-06-01T11:59:00.000Z');
    const mayBusiness = await action(
      business,
      'executed',
      new Date('2027-05-03T00:00:00Z'),
      new Date('2027-05-03T00:01:00Z'),
    );
    await attempt(mayBusiness, '2027-05-03T00:00:30.000Z');
    // July: a free account's history inside a month that stays: retention deletes it row by row.
    const julyFree = await action(
      free,
      'executed',
      new Date('2027-07-02T00:00:00Z'),
      new Date('2027-07-02T00:01:00Z'),
    );
    await attempt(julyFree, '2027-07-02T00:00:30.000Z');
    await expect.poll(async () => (await stats('delivery_attempts_y2027m06'))?.ins).toBe(3);

    // A year and two days after the end of May: May is past the longest retention (365 days), June is not.
    const later = new Date('2028-06-02T00:00:00.000Z');
    await clock.advance(later.getTime() - clock.clock().getTime());
    at(later.toISOString());
    const series = (
      await rawQuery<{ id: string }>(t.database.sql, `select id from actions where status = 'scheduled'`)
    )[0]!.id;
    // A deployment whose plan table keeps ten years (SCHED_PLANS_FILE) keeps every month.
    usePlanLimits({ business: { retentionDays: 3650 } });
    try {
      expect((await new AttemptPartitions(t.database, clock.clock).maintain()).dropped).toEqual([]);
    } finally {
      usePlanLimits(null);
    }
    await new RetentionService(t.database, clock.clock).purge();

    const left = await partitions();
    expect(left).not.toContain('delivery_attempts_y2027m05');
    expect(left).toContain('delivery_attempts_y2027m06');
    expect(left).toContain('delivery_attempts_y2027m07');
    for (const k of [0, 1, 2]) expect(left).toContain(attemptPartitionName(monthStart(later, k)));
    // The live series stays, without its May attempt; the old free action went by retention; June's attempts stay.
    expect(await partitionOf(series)).toEqual([
      'delivery_attempts_y2027m06',
      'delivery_attempts_y2027m07',
      'delivery_attempts_y2027m07',
    ]);
    expect(await rawQuery(t.database.sql, `select 1 from actions where id = $1`, [oldFree])).toHaveLength(0);
    expect(await partitionOf(june)).toEqual(['delivery_attempts_y2027m06']);
    expect(await partitionOf(juneFirst)).toEqual(['delivery_attempts_y2027m06']);
    expect(await rawQuery(t.database.sql, `select 1 from actions where id = $1`, [mayBusiness])).toHaveLength(
      0,
    );
    // The free account's July row went one by one (its month stays), and the statistics show it...
    expect(await partitionOf(julyFree)).toEqual([]);
    await expect.poll(async () => (await stats('delivery_attempts_y2027m07'))?.del).toBe(1);
    // ...while June, kept whole, had no row deleted and has no dead tuple.
    expect(await stats('delivery_attempts_y2027m06')).toMatchObject({ ins: 3, del: 0, dead: 0 });
  });

  it('every table that references actions has an index leading with the reference (an action delete reads each)', async () => {
    const refs = await rawQuery<{ tbl: string; indexed: boolean }>(
      t.database.sql,
      `select c.conrelid::regclass::text as tbl,
              exists (select 1 from pg_index i where i.indrelid = c.conrelid and i.indkey[0] = c.conkey[1]) as indexed
         from pg_constraint c
        where c.contype = 'f' and c.confrelid = 'actions'::regclass and c.conparentid = 0`,
    );
    expect(refs.map((r) => r.tbl)).toEqual(expect.arrayContaining(['outbox_messages', 'recipients']));
    expect(refs.filter((r) => !r.indexed)).toEqual([]);
  });
});
