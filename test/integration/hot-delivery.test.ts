import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sql } from '../../server/src/persistence/database.js';
import { completeOneShots } from '../../server/src/persistence/deliveries.js';
import { claimDue } from '../../server/src/persistence/delivery-claims.js';
import { claimDueShare, expiredLeases } from '../../server/src/persistence/delivery-scan.js';
import { promoteEntering } from '../../server/src/persistence/schedule.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions, sqlValue, untilEarlierTransactionsEnd } from '../support/seed.js';

// A delivery writes the action's index entries once: the promote (`scheduled -> resolved`) and the claim (`executing`
// under a lease) change no column any index of `actions` reads, so PostgreSQL makes them HOT updates (a new version on
// the same page, no index entry, a compressed WAL record); only the outcome rewrites the entries. Counted in the
// transaction that makes each change, from pg_stat_xact_user_tables.
describe('a delivery updates its action with at most one non-HOT update', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('hot-delivery');
    accountId = await t.newAccount();
    // No autovacuum of `actions` in this database: its ANALYZE holds a snapshot, and its VACUUM a page's cleanup lock,
    // either of which keeps a page from pruning one update's old versions before the next update needs their room.
    await sqlValue(t.url, 'alter table actions set (autovacuum_enabled = off)');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** What `fn` did to `actions` in a transaction of its own: updates, how many of them HOT, and its answer. */
  async function counted<T>(fn: (db: Sql) => Promise<T>) {
    // Read before and after, in the transaction: the backend's counts not yet flushed may hold earlier transactions'.
    return t.database.transaction(async (db) => {
      const before = await sqlStats(db);
      const result = await fn(db);
      const after = await sqlStats(db);
      return { updated: after.updated - before.updated, hot: after.hot - before.hot, result };
    });
  }
  async function sqlStats(db: Sql) {
    const row = (await db
      .selectFrom('pg_stat_xact_user_tables' as never)
      .select(['n_tup_upd as updated', 'n_tup_hot_upd as hot'] as never)
      .where('relname' as never, '=', 'actions' as never)
      .executeTakeFirstOrThrow()) as { updated: string; hot: string };
    return { updated: Number(row.updated), hot: Number(row.hot) };
  }
  const share = { slots: 1, slot: 0, overdueBefore: new Date(0) };

  it('indexes no column the promote or the claim writes', async () => {
    const defs = await sqlValue<string[]>(
      t.url,
      `select array_agg(pg_get_indexdef(indexrelid)) from pg_index where indrelid = 'actions'::regclass`,
    );
    expect(defs.length).toBeGreaterThan(5);
    for (const def of defs) expect(def).not.toMatch(/\b(status|updated_at|lease_until|attempt_count)\b/);
  });

  // The promote and the claim of one row come a minute apart, and the page prunes the promote's old version meanwhile;
  // here they are counted on different rows, so neither depends on when another session's snapshot lets that happen.
  it('claims in place, and records each outcome with one update that moves its entries', async () => {
    const n = 40;
    await seedActions(t.url, {
      accountId,
      count: n,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: new Date(Date.now() - 1_000),
    });
    const now = new Date();

    const claim = await counted((db) =>
      claimDueShare(db, {
        until: now,
        now,
        leaseUntil: new Date(now.getTime() + 30_000),
        limit: n,
        scan: 2 * n,
        share,
        rooms: new Map(),
        perAccount: 2 * n,
      }),
    );
    expect(claim.result.claimed).toHaveLength(n);
    expect(claim).toMatchObject({ updated: n, hot: n });

    // In flight, the rows are still in the due index, and no claim takes them again.
    const again = await claimDueShare(t.database.sql, {
      until: now,
      now,
      leaseUntil: new Date(now.getTime() + 30_000),
      limit: n,
      scan: 2 * n,
      share,
      rooms: new Map(),
      perAccount: 2 * n,
    });
    expect(again.claimed).toHaveLength(0);
    expect(await expiredLeases(t.database.sql, now)).toEqual([]);
    // Once their leases have run out, the sweep finds every one of them through that index.
    expect(await expiredLeases(t.database.sql, new Date(now.getTime() + 31_000), 1_000)).toHaveLength(n);

    const record = await counted((db) =>
      completeOneShots(db, successes(claim.result.claimed, now), { to: 'executed', now }),
    );
    expect(record.result.size).toBe(n);
    expect(record.updated).toBe(n);
    expect(record.updated - record.hot).toBeLessThanOrEqual(n);
    const executed = await sqlValue<number>(
      t.url,
      `select count(*)::int from actions where account_id = $1 and status = 'executed' and phase = 'executed'`,
      [accountId],
    );
    expect(executed).toBe(n);
  });

  it('promotes in place', async () => {
    const n = 40;
    const other = await t.newAccount();
    await seedActions(t.url, {
      accountId: other,
      count: n,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: new Date(Date.now() + 30_000),
    });
    const now = new Date();
    const promote = await counted((db) =>
      promoteEntering(db, {
        until: new Date(now.getTime() + 60_000),
        now,
        limit: 1_000,
        share,
      }),
    );
    expect(promote.result.promoted).toBe(n);
    expect(promote).toMatchObject({ updated: n, hot: n });
  });

  // PostgreSQL logs an update that stays on its page as the bytes from the first changed byte of the row to the last,
  // so a column the promote, the claim or the record does not change costs nothing only when it lies outside them:
  // the request lies behind every column they write (migration ColdColumnsLast). A kilobyte of request here would be
  // in each of their WAL records otherwise.
  it('logs the promote, the claim and the record without the request', async () => {
    const n = 20;
    const other = await t.newAccount();
    await seedActions(t.url, {
      accountId: other,
      count: n,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: new Date(Date.now() + 1_000),
    });
    // A body that does not compress, so it stays a kilobyte in the row.
    await sqlValue(
      t.url,
      `update actions set request = jsonb_set(request, '{body,pad}',
         to_jsonb((select string_agg(md5(id::text || g), '') from generate_series(1, 32) g)))
        where account_id = $1`,
      [other],
    );
    // Packed again to the table's fillfactor, as inserted rows are, so that each page has room for their new versions.
    await sqlValue(t.url, 'vacuum full actions');
    await sqlValue(t.url, 'create extension if not exists pg_walinspect');
    const wide = await sqlValue<number>(
      t.url,
      'select min(pg_column_size(request)) from actions where account_id = $1',
      [other],
    );
    expect(wide).toBeGreaterThan(1_000);

    const now = new Date(Date.now() + 2_000);
    const promote = await walOf(() =>
      promoteEntering(t.database.sql, { until: new Date(now.getTime() + 60_000), now, limit: 1_000, share }),
    );
    // Between a promote and its claim in production, the page prunes the promote's old versions; that needs every
    // transaction older than the promote ended (another test file's too: a snapshot counts the server's running ones).
    await untilEarlierTransactionsEnd(t.url);
    const claim = await walOf(() =>
      claimDueShare(t.database.sql, {
        until: now,
        now,
        leaseUntil: new Date(now.getTime() + 30_000),
        limit: n,
        scan: 2 * n,
        share,
        rooms: new Map(),
        perAccount: 2 * n,
      }),
    );
    expect(claim.result.claimed).toHaveLength(n);
    const record = await walOf(() =>
      completeOneShots(t.database.sql, successes(claim.result.claimed, now), { to: 'executed', now }),
    );
    expect(record.result.size).toBe(n);

    expect(promote.updates.map((u) => u.type)).toEqual(Array(n).fill('HOT_UPDATE'));
    expect(claim.updates.map((u) => u.type)).toEqual(Array(n).fill('HOT_UPDATE'));
    expect(record.updates).toHaveLength(n);
    // Each one the changed columns and the record's own headers, nowhere near the request's kilobyte.
    for (const u of [...promote.updates, ...claim.updates]) expect(u.bytes).toBeLessThan(250);
    // The record's new version goes to another page when its own is full, and is then logged whole; on its page, it
    // is as narrow as the claim.
    const inPlace = record.updates.filter((u) => u.pages === 1);
    for (const u of inPlace) expect(u.bytes).toBeLessThan(300);
    expect(inPlace.length).toBeGreaterThan(0);
  });

  /** The heap update records `fn` wrote to `actions` (pg_walinspect), less any full-page image. */
  async function walOf<T>(fn: () => Promise<T>) {
    const lsn = () => sqlValue<string>(t.url, 'select pg_current_wal_insert_lsn()::text');
    const start = await lsn();
    const result = await fn();
    const end = await lsn();
    // Read only what has been flushed (the tests' sessions may commit asynchronously).
    await expect
      .poll(() => sqlValue<boolean>(t.url, 'select pg_current_wal_flush_lsn() >= $1::pg_lsn', [end]))
      .toBe(true);
    const updates = await sqlValue<{ type: string; bytes: number; pages: number }[] | null>(
      t.url,
      `select json_agg(json_build_object('type', split_part(r.record_type, ' ', 1),
                'bytes', r.record_length - r.fpi_length, 'pages', r.pages) order by r.start_lsn)
         from (select w.start_lsn, w.record_type, w.record_length, w.fpi_length,
                      (select count(distinct b.relblocknumber) from pg_get_wal_block_info(w.start_lsn, w.end_lsn) b
                        where b.block_id < 2) as pages
                 from pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) w
                where w.resource_manager = 'Heap' and w.record_type ~ '^(HOT_)?UPDATE'
                  and exists (select 1 from pg_get_wal_block_info(w.start_lsn, w.end_lsn) b
                               where b.relfilenode = pg_relation_filenode('actions')
                                 and b.reldatabase = (select oid from pg_database where datname = current_database()))) r`,
      [start, end],
    );
    return { result, updates: updates ?? [] };
  }

  it('claims by id in place too', async () => {
    const n = 10;
    const other = await t.newAccount();
    await seedActions(t.url, {
      accountId: other,
      count: n,
      status: 'scheduled',
      url: 'http://127.0.0.1:9/h',
      host: '127.0.0.1',
      scheduledFor: new Date(Date.now() - 1_000),
    });
    const ids = await sqlValue<string[]>(t.url, `select array_agg(id) from actions where account_id = $1`, [
      other,
    ]);
    const now = new Date();
    const claim = await counted((db) =>
      claimDue(db, {
        actionIds: ids,
        leaseUntil: new Date(now.getTime() + 30_000),
        dueBy: now,
        now,
      }),
    );
    expect([...claim.result.values()].filter((f) => f.claimed)).toHaveLength(n);
    expect(claim).toMatchObject({ updated: n, hot: n });
  });
});

/** A 200 answer for each claimed attempt, as the record stage writes it. */
function successes(
  claimed: readonly { id: string; attempt_count: number; next_attempt_at: Date | null }[],
  now: Date,
) {
  return claimed.map((row) => ({
    actionId: row.id,
    attemptNumber: row.attempt_count,
    dueAt: row.next_attempt_at!,
    startedAt: now,
    durationMs: 3,
    statusCode: 200,
    outcome: 'success' as const,
    errorClass: null,
    error: null,
    excerpt: null,
    truncated: false,
  }));
}
