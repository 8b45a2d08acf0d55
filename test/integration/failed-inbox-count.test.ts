import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailedInboxFold } from '../../server/src/app/actions/failed-inbox.js';
import { RetentionService } from '../../server/src/app/retention.js';
import { insertAction, listActions, matchingActions } from '../../server/src/persistence/actions.js';
import { Database, openOrm, type Sql } from '../../server/src/persistence/database.js';
import { FAILED_INBOX_TRIGGERS } from '../../server/src/persistence/entities/failed-inbox.js';
import { failedInboxTotal } from '../../server/src/persistence/failed-inbox.js';
import { createTestDatabase } from '../support/database.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { seedActions, webhookActionRow } from '../support/seed.js';

/**
 * The failed inbox's total kept by PostgreSQL (entities/failed-inbox.ts): row triggers append deltas, a fold moves
 * them into a base per account, the read adds both. After every kind of row move, in any order, by any number of
 * transactions at once, it equals the count of the account's failed actions outside chains. (The service's own paths,
 * a real delivery's final failure, retry, replay and bulk operations: test/e2e/failed-inbox-count.test.ts.)
 */
describe('the failed inbox total kept by PostgreSQL', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let sql: Sql;
  const fold = () => new FailedInboxFold(t.database).fold();

  beforeAll(async () => {
    t = await openTestDatabase('failed_inbox');
    sql = t.database.sql;
  });
  afterAll(async () => {
    await t?.close();
  });

  const counted = async (db: Sql, accountId: string) =>
    Number(
      (
        await matchingActions(db, accountId, { status: 'failed' }, new Date())
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** The kept total of each account, beside its count; they must agree. */
  async function expectAgree(db: Sql, ...accounts: string[]) {
    const kept = await Promise.all(accounts.map((a) => failedInboxTotal(db, a)));
    const rows = await Promise.all(accounts.map((a) => counted(db, a)));
    expect(kept).toEqual(rows);
    return kept;
  }
  const deltas = async () =>
    Number((await rawQuery<{ n: string }>(sql, 'select count(*) as n from failed_inbox_deltas'))[0]!.n);
  const row = (accountId: string, over: Parameters<typeof webhookActionRow>[2] = {}) =>
    insertAction(sql, webhookActionRow(accountId, new Date(), over)).then((r) => r.id);
  const set = (id: string, changes: string, params: unknown[] = []) =>
    rawQuery(sql, `update actions set ${changes} where id = $1`, [id, ...params]);

  it('every row move keeps it: inserts, moves in and out, chain steps, an account change, deletes; then the fold', async () => {
    const [a, b] = [await t.newAccount(), await t.newAccount()];
    const failed = [await row(a, { status: 'failed' }), await row(a, { status: 'failed' })];
    const pending = await row(a);
    const step = await row(a, { status: 'failed', chain_id: randomUUID(), chain_step_index: 0 });
    expect(await expectAgree(sql, a, b)).toEqual([2, 0]);

    // A delivery's steps within the pending phase and its success write no delta.
    const before = await deltas();
    await set(pending, `status = 'resolved'`);
    await set(pending, `status = 'executing', lease_until = now()`);
    await set(pending, `status = 'scheduled', attempt_count = attempt_count + 1`);
    await set(pending, `updated_at = now()`);
    expect(await deltas()).toBe(before);

    await set(pending, `status = 'failed'`); // a final failure
    expect(await expectAgree(sql, a, b)).toEqual([3, 0]);
    await set(failed[0]!, `status = 'scheduled', next_attempt_at = now()`); // a retry
    await set(step, `status = 'scheduled'`); // a step's retry: it was never counted
    await set(step, `status = 'failed'`);
    expect(await expectAgree(sql, a, b)).toEqual([2, 0]);
    await set(failed[1]!, 'chain_id = $2', [randomUUID()]); // becomes a step
    await set(step, 'chain_id = null'); // stops being one
    expect(await expectAgree(sql, a, b)).toEqual([2, 0]);
    await set(step, 'account_id = $2', [b]);
    expect(await expectAgree(sql, a, b)).toEqual([1, 1]);
    await rawQuery(sql, 'delete from actions where id = $1', [pending]);
    expect(await expectAgree(sql, a, b)).toEqual([0, 1]);

    expect(await deltas()).toBeGreaterThan(0);
    expect(await fold()).toBeGreaterThanOrEqual(2);
    expect(await deltas()).toBe(0);
    expect(await expectAgree(sql, a, b)).toEqual([0, 1]);
    const bases = await rawQuery<{ account_id: string; total: string }>(
      sql,
      'select account_id, total from failed_inbox_counts where account_id in ($1, $2) order by total',
      [a, b],
    );
    expect(bases.map((r) => [r.account_id, Number(r.total)])).toEqual([
      [a, 0],
      [b, 1],
    ]);
    expect(await fold()).toBe(0);
  });

  it('the failed inbox alone reads the kept total; any other filter counts', async () => {
    const a = await t.newAccount();
    await seedActions(t.url, {
      accountId: a,
      count: 40,
      status: 'failed',
      url: 'http://127.0.0.1:9/x',
      host: '127.0.0.1',
    });
    await fold();
    const page = (f: Parameters<typeof listActions>[2]) =>
      listActions(sql, a, f, { limit: 10, offset: 0 }, new Date());
    expect((await page({ status: 'failed' })).total).toBe(40);
    // Proof of which answered: a base moved by hand shows in the inbox's total, and in no other list's.
    await rawQuery(sql, 'update failed_inbox_counts set total = total + 1000 where account_id = $1', [a]);
    try {
      expect((await page({ status: 'failed' })).total).toBe(1040);
      expect((await page({ status: 'failed', destinationHost: '127.0.0.1' })).total).toBe(40);
      expect((await page({ status: 'failed', search: 'seeded' })).total).toBe(40);
      expect((await page({})).total).toBe(40);
      expect((await page({ status: 'failed' })).rows).toHaveLength(10);
    } finally {
      await rawQuery(sql, 'update failed_inbox_counts set total = total - 1000 where account_id = $1', [a]);
    }
    expect(await expectAgree(sql, a)).toEqual([40]);
  });

  it('retention deleting failed actions and an account deleted with its actions keep it', async () => {
    const [kept, gone] = [await t.newAccount('business'), await t.newAccount('business')];
    const old = new Date(Date.now() - 400 * 86_400_000);
    for (const accountId of [kept, gone]) {
      for (let i = 0; i < 3; i++)
        await insertAction(sql, webhookActionRow(accountId, old, { status: 'failed', updated_at: old }));
      await row(accountId, { status: 'failed' });
    }
    expect(await expectAgree(sql, kept, gone)).toEqual([4, 4]);
    await fold();
    const purged = await new RetentionService(t.database, () => new Date()).purge();
    expect(purged.actions).toBeGreaterThanOrEqual(6);
    expect(await expectAgree(sql, kept, gone)).toEqual([1, 1]);

    await rawQuery(sql, 'delete from accounts where id = $1', [gone]);
    expect(await expectAgree(sql, kept, gone)).toEqual([1, 0]);
    await fold();
    expect(await expectAgree(sql, kept, gone)).toEqual([1, 0]);
  });

  it('two transactions failing actions of the same two accounts in opposite orders neither wait nor deadlock', async () => {
    const [a, b] = [await t.newAccount(), await t.newAccount()];
    const [a1, a2, b1, b2] = [await row(a), await row(a), await row(b), await row(b)];
    const connect = async () => {
      const c = new pg.Client({ connectionString: t.url, application_name: 'test-inbox-race' });
      c.on('error', () => {});
      await c.connect();
      // A wait for the other's lock would fail the statement instead of hanging the test.
      await c.query(`set lock_timeout = '2s'`);
      await c.query('begin');
      return c;
    };
    const [one, two] = [await connect(), await connect()];
    const fail = (c: pg.Client, id: string) =>
      c.query(`update actions set status = 'failed' where id = $1`, [id]);
    try {
      await fail(one, a1);
      await fail(two, b2);
      await fail(one, b1);
      await fail(two, a2);
      // And a statement each failing both accounts' rows at once, in opposite orders, as two batched records do.
      const [a3, b3, a4, b4] = [await row(a), await row(b), await row(a), await row(b)];
      const batch = (c: pg.Client, ids: string[]) =>
        c.query(
          `update actions set status = 'failed' from unnest($1::uuid[]) with ordinality as v(id, o)
            where actions.id = v.id`,
          [ids],
        );
      await Promise.all([batch(one, [a3!, b3!]), batch(two, [b4!, a4!])]);
      await Promise.all([one.query('commit'), two.query('commit')]);
    } finally {
      await Promise.all([one.end(), two.end()]);
    }
    expect(await expectAgree(sql, a, b)).toEqual([4, 4]);
  });

  it('a fold racing writers and another fold adds each delta exactly once', async () => {
    const accounts = [await t.newAccount(), await t.newAccount(), await t.newAccount()];
    const ids: string[] = [];
    for (const accountId of accounts) for (let i = 0; i < 30; i++) ids.push(await row(accountId));
    let writing = true;
    const writer = (async () => {
      for (let round = 0; writing || round < 20; round++) {
        const id = ids[(round * 7) % ids.length]!;
        await t.database.transaction(async (db) => {
          await rawQuery(
            db,
            `update actions set status = case when status = 'failed' then 'scheduled' else 'failed' end where id = $1`,
            [id],
          );
          await rawQuery(
            db,
            `update actions set status = case when status = 'failed' then 'scheduled' else 'failed' end where id = $1`,
            [ids[(round * 11 + 3) % ids.length]],
          );
        });
      }
    })();
    const folds = Array.from({ length: 2 }, async () => {
      for (let i = 0; i < 25; i++) await fold();
    });
    await Promise.all(folds);
    writing = false;
    await writer;
    await expectAgree(sql, ...accounts);
    await fold();
    await expectAgree(sql, ...accounts);
  });

  it('random moves of random rows, folded now and then, always agree (property style)', async () => {
    const accounts = [await t.newAccount(), await t.newAccount(), await t.newAccount()];
    // A small deterministic generator: a failure prints the seed, and the run can be repeated.
    const seed = Number(process.env.INBOX_SEED ?? Date.now() % 100_000);
    let state = seed;
    // mulberry32: every bit of its output is usable (a power-of-two LCG's low bits cycle in a few draws).
    const next = (n: number) => {
      state = (state + 0x6d2b79f5) | 0;
      let x = Math.imul(state ^ (state >>> 15), 1 | state);
      x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
      return ((x ^ (x >>> 14)) >>> 0) % n;
    };
    const pick = <T>(xs: readonly T[]) => xs[next(xs.length)]!;
    const STATES = [
      'scheduled',
      'resolved',
      'executing',
      'failed',
      'executed',
      'cancelled',
      'paused',
    ] as const;
    const ids: string[] = [];
    for (let move = 0; move < 300; move++) {
      const kind = ids.length < 5 ? 0 : next(8);
      const id = ids.length ? pick(ids) : '';
      switch (kind) {
        case 0:
        case 1:
          ids.push(
            await row(pick(accounts), {
              status: pick(STATES),
              chain_id: next(4) === 0 ? randomUUID() : null,
            }),
          );
          break;
        case 2:
        case 3:
          await set(id, 'status = $2', [pick(STATES)]);
          break;
        case 4: {
          // A batch of rows of every account in one statement, as the record and bulk pages write.
          const batch = Array.from({ length: 1 + next(6) }, () => pick(ids));
          await rawQuery(sql, `update actions set status = $2 where id = any($1::uuid[])`, [
            batch,
            pick(STATES),
          ]);
          break;
        }
        case 5:
          await set(id, 'chain_id = $2', [next(2) === 0 ? randomUUID() : null]);
          break;
        case 6:
          await rawQuery(sql, 'delete from actions where id = $1', [id]);
          ids.splice(ids.indexOf(id), 1);
          break;
        default:
          await fold();
      }
      if (move % 25 === 0) await expectAgree(sql, ...accounts).catch(failWith(seed, move));
    }
    await expectAgree(sql, ...accounts).catch(failWith(seed, 300));
    await fold();
    await expectAgree(sql, ...accounts).catch(failWith(seed, 301));
  });

  it("the entity's triggers and function are the migration's", async () => {
    const definitions = async (db: Sql) =>
      rawQuery<{ def: string }>(
        db,
        `select pg_get_triggerdef(t.oid) as def from pg_trigger t
          where t.tgrelid = 'actions'::regclass and t.tgname like 'failed_inbox_%'
         union all select pg_get_functiondef('failed_inbox_delta'::regproc)
         order by def`,
      );
    const migrated = await definitions(sql);
    expect(migrated).toHaveLength(4);
    // The entity's text run in place of the migration's, in a transaction rolled back.
    const fromEntity = await t.database
      .transaction(async (db) => {
        for (const trigger of FAILED_INBOX_TRIGGERS)
          await rawQuery(db, `drop trigger ${trigger.name} on actions`);
        await rawQuery(db, 'drop function failed_inbox_delta()');
        for (const trigger of FAILED_INBOX_TRIGGERS)
          for (const statement of trigger.expression!.split(';\ncreate trigger'))
            await rawQuery(db, statement.startsWith(' "') ? `create trigger${statement}` : statement);
        const defs = await definitions(db);
        throw Object.assign(new Error('roll back'), { defs });
      })
      .catch((err: { defs?: unknown }) => err.defs);
    expect(fromEntity).toEqual(migrated);
  });

  it('the migration fills the base from the rows a database of release 188718b holds', async () => {
    const test = await createTestDatabase('failed_inbox_upgrade', { empty: true });
    const database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 2 }));
    try {
      // The last migration release 188718b had; its `actions` had no `phase` yet.
      await database.orm.migrator.up({ to: 'Migration20261127031500_AccountSigningSecret' });
      const accounts = [randomUUID(), randomUUID()];
      for (const id of accounts)
        await rawQuery(
          database.sql,
          `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'old', 'business', now(), now())`,
          [id],
        );
      const old = (accountId: string, count: number, status: string) =>
        rawQuery(
          database.sql,
          `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at,
             max_attempts, attempt_count, retry_strategy, request, destination_host, created_at, updated_at)
           select gen_random_uuid(), $1, 'old ' || i, 'webhook', $2, 'UTC', now(), null, 1, 1, 'exponential',
                  '{"url": "http://127.0.0.1:9/old", "method": "POST", "headers": {}}', '127.0.0.1', now(), now()
             from generate_series(1, $3::int) i`,
          [accountId, status, count],
        );
      await old(accounts[0]!, 1200, 'failed');
      await old(accounts[0]!, 300, 'scheduled');
      await old(accounts[1]!, 70, 'failed');
      await rawQuery(
        database.sql,
        `update actions set chain_id = gen_random_uuid() where id in (select id from actions where status = 'failed' limit 20)`,
      );
      await database.orm.migrator.up();
      await expectAgree(database.sql, ...accounts);
      const total = (await Promise.all(accounts.map((a) => failedInboxTotal(database.sql, a)))).reduce(
        (x, y) => x + y,
      );
      expect(total).toBe(1250);
      const unfolded = await rawQuery<{ n: string }>(
        database.sql,
        'select count(*) as n from failed_inbox_deltas',
      );
      expect(Number(unfolded[0]!.n)).toBe(0);
      // And from then on the triggers keep it.
      await rawQuery(
        database.sql,
        `update actions set status = 'scheduled' where id in (select id from actions where account_id = $1 and status = 'failed' limit 5)`,
        [accounts[1]],
      );
      await expectAgree(database.sql, ...accounts);
    } finally {
      await database.close();
      await test.drop();
    }
  });
});

function failWith(seed: number, move: number) {
  return (err: unknown) => {
    throw new Error(`disagreement at move ${move} (INBOX_SEED=${seed}): ${String(err)}`);
  };
}
