import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RetentionService } from '../../server/src/app/retention.js';
import { historyCutoff } from '../../server/src/domain/history/partitions.js';
import { insertAction, type NewAction } from '../../server/src/persistence/actions.js';
import { accountsToPurge } from '../../server/src/persistence/retention.js';
import { openTestDatabase } from '../support/in-process.js';
import { webhookActionRow } from '../support/seed.js';

const NOW = new Date();
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000);

// Retention reads each account's old rows through its own index, one account after another: accounts with nothing
// expired are skipped, an account's expired actions go in batches that read on from the last one (rows of one
// instant included: a batch create gives them all the same creation time), and nothing recent or live goes.
describe('retention passes, account by account', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  const accounts: Record<'many' | 'none' | 'recent' | 'two', string> = {
    many: '',
    none: '',
    recent: '',
    two: '',
  };

  const add = (accountId: string, name: string, createdDaysAgo: number, over: Partial<NewAction>) =>
    insertAction(
      t.database.sql,
      webhookActionRow(accountId, daysAgo(createdDaysAgo), {
        name,
        updated_at: daysAgo(createdDaysAgo),
        ...over,
      }),
    );
  const names = async (accountId: string) =>
    (
      await t.database.sql
        .selectFrom('actions')
        .select('name')
        .where('account_id', '=', accountId)
        .orderBy('name')
        .execute()
    ).map((r) => r.name);

  beforeAll(async () => {
    t = await openTestDatabase('retention_passes');
    // All on the free plan (30 days); the test's own accounts only, so the counts below are theirs.
    for (const k of Object.keys(accounts) as (keyof typeof accounts)[])
      accounts[k] = await t.newAccount('free');
    // Seven expired actions made at one instant (ties in the creation time), one live action as old, one recent.
    for (let i = 0; i < 7; i++) await add(accounts.many, `many-old-${i}`, 90, { status: 'executed' });
    await add(accounts.many, 'many-live', 90, { status: 'scheduled' });
    await add(accounts.many, 'many-recent', 5, { status: 'executed' });
    await add(accounts.none, 'none-live', 90, { status: 'scheduled' });
    await add(accounts.recent, 'recent-failed', 10, { status: 'failed' });
    await add(accounts.two, 'two-old-a', 60, { status: 'failed' });
    await add(accounts.two, 'two-old-b', 45, { status: 'cancelled' });
  });

  afterAll(async () => {
    await t?.close();
  });

  it('finds only the accounts with an expired action, a page at a time', async () => {
    const cutoff = historyCutoff(NOW, 30, 365);
    const mine = new Set(Object.values(accounts));
    const all: string[] = [];
    for (let after: string | null = null; ; ) {
      const page = await accountsToPurge(t.database.sql, 'free', cutoff, after, 1);
      all.push(...page);
      if (page.length < 1) break;
      after = page.at(-1) ?? null;
    }
    expect(all.filter((id) => mine.has(id)).sort()).toEqual([accounts.many, accounts.two].sort());
    expect(await accountsToPurge(t.database.sql, 'pro', cutoff, null, 10)).not.toContain(accounts.many);
  });

  it('deletes every expired action in batches of two over pages of one account, and nothing else', async () => {
    const batches: number[] = [];
    const purged = await new RetentionService(t.database, () => NOW, 2, 5_000, 1).purge({
      onBatch: (c) => {
        if (c.actions > 0) batches.push(c.actions);
      },
    });
    expect(purged).toMatchObject({ complete: true, actions: 9 });
    // Seven of one account in four batches of at most two (the ties read on past each batch's last row), two of the
    // other in one.
    expect([...batches].sort()).toEqual([1, 2, 2, 2, 2]);
    expect(await names(accounts.many)).toEqual(['many-live', 'many-recent']);
    expect(await names(accounts.none)).toEqual(['none-live']);
    expect(await names(accounts.recent)).toEqual(['recent-failed']);
    expect(await names(accounts.two)).toEqual([]);
  });
});
