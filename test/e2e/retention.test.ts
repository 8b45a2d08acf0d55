import { randomUUID } from 'node:crypto';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditService, recordAudit } from '../../server/src/app/audit.js';
import { primaryReads } from '../../server/src/app/reads.js';
import { RetentionService } from '../../server/src/app/retention.js';
import { workRetention } from '../../server/src/jobs/retention.js';
import { type JobQueue, QUEUES, startJobQueue } from '../../server/src/jobs/queue.js';
import { createLogger } from '../../server/src/logger.js';
import { createMetrics } from '../../server/src/metrics.js';
import { insertAction, type NewAction } from '../../server/src/persistence/actions.js';
import { timeOrderedId } from '../../server/src/persistence/ids.js';
import { openTestDatabase } from '../support/in-process.js';
import { webhookActionRow } from '../support/seed.js';
import { runCli } from '../support/server.js';
import { eventually } from '../support/wait.js';

const NOW = new Date();
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);

describe('history retention', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let queue: JobQueue | undefined;
  const ids: Record<string, string> = {};
  let freeAccount = '';

  async function action(
    label: string,
    accountId: string,
    status: NewAction['status'],
    updatedAt: Date,
  ): Promise<string> {
    // Time-ordered, of its creation, as every action's id is.
    const row = webhookActionRow(accountId, daysAgo(400), { name: label, status, updated_at: updatedAt });
    ids[label] = row.id;
    await insertAction(t.database.sql, row);
    return row.id;
  }
  const outbox = (accountId: string, actionId: string | null, createdAt: Date) =>
    t.database.sql
      .insertInto('outbox_messages')
      .values({
        id: randomUUID(),
        account_id: accountId,
        action_id: actionId,
        channel: 'email',
        destination: 'a@example.com',
        rendered: 'hello',
        created_at: createdAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
  const remaining = async () =>
    (await t.database.sql.selectFrom('actions').select('name').orderBy('name').execute()).map((r) => r.name);
  const count = async (
    table: 'delivery_attempts' | 'reminder_events' | 'outbox_messages' | 'callback_deliveries',
  ) =>
    Number(
      (
        await t.database.sql
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  beforeAll(async () => {
    t = await openTestDatabase('retention');
    const free = await t.newAccount('free');
    freeAccount = free;
    const business = await t.newAccount('business');
    // The audit log: 12 events past the free plan's 30 days, then 3 recent ones; the business account's 2 old
    // events are within its 365 days.
    for (let i = 0; i < 15; i++)
      await recordAudit(t.database.sql, free, {
        action: 'contact.update',
        resource: { type: 'contact', id: `c${i}` },
        details: { n: i },
        at: daysAgo(i < 12 ? 45 - i : 3 - i / 10),
      });
    for (const d of [100, 40])
      await recordAudit(t.database.sql, business, {
        action: 'contact.create',
        resource: { type: 'contact', id: `b${d}` },
        at: daysAgo(d),
      });
    const executed = await action('free-executed-31d', free, 'executed', daysAgo(31));
    for (const n of [1, 2]) {
      await t.database.sql
        .insertInto('delivery_attempts')
        .values({
          id: timeOrderedId(),
          action_id: executed,
          attempt_number: n,
          due_at: daysAgo(31),
          started_at: daysAgo(31),
          lateness_ms: 1,
          duration_ms: 1,
          status_code: 200,
          outcome: 'success',
          error: null,
          response_excerpt: 'ok',
        })
        .execute();
    }
    await t.database.sql
      .insertInto('reminder_events')
      .values({ id: randomUUID(), action_id: executed, event_type: 'sent', created_at: daysAgo(31) })
      .execute();
    await outbox(free, executed, daysAgo(31));
    await action('free-cancelled-40d', free, 'cancelled', daysAgo(40));
    await action('free-failed-31d', free, 'failed', daysAgo(31));
    await action('free-expired-31d', free, 'expired', daysAgo(31));
    // Live actions stay however old they are; recent history stays.
    await action('free-scheduled-300d', free, 'scheduled', daysAgo(300));
    await action('free-awaiting-60d', free, 'awaiting_response', daysAgo(60));
    await action('free-executed-29d', free, 'executed', daysAgo(29));
    await outbox(free, null, daysAgo(31));
    await outbox(free, null, daysAgo(1));
    // Business keeps 365 days.
    await action('business-executed-31d', business, 'executed', daysAgo(31));
    await action('business-executed-400d', business, 'executed', daysAgo(400));
    // History retention: a live series' attempts past the retention go (the recent one stays); chains that ended past the
    // retention go with their callback deliveries; a running or recent chain stays.
    const live = (
      await t.database.sql
        .selectFrom('actions')
        .select('id')
        .where('name', '=', 'free-scheduled-300d')
        .executeTakeFirstOrThrow()
    ).id;
    for (const [n, at] of [
      [1, daysAgo(31)],
      [2, daysAgo(1)],
    ] as const) {
      await t.database.sql
        .insertInto('delivery_attempts')
        .values({
          id: timeOrderedId(),
          action_id: live,
          attempt_number: n,
          due_at: at,
          started_at: at,
          lateness_ms: 1,
          duration_ms: 1,
          status_code: 200,
          outcome: 'success',
          error: null,
          response_excerpt: 'ok',
        })
        .execute();
    }
    const chain = async (name: string, status: string, completedAt: Date | null, at: Date) => {
      const id = randomUUID();
      await t.database.sql
        .insertInto('chains')
        .values({
          id,
          account_id: free,
          name,
          status: status as never,
          current_step: 0,
          input: JSON.stringify({}) as never,
          error_handling: 'fail_chain',
          callback_url: 'https://example.com/cb',
          webhook_secret: null,
          created_at: at,
          updated_at: at,
          completed_at: completedAt,
        })
        .execute();
      await t.database.sql
        .insertInto('callback_deliveries')
        .values({
          id: randomUUID(),
          account_id: free,
          action_id: null,
          chain_id: id,
          event: 'chain.completed',
          url: 'https://example.com/cb',
          envelope: JSON.stringify({}) as never,
          status: 'delivered',
          attempt_count: 1,
          created_at: at,
        })
        .execute();
    };
    await chain('chain-completed-31d', 'completed', daysAgo(31), daysAgo(32));
    await chain('chain-completed-1d', 'completed', daysAgo(1), daysAgo(2));
    await chain('chain-running-100d', 'running', null, daysAgo(100));
  });
  afterAll(async () => {
    await queue?.stop({ graceful: false, timeoutMs: 1000 });
    await t?.close();
  });

  it('sched purge --dry-run counts what would go, per plan, and deletes nothing', async () => {
    const res = await runCli(['purge', '--dry-run', '--json'], { DATABASE_URL: t.url, LOG_LEVEL: 'silent' });
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout).data).toEqual({
      free: {
        actions: 4,
        delivery_attempts: 3,
        reminder_events: 1,
        outbox_messages: 2,
        chains: 1,
        audit_events: 12,
      },
      pro: {
        actions: 0,
        delivery_attempts: 0,
        reminder_events: 0,
        outbox_messages: 0,
        chains: 0,
        audit_events: 0,
      },
      business: {
        actions: 1,
        delivery_attempts: 0,
        reminder_events: 0,
        outbox_messages: 0,
        chains: 0,
        audit_events: 0,
      },
    });
    expect(await remaining()).toHaveLength(9);
  });

  it('a run past its time budget stops between batches and says it is incomplete', async () => {
    const spent = await new RetentionService(t.database, () => NOW).purge({ budgetMs: -1 });
    expect(spent).toMatchObject({ complete: false, actions: 0 });
    expect(await remaining()).toHaveLength(9);
  });

  it('the daily job deletes old terminal history in small batches, never live actions, and counts it', async () => {
    queue = await startJobQueue({ databaseUrl: t.url, role: 'worker', logger: createLogger('silent') });
    const metrics = createMetrics();
    // Batches of 2 actions: the five expired ones take several transactions.
    const retention = new RetentionService(t.database, () => NOW, 2);
    await workRetention(queue, retention, metrics, createLogger('silent'));
    await queue.send(QUEUES.retention, {}, {});
    // The pass ends with its VACUUM: wait for that before reading the tables. A read of `actions` while the VACUUM
    // reaches its one page would pin it, and VACUUM leaves the dead rows of a page it cannot lock for the next one.
    const vacuumed = await eventually(async () => {
      const { rows } = await sql<{ relname: string; vacuumed: boolean }>`
        select relname, last_vacuum is not null as vacuumed from pg_stat_user_tables
         where relname in ('actions', 'reminder_events', 'outbox_messages', 'chains') order by relname`.execute(
        t.database.sql,
      );
      return rows.length === 4 && rows.every((r) => r.vacuumed) ? rows.map((r) => r.relname) : null;
    }, 20_000);
    expect(await remaining()).toEqual([
      'business-executed-31d',
      'free-awaiting-60d',
      'free-executed-29d',
      'free-scheduled-300d',
    ]);
    expect(await count('delivery_attempts')).toBe(1);
    expect(await count('reminder_events')).toBe(0);
    const chains = await t.database.sql.selectFrom('chains').select('name').orderBy('name').execute();
    expect(chains.map((c) => c.name)).toEqual(['chain-completed-1d', 'chain-running-100d']);
    expect(await count('callback_deliveries')).toBe(2);
    expect(await count('outbox_messages')).toBe(1);
    const purged = await eventually(async () => {
      const values = (await metrics.purgedRows.get()).values;
      const of = (table: string) => values.find((v) => v.labels.table === table)?.value ?? 0;
      return of('outbox_messages') === 2 && of('audit_events') === 12 ? values : null;
    });
    expect(Object.fromEntries(purged.map((v) => [v.labels.table, v.value]))).toEqual({
      actions: 5,
      delivery_attempts: 3,
      reminder_events: 1,
      outbox_messages: 2,
      chains: 1,
      audit_events: 12,
    });
    // The finished pass vacuumed what it deleted from: no dead row of it is left for an autovacuum to find.
    // Counted in the pages themselves: the statistics' `n_dead_tup` can take a delete's counts after the VACUUM that
    // reset it (a backend sends its counts at a commit at most once a second), and read a count of rows long gone.
    await sql`create extension if not exists pgstattuple`.execute(t.database.sql);
    const { rows: tables } = await sql<{ relname: string; dead: number }>`
      select t as relname, (pgstattuple(t::regclass)).dead_tuple_count::int as dead
        from unnest(${vacuumed}::text[]) t order by t`.execute(t.database.sql);
    expect(tables.map((r) => [r.relname, r.dead])).toEqual([
      ['actions', 0],
      ['chains', 0],
      ['outbox_messages', 0],
      ['reminder_events', 0],
    ]);
  });

  it('drops audit events only as a whole prefix, keeping the last dropped hash as the anchor: verify still says ok', async () => {
    const audit = new AuditService(t.database, () => NOW, primaryReads(t.database));
    const kept = await t.database.sql
      .selectFrom('audit_events')
      .select(['seq', 'prev_hash'])
      .where('account_id', '=', freeAccount)
      .orderBy('seq')
      .execute();
    expect(kept.map((e) => e.seq)).toEqual([13, 14, 15]);
    const head = await t.database.sql
      .selectFrom('audit_heads')
      .selectAll()
      .where('account_id', '=', freeAccount)
      .executeTakeFirstOrThrow();
    expect(head).toMatchObject({ anchor_seq: 12, anchor_hash: kept[0]!.prev_hash, seq: 15 });
    expect(await audit.verify(freeAccount)).toMatchObject({ ok: true, checked: 3 });
    // New events chain on from the head; verify checks them with the kept ones.
    await recordAudit(t.database.sql, freeAccount, {
      action: 'contact.delete',
      resource: { type: 'contact', id: 'x' },
    });
    expect(await audit.verify(freeAccount)).toMatchObject({ ok: true, checked: 4 });

    // Retention's setting alone deletes nothing past the anchor: the trigger refuses a row that is not a dropped prefix.
    await expect(
      t.database.transaction(async (db) => {
        await db.executeQuery(
          CompiledQuery.raw("select set_config('sched.audit_retention', 'prefix', true)", []),
        );
        await db
          .deleteFrom('audit_events')
          .where('account_id', '=', freeAccount)
          .where('seq', '=', 14)
          .execute();
      }),
    ).rejects.toThrow(/append-only/);
    expect(await audit.verify(freeAccount)).toMatchObject({ ok: true, checked: 4 });
  });
});
