import type { Sql } from './database.js';

// The failed inbox's kept total (entities/failed-inbox.ts): the base of each account plus the deltas its triggers
// appended since the last fold.

/** The number of the account's actions in the failed inbox: one snapshot of its base and its unfolded deltas. */
export async function failedInboxTotal(db: Sql, accountId: string): Promise<number> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('failed_inbox_counts').select('total').where('account_id', '=', accountId).as('base'),
      eb
        .selectFrom('failed_inbox_deltas')
        .select((d) => d.fn.sum<string | null>('delta').as('sum'))
        .where('account_id', '=', accountId)
        .as('unfolded'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.base ?? 0) + Number(row.unfolded ?? 0);
}

/**
 * Moves every committed delta into its account's base, in one statement; answers how many accounts it touched. The
 * delete sees the deltas committed before the statement began and returns exactly those it removed, so what it adds
 * is what it took: a delta committed meanwhile waits for the next fold, and a fold running at the same time skips the
 * rows this one deleted. Bases are written in account order, so two folds never wait on each other in a cycle.
 */
export async function foldFailedInbox(db: Sql): Promise<number> {
  const folded = await db
    .with('taken', (q) => q.deleteFrom('failed_inbox_deltas').returning(['account_id', 'delta']))
    .insertInto('failed_inbox_counts')
    .columns(['account_id', 'total'])
    .expression((eb) =>
      eb
        .selectFrom('taken')
        .select((s) => ['taken.account_id', s.fn.sum<string>('taken.delta').as('total')])
        .groupBy('taken.account_id')
        .orderBy('taken.account_id'),
    )
    .onConflict((oc) =>
      oc.column('account_id').doUpdateSet((eb) => ({
        total: eb(eb.ref('failed_inbox_counts.total'), '+', eb.ref('excluded.total')),
      })),
    )
    .returning('account_id')
    .execute();
  return folded.length;
}
