import { randomUUID } from 'node:crypto';
import {
  type FieldValue,
  RECIPIENT_ROLE,
  RECIPIENT_STATUS,
  type RecipientRole,
  type RecipientStatus,
} from '@sched/contract';
import { type Selectable, sql } from 'kysely';
import type { ChannelTarget } from '../../domain/approval/messages.js';
import type { Sql, Tables } from '../database.js';
import type { StoredRecipientTarget } from '../entities/stored.js';

/** A `recipients` row, typed from its entity. */
export type Recipient = Selectable<Tables['recipients']>;

/** A recipient as resolved when the gate was created (or its escalation contacts). */
export type NewRecipient = StoredRecipientTarget;

/**
 * Adds recipients in one statement, positions from `startAt`; answers the rows in position order. `reassignedFrom`:
 * the recipient they take over from (a reassignment).
 */
export async function insertRecipients(
  db: Sql,
  actionId: string,
  role: RecipientRole,
  recipients: readonly NewRecipient[],
  now: Date,
  startAt = 0,
  reassignedFrom: string | null = null,
): Promise<Recipient[]> {
  if (recipients.length === 0) return [];
  const rows = await db
    .insertInto('recipients')
    .values(
      recipients.map((r, i) => ({
        id: randomUUID(),
        action_id: actionId,
        position: startAt + i,
        role,
        reference: r.reference,
        address: r.address,
        display_name: r.displayName.slice(0, 255),
        // pg would send a JS array as a PostgreSQL array, not as JSON.
        targets: sql<ChannelTarget[]>`${JSON.stringify(r.targets)}::jsonb`,
        status: RECIPIENT_STATUS.pending,
        responded_at: null,
        response_comment: null,
        reassigned_from: reassignedFrom,
        created_at: now,
      })),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.position - b.position);
}

export function recipientsOf(db: Sql, actionId: string): Promise<Recipient[]> {
  return db
    .selectFrom('recipients')
    .selectAll()
    .where('action_id', '=', actionId)
    .orderBy('position')
    .execute();
}

/** One recipient, locked until the transaction ends when `forUpdate`. */
export async function findRecipient(
  db: Sql,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<Recipient | undefined> {
  const q = db.selectFrom('recipients').selectAll().where('id', '=', id);
  return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

export async function recordAnswer(
  db: Sql,
  id: string,
  answer: {
    status: RecipientStatus;
    at: Date;
    comment: string | null;
    values?: Record<string, FieldValue> | null;
  },
): Promise<void> {
  await db
    .updateTable('recipients')
    .set({
      status: answer.status,
      responded_at: answer.at,
      response_comment: answer.comment,
      values: answer.values ? sql<Record<string, FieldValue>>`${JSON.stringify(answer.values)}::jsonb` : null,
    })
    .where('id', '=', id)
    .execute();
}

/** The recipient was handed over to another: its links answer a page saying so, and it no longer counts. */
export async function markReassigned(db: Sql, id: string): Promise<void> {
  await db
    .updateTable('recipients')
    .set({ status: RECIPIENT_STATUS.reassigned })
    .where('id', '=', id)
    .execute();
}

/** A reminder round went out: snoozed recipients are waiting for an answer again. */
export async function wakeSnoozed(db: Sql, actionId: string): Promise<void> {
  await db
    .updateTable('recipients')
    .set({ status: RECIPIENT_STATUS.pending })
    .where('action_id', '=', actionId)
    .where('status', '=', RECIPIENT_STATUS.snoozed)
    .execute();
}

/**
 * A retried gate asks again from the start: every recipient of `gate.recipients` is pending with no answer, and the
 * escalation contacts added last time go (with their links and notifications), so escalation can happen afresh. A
 * reassigned recipient stays handed over: the one who took its place is asked instead.
 */
export async function resetRecipients(db: Sql, actionId: string): Promise<void> {
  await db
    .deleteFrom('recipients')
    .where('action_id', '=', actionId)
    .where('role', '=', RECIPIENT_ROLE.escalation)
    .execute();
  await db
    .updateTable('recipients')
    .set({ status: RECIPIENT_STATUS.pending, responded_at: null, response_comment: null, values: null })
    .where('action_id', '=', actionId)
    .where('status', '<>', RECIPIENT_STATUS.reassigned)
    .execute();
}
