import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionQueries } from '../../server/src/app/actions/queries.js';
import { AuditService } from '../../server/src/app/audit.js';
import type { Store } from '../../server/src/app/ports.js';
import { primaryReads, type ReadFallback, Reads } from '../../server/src/app/reads.js';
import { Database, openOrm } from '../../server/src/persistence/database.js';
import { manualClock } from '../support/manual-clock.js';
import { openTestDatabase } from '../support/in-process.js';

// The one place that chooses where a read runs (app/reads.ts), as the use cases that read reach it. The "replica"
// is a second pool on the test's own database: a server not in recovery lags by 0, so the routing trusts it, and
// what ran on which pool is counted on the pools themselves, not on the routing's own report.

/** A store that counts the reads run on it. */
function counted(db: Database): { store: Store; count: () => number } {
  let reads = 0;
  const store: Store = {
    get sql() {
      reads += 1;
      return db.sql;
    },
    transaction: (fn) => db.transaction(fn),
    snapshot: (fn) => {
      reads += 1;
      return db.snapshot(fn);
    },
  };
  return { store, count: () => reads };
}

describe('Reads: one wrapper where lists, stats, views and the audit log read', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let replicaDb: Database;
  let primary: ReturnType<typeof counted>;
  let replica: ReturnType<typeof counted>;
  let reads: Reads;
  const time = manualClock(new Date('2030-01-02T03:04:05Z'));
  const served: string[] = [];
  const fellBack: ReadFallback[] = [];
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('reads');
    replicaDb = new Database(await openOrm({ databaseUrl: t.url, poolSize: 2 }));
    primary = counted(t.database);
    replica = counted(replicaDb);
    reads = new Reads({
      primary: primary.store,
      replica: replica.store,
      bookkeeping: t.database,
      policy: { maxLagSeconds: 5, readYourWritesSeconds: 3 },
      clock: time.clock,
      timers: time.timers,
      events: {
        lag: () => undefined,
        served: (on) => served.push(on),
        fellBack: (why) => fellBack.push(why),
      },
      log: { warn: () => undefined, info: () => undefined },
    });
    await reads.start();
    accountId = await t.newAccount();
  });
  afterAll(async () => {
    reads?.close();
    await replicaDb?.close();
    await t?.close();
  });

  /** Where one read went: the pools' own counts before and after it. */
  async function where(read: () => Promise<unknown>): Promise<'replica' | 'primary' | 'both' | 'none'> {
    const before = { p: primary.count(), r: replica.count() };
    await read();
    const p = primary.count() > before.p;
    const r = replica.count() > before.r;
    return p && r ? 'both' : p ? 'primary' : r ? 'replica' : 'none';
  }

  it('serves the actions list, stats and the audit log on the replica, and strong reads on the primary', async () => {
    const queries = new ActionQueries({ store: t.database, clock: time.clock, reads });
    const audit = new AuditService(t.database, time.clock, reads);
    expect(await where(() => queries.list(accountId, { page: 1, per_page: 10 }))).toBe('replica');
    expect(await where(() => queries.stats(accountId))).toBe('replica');
    expect(await where(() => audit.list(accountId, { limit: 10 }))).toBe('replica');
    expect(await where(() => queries.list(accountId, { page: 1, per_page: 10, consistency: 'strong' }))).toBe(
      'primary',
    );
    expect(await where(() => audit.list(accountId, { limit: 10, consistency: 'strong' }))).toBe('primary');
    expect(served).toEqual(['replica', 'replica', 'replica', 'primary', 'primary']);
    expect(fellBack).toEqual([]);
  });

  it('keeps an account on the primary for a while after its own write, then lets the replica serve it', async () => {
    const queries = new ActionQueries({ store: t.database, clock: time.clock, reads });
    await reads.wrote(accountId);
    expect(await where(() => queries.stats(accountId))).toBe('primary');
    await time.advance(10_000);
    expect(await where(() => queries.stats(accountId))).toBe('replica');
  });

  it('a read without a reader (a wait woken by the primary) runs on the primary and is not counted', async () => {
    const before = served.length;
    expect(
      await where(() =>
        reads.run(undefined, async (db) => db.selectNoFrom((e) => e.lit(1).as('one')).execute()),
      ),
    ).toBe('primary');
    expect(served.length).toBe(before);
  });

  it('primaryReads: every read on the one store, whatever the reader asks', async () => {
    const only = primaryReads(primary.store);
    const queries = new ActionQueries({ store: t.database, clock: time.clock, reads: only });
    expect(await where(() => queries.list(accountId, { page: 1, per_page: 10 }))).toBe('primary');
    expect(only.status()).toBeUndefined();
  });
});
