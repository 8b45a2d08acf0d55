import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionService } from '../../server/src/app/retention.js';
import { destinationOrigin } from '../../server/src/domain/destinations/origin.js';
import { destinationHost } from '../../server/src/domain/domains/rules.js';
import {
  pruneOrigins,
  registeredOrigins,
  restoreOriginsInUse,
} from '../../server/src/persistence/action-origins.js';
import {
  insertAction,
  insertActionsWithAudit,
  type NewAction,
} from '../../server/src/persistence/actions.js';
import {
  Database,
  migrateUp,
  openOrm,
  untilRunningTransactionsEnd,
} from '../../server/src/persistence/database.js';
import { createTestDatabase } from '../support/database.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { webhookActionRow } from '../support/seed.js';
import { eventually } from '../support/wait.js';

const NOW = new Date();
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);
const request = (url: string) => ({ request: { url, method: 'POST' as const, headers: {}, body: null } });
const row = (accountId: string, url: string | null, over: Partial<NewAction> = {}) =>
  webhookActionRow(accountId, new Date(), {
    ...(url === null ? { mode: 'approval' as const, request: null } : request(url)),
    ...over,
  });

/**
 * A pending action's row inserted without its origin's row, as a release before `action_origins` wrote it, or as a
 * create that found the origin's row there writes it; through `query`, on whatever connection the case needs.
 */
function insertWithoutOrigin(
  query: (text: string, params: unknown[]) => Promise<unknown>,
  r: NewAction,
): Promise<unknown> {
  return query(
    `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, max_attempts, retry_strategy,
       request, destination_host, destination_origin, created_via, created_at, updated_at)
     values ($1, $2, $3, $4, 'scheduled', 'UTC', now(), 3, 'exponential', $5, $6, $7, 'api', now(), now())`,
    [
      r.id,
      r.account_id,
      r.name,
      r.mode,
      r.request ? JSON.stringify(r.request) : null,
      r.request ? destinationHost(r.request.url) : null,
      r.request ? destinationOrigin(r.request.url) : null,
    ],
  );
}

