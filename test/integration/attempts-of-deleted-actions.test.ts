import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAction } from '../../server/src/persistence/actions.js';
import type { Sql } from '../../server/src/persistence/database.js';
import { ActionSchema } from '../../server/src/persistence/entities/action.js';
import { logSuccessfulAttempt, openTestDatabase, rawQuery } from '../support/in-process.js';
import { webhookActionRow } from '../support/seed.js';

/**
 * `delivery_attempts` has no foreign key to `actions`: a statement trigger of `actions` deletes the attempts of the
 * actions each statement deleted, after it. Whatever deletes actions (a retention batch, an account's delete through
 * its cascade, a hand-written statement) leaves none of their attempts behind, and touches no other action's.
 */
describe("a deleted action's attempts go with it", { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';

  beforeAll(async () => {
    t = await openTestDatabase('attempts_of_deleted_actions');
    accountId = await t.newAccount('business');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function actionWithAttempts(account: string, attempts: number): Promise<string> {
    const row = webhookActionRow(account, new Date(), { status: 'executed' });
    await insertAction(t.database.sql, row);
    for (let n = 1; n <= attempts; n++) await logSuccessfulAttempt(t.database.sql, row.id, new Date(), n);
    return row.id;
  }
  const attemptsOf = async (ids: string[]) =>
    (
      await rawQuery<{ action_id: string }>(
        t.database.sql,
        'select action_id from delivery_attempts where action_id = any($1::uuid[]) order by action_id, id',
        [ids],
      )
    ).map((r) => r.action_id);

  it("deletes the attempts of every action one statement deleted, and no other action's", async () => {
    const keep = await actionWithAttempts(accountId, 2);
    const gone = [
      await actionWithAttempts(accountId, 1),
      await actionWithAttempts(accountId, 3),
      await actionWithAttempts(accountId, 2),
    ];
    expect(await attemptsOf([keep, ...gone])).toHaveLength(8);
    const deleted = await rawQuery(
      t.database.sql,
      'delete from actions where id = any($1::uuid[]) returning id',
      [gone],
    );
    expect(deleted).toHaveLength(3);
    expect(await attemptsOf([keep, ...gone])).toEqual([keep, keep]);
  });

  it("an account's delete reaches its actions by their cascade and their attempts by the trigger", async () => {
    const other = await actionWithAttempts(accountId, 1);
    const leaving = await t.newAccount('free');
    const its = [await actionWithAttempts(leaving, 2), await actionWithAttempts(leaving, 1)];
    await rawQuery(t.database.sql, 'delete from accounts where id = $1', [leaving]);
    expect(await rawQuery(t.database.sql, 'select 1 from actions where id = any($1::uuid[])', [its])).toEqual(
      [],
    );
    expect(await attemptsOf(its)).toEqual([]);
    expect(await attemptsOf([other])).toEqual([other]);
  });

  it('no foreign key refers from the attempt log to actions, and the trigger is in place', async () => {
    const keys = await rawQuery<{ name: string }>(
      t.database.sql,
      `select conname as name from pg_constraint
        where contype = 'f' and conrelid = 'delivery_attempts'::regclass and confrelid = 'actions'::regclass`,
    );
    expect(keys).toEqual([]);
    const triggers = await rawQuery<{ name: string }>(
      t.database.sql,
      `select tgname as name from pg_trigger where tgrelid = 'actions'::regclass and tgname = 'attempts_of_deleted_actions'`,
    );
    expect(triggers).toEqual([{ name: 'attempts_of_deleted_actions' }]);
  });

  it("deletes by one array of ids, and the function is the entity's", async () => {
    const definition = async (db: Sql) =>
      (
        await rawQuery<{ def: string }>(
          db,
          `select pg_get_functiondef('attempts_of_deleted_actions'::regproc) as def`,
        )
      )[0]?.def;
    const migrated = await definition(t.database.sql);
    // Each month's key walked once with the array, not descended once per deleted action.
    expect(migrated).toContain('action_id = any (array(select id from deleted_actions))');
    const trigger = ActionSchema.meta.triggers.find((x) => x.name === 'attempts_of_deleted_actions')!;
    // The entity's text run in place of the migration's, in a transaction rolled back.
    const fromEntity = await t.database
      .transaction(async (db) => {
        await rawQuery(db, 'drop trigger attempts_of_deleted_actions on actions');
        await rawQuery(db, 'drop function attempts_of_deleted_actions()');
        for (const statement of trigger.expression!.split(';\ncreate trigger'))
          await rawQuery(db, statement.startsWith(' "') ? `create trigger${statement}` : statement);
        throw Object.assign(new Error('roll back'), { def: await definition(db) });
      })
      .catch((err: { def?: unknown }) => err.def);
    expect(fromEntity).toEqual(migrated);
  });
});
