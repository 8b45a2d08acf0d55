import type { Action } from '@sched/contract';
import { decideOnCreate, SKIP_REASON } from '../../domain/coordination/dedup.js';
import { actionsSharingKeys, findAction, findByIdempotencyKey } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import type { ActionChanges } from './cancel-retry.js';
import type { PreparedAction } from './prepare.js';
import type { ActionQueries } from './queries.js';

/** What a create answers: the action it made, or the one it was skipped for, and why. */
export type CreateResult =
  | { kind: 'created'; action: Action }
  | { kind: 'skipped'; action: Action; reason: string };

/**
 * The idempotency and dedup decisions of a create whose keys the caller has locked: the skip it answers instead of
 * creating, or null after cancelling what a `replace` rule displaces.
 */
export async function skipOrReplace(
  db: Sql,
  accountId: string,
  p: PreparedAction,
  now: Date,
  deps: { queries: Pick<ActionQueries, 'view'>; changes: Pick<ActionChanges, 'cancelRow'> },
): Promise<CreateResult | null> {
  if (p.idempotencyKey) {
    const existing = await findByIdempotencyKey(db, accountId, p.idempotencyKey, { liveOnly: true });
    if (existing)
      return {
        kind: 'skipped',
        action: await deps.queries.view(db, existing),
        reason: 'idempotency_key_exists',
      };
  }
  if (p.dedupKeys.length > 0 && p.coordination?.on_create) {
    const sharing = await actionsSharingKeys(db, accountId, p.dedupKeys, { liveOnly: true });
    const decision = decideOnCreate(
      p.coordination.on_create,
      sharing.map((s) => ({ id: s.id, status: s.status, createdAt: s.created_at })),
    );
    if (decision.kind === 'skip') {
      const existing = (await findAction(db, accountId, decision.existingId))!;
      return {
        kind: 'skipped',
        action: await deps.queries.view(db, existing),
        reason: SKIP_REASON,
      };
    }
    if (decision.kind === 'replace') {
      for (const id of decision.cancelIds)
        await deps.changes.cancelRow(db, (await findAction(db, accountId, id, { forUpdate: true }))!, now);
    }
  }
  return null;
}