// The origins each account's actions aim at are kept beside the actions: the create's insert adds an origin's row in
// its one statement, retention removes it with the origin's last action, and a create racing that removal gets its
// row back. The destinations list pages through them past the counting limit.
describe("the origins an account's actions aim at", { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;

  beforeAll(async () => {
    t = await openTestDatabase('action_origins');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('are added by both inserts, once each, for their own account only', async () => {
    const [one, other] = [await t.newAccount(), await t.newAccount()];
    await insertAction(t.database.sql, row(one, 'https://a.example/x'));
    await insertAction(t.database.sql, row(one, 'https://A.example:443/y'));
    await insertActionsWithAudit(
      t.database.sql,
      [
        row(one, 'http://a.example:8080/z'),
        row(one, 'https://b.example/1'),
        row(one, 'https://b.example/2'),
        row(one, null),
      ],
      '[]',
      NOW,
    );
    await insertAction(t.database.sql, row(other, 'https://c.example/'));
    expect(await registeredOrigins(t.database.sql, one)).toEqual([
      'http://a.example:8080',
      'https://a.example',
      'https://b.example',
    ]);
    expect(await registeredOrigins(t.database.sql, other)).toEqual(['https://c.example']);
  });

  it('are added by creates racing one another, none of them failing', async () => {
    const accountId = await t.newAccount();
    const urls = ['https://x.example/', 'https://y.example/', 'https://z.example/'];
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const mine = i % 2 ? urls : [...urls].reverse();
        return i % 3
          ? insertActionsWithAudit(
              t.database.sql,
              mine.map((u) => row(accountId, u)),
              '[]',
              NOW,
            )
          : t.database.transaction(async (db) => {
              for (const u of mine) await insertAction(db, row(accountId, u));
            });
      }),
    );
    expect(await registeredOrigins(t.database.sql, accountId)).toEqual(urls.map(destinationOrigin));
  });

  it("go with their last action's retention, and stay while an action aims at them", async () => {
    const accountId = await t.newAccount('free');
    const old = (url: string, status: NewAction['status']) =>
      insertAction(
        t.database.sql,
        webhookActionRow(accountId, daysAgo(90), { ...request(url), status, updated_at: daysAgo(90) }),
      );
    for (let i = 0; i < 3; i++) await old('https://gone.example/', 'executed');
    await old('https://kept.example/', 'executed');
    await old('https://kept.example/', 'scheduled');
    await old('https://recent.example/', 'executed');
    await insertAction(t.database.sql, row(accountId, 'https://recent.example/', { status: 'executed' }));
    const purged = await new RetentionService(t.database, () => NOW, 2).purge();
    expect(purged.complete).toBe(true);
    expect(await registeredOrigins(t.database.sql, accountId)).toEqual([
      'https://kept.example',
      'https://recent.example',
    ]);
  });

  it('are put back when a create raced their removal, once that create has committed', async () => {
    const accountId = await t.newAccount('free');
    await insertAction(
      t.database.sql,
      webhookActionRow(accountId, daysAgo(90), {
        ...request('https://raced.example/'),
        status: 'executed',
        updated_at: daysAgo(90),
      }),
    );
    // A create that found the origin's row there (so added none) and has not committed while retention runs.
    const racing = new pg.Client({ connectionString: t.url });
    await racing.connect();
    try {
      await racing.query('begin');
      await insertWithoutOrigin(
        (text, params) => racing.query(text, params),
        row(accountId, 'https://raced.example/'),
      );
      const purge = new RetentionService(t.database, () => NOW).purge();
      let done = false;
      // (A failure is the `await purge` below's to report.)
      purge.then(
        () => {
          done = true;
        },
        () => undefined,
      );
      // The expired action is gone and with it the row; the pass waits for the create before it looks again.
      await eventually(
        async () =>
          (await rawQuery(t.database.sql, 'select 1 from action_origins where account_id = $1', [accountId]))
            .length === 0,
        20_000,
        10,
      );
      await new Promise((r) => setTimeout(r, 150));
      expect(done).toBe(false);
      await racing.query('commit');
      expect((await purge).complete).toBe(true);
    } finally {
      await racing.end();
    }
    expect(await registeredOrigins(t.database.sql, accountId)).toEqual(['https://raced.example']);
  });

  it('are removed and put back only as actions aim at them', async () => {
    const accountId = await t.newAccount();
    await insertAction(t.database.sql, row(accountId, 'https://used.example/'));
    await rawQuery(
      t.database.sql,
      `insert into action_origins (account_id, origin) values ($1, 'https://unused.example')`,
      [accountId],
    );
    expect(
      await pruneOrigins(t.database.sql, accountId, ['https://used.example', 'https://unused.example']),
    ).toEqual(['https://unused.example']);
    await rawQuery(t.database.sql, 'delete from action_origins where account_id = $1', [accountId]);
    await restoreOriginsInUse(t.database.sql, accountId, ['https://used.example', 'https://unused.example']);
    expect(await registeredOrigins(t.database.sql, accountId)).toEqual(['https://used.example']);
  });

  it('wait for the transactions running when asked, and only for as long as bounded', async () => {
    const other = new pg.Client({ connectionString: t.url });
    await other.connect();
    try {
      await other.query('begin; select 1');
      let ended = false;
      const waiting = untilRunningTransactionsEnd(t.database.sql, 4_000).then(() => {
        ended = true;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(ended).toBe(false);
      await other.query('commit');
      await waiting;
      // A transaction that outlives the bound does not hold the caller past it.
      await other.query('begin; select 1');
      const started = performance.now();
      await untilRunningTransactionsEnd(t.database.sql, 200);
      expect(performance.now() - started).toBeLessThan(2_000);
      await other.query('commit');
    } finally {
      await other.end();
    }
  });
});

describe('migration: the origins of the actions already there', { timeout: 60_000 }, () => {
  it("registers each account's origins once, and none for an action without a request", async () => {
    const test = await createTestDatabase('action_origins_up', { empty: true });
    const database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 2 }));
    try {
      await database.orm.migrator.up({ to: 'Migration20261129190000_AttemptsOfDeletedActions' });
      const [one, two] = [randomUUID(), randomUUID()];
      for (const id of [one, two])
        await rawQuery(
          database.sql,
          `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'old', 'business', now(), now())`,
          [id],
        );
      const rows = [
        row(one, 'https://a.example/1'),
        row(one, 'https://a.example/2'),
        row(one, 'http://a.example:8080/'),
        row(one, null),
        row(two, 'https://a.example/3'),
      ];
      for (const r of rows)
        await insertWithoutOrigin((text, params) => rawQuery(database.sql, text, params), r);
      expect(await migrateUp(database.orm)).toContain('Migration20261130050000_ActionOrigins');
      expect(await registeredOrigins(database.sql, one)).toEqual([
        'http://a.example:8080',
        'https://a.example',
      ]);
      expect(await registeredOrigins(database.sql, two)).toEqual(['https://a.example']);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});
