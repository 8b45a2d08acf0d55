import {
  type ActionRow,
  actionsSharingKeys,
  attemptsOf,
  findAction,
  findLiveByIdempotencyKey,
  insertAction,
  latestByIdempotencyKey,
  lockName,
  type NewAction,
} from './actions.js';
import { type Sql, typedOf } from './db.js';

export type { ActionRow, DeliveryAttemptRow, NewAction } from './actions.js';
export type {
  StoredCoordination,
  StoredGate,
  StoredRecipientTarget,
  StoredRecurrence,
  StoredRequest,
} from './entities/stored.js';

/**
 * The functions of actions.ts behind the untyped port, for the code not yet moved to it (the approval side).
 * Goes with persistence/db.ts.
 */
export const actionSql = {
  /** Stamped with the process clock, as the statement's now() did. */
  insert: (tx: Sql, a: Omit<NewAction, 'created_at' | 'updated_at'>): Promise<ActionRow> => {
    const now = new Date();
    return insertAction(tx.typed, { ...a, created_at: now, updated_at: now });
  },
  find: (db: Sql, accountId: string, id: string, opts: { forUpdate?: boolean } = {}) =>
    findAction(typedOf(db), accountId, id, opts),
  findLiveByIdempotencyKey: (db: Sql, accountId: string, key: string) =>
    findLiveByIdempotencyKey(db.typed, accountId, key),
  latestByIdempotencyKey: (db: Sql, accountId: string, key: string) =>
    latestByIdempotencyKey(db.typed, accountId, key),
  sharingKeys: (
    db: Sql,
    accountId: string,
    keys: string[],
    opts: { liveOnly?: boolean; excludeId?: string } = {},
  ) => actionsSharingKeys(db.typed, accountId, keys, opts),
  attempts: (db: Sql, actionId: string) => attemptsOf(db.typed, actionId),
  lock: (tx: Sql, accountId: string, kind: string, value: string) =>
    lockName(tx.typed, accountId, kind, value),
};
