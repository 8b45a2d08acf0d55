import { sql } from 'kysely';
import type { ActionState } from '../../domain/action/states.js';
import type { ActionRow } from '../actions.js';
import type { Sql } from '../database.js';
import type { StoredGate } from '../entities/stored.js';

/**
 * An approval action's row by id alone (a gate timer or a response link knows no account), locked until the
 * transaction ends when `forUpdate`.
 */
export async function findGateAction(
  db: Sql,
  actionId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ActionRow | undefined> {
  const q = db.selectFrom('actions').selectAll().where('id', '=', actionId);
  return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** What moves with a gate's running state: the action's status and the times and error that go with it. */
export interface GateActionFields {
  status?: ActionState;
  executed_at?: Date;
  next_attempt_at?: Date | null;
  last_error?: string | null;
  /** A recurring approval's last occurrence, granted: counted as a completed execution. */
  recurrence_count?: number;
  last_executed_at?: Date;
}

/**
 * Merges `patch` into the gate's running state and sets the given fields, in one statement. A new status ends any
 * lease (the round that held it is over). Answers the row as written.
 */
export async function updateGate(
  db: Sql,
  actionId: string,
  patch: Partial<StoredGate>,
  fields: GateActionFields,
  now: Date,
): Promise<ActionRow> {
  return db
    .updateTable('actions')
    .set({
      gate: sql`gate || ${JSON.stringify(patch)}::jsonb`,
      ...fields,
      ...(fields.status !== undefined ? { lease_until: null } : {}),
      updated_at: now,
    })
    .where('id', '=', actionId)
    .returningAll()
    .executeTakeFirstOrThrow();
}
