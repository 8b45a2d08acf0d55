import { randomUUID } from 'node:crypto';
import type { OperatorEventType } from '@sched/contract';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
import { type Listing, newestFirstPage, type Sql, type Tables } from './database.js';

/** Rows of the alert tables, typed from their entities (persistence/entities/alert.ts). */
export type AlertRuleRow = Selectable<Tables['alert_rules']>;
export type AlertNotificationRow = Selectable<Tables['alert_notifications']>;
type OperatorEventRow = Selectable<Tables['operator_events']>;
type NewAlertRule = Insertable<Tables['alert_rules']>;
type AlertRuleChanges = Updateable<Tables['alert_rules']> & { updated_at: Date };
type NewAlertNotification = Omit<Insertable<Tables['alert_notifications']>, 'status' | 'attempt_count'>;

/** pg sends a JS array as a PostgreSQL array: every jsonb value goes as JSON text. */
function jsonb<T>(value: T): T {
  return (value === null || value === undefined ? value : JSON.stringify(value)) as T;
}

const JSON_COLUMNS = ['events', 'filter', 'threshold', 'channels', 'state'] as const;

function jsonColumns<T extends Partial<Record<(typeof JSON_COLUMNS)[number], unknown>>>(values: T): T {
  const out = { ...values };
  for (const k of JSON_COLUMNS) if (k in out) out[k] = jsonb(out[k]);
  return out;
}

// Every query of the API names the account; the worker reaches rules through their account's events.

export async function insertAlertRule(db: Sql, rule: NewAlertRule): Promise<AlertRuleRow> {
  return db.insertInto('alert_rules').values(jsonColumns(rule)).returningAll().executeTakeFirstOrThrow();
}

export async function findAlertRule(
  db: Sql,
  accountId: string,
  id: string,
  opts: { forUpdate?: boolean } = {},
): Promise<AlertRuleRow | null> {
  const q = db.selectFrom('alert_rules').selectAll().where('id', '=', id).where('account_id', '=', accountId);
  return (await (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst()) ?? null;
}

export async function listAlertRules(
  db: Sql,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<Listing<AlertRuleRow>> {
  return newestFirstPage(db, db.selectFrom('alert_rules').where('account_id', '=', accountId), page);
}

export async function countAlertRules(db: Sql, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('alert_rules')
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** Serialises rule creation per account until the transaction ends, so racing creates cannot pass the limit. */
export async function lockAlertRuleCount(db: Sql, accountId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`${accountId}:alert_rules`}, 0))`.execute(db);
}

export async function updateAlertRule(db: Sql, id: string, changes: AlertRuleChanges): Promise<AlertRuleRow> {
  return db
    .updateTable('alert_rules')
    .set(jsonColumns(changes))
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteAlertRule(db: Sql, accountId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('alert_rules')
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The account's enabled rules, as much as says which events they watch (and how late counts). */
export function watchingRules(
  db: Sql,
  accountId: string,
): Promise<Pick<AlertRuleRow, 'events' | 'late_after'>[]> {
  return db
    .selectFrom('alert_rules')
    .select(['events', 'late_after'])
    .where('account_id', '=', accountId)
    .where('enabled', '=', true)
    .execute();
}

/** The channel on which a change of an account's rules is announced (its id as the payload), at commit. */
export const ALERT_RULES_CHANNEL = 'sched_alert_rules';

/** Tells every listening process, when the caller's transaction commits, that the account's rules changed. */
export async function announceRuleChange(db: Sql, accountId: string): Promise<void> {
  await sql`select pg_notify(${ALERT_RULES_CHANNEL}, ${accountId})`.execute(db);
}

/**
 * Records an operator event when an enabled rule of its account watches its type: one statement, which inserts
 * nothing (and costs one index probe of `alert_rules`) for accounts without such a rule. Answers whether it was kept.
 */
export async function insertOperatorEvent(
  db: Sql,
  e: {
    accountId: string;
    type: OperatorEventType;
    at: Date;
    destinationHost: string | null;
    subject: { type: string; id: string } | null;
    details: Record<string, unknown>;
  },
): Promise<boolean> {
  const rows = await db
    .insertInto('operator_events')
    .columns(['id', 'account_id', 'type', 'at', 'destination_host', 'subject', 'details'])
    .expression((eb) =>
      eb
        .selectFrom('accounts')
        .select((s) => [
          s.val(randomUUID()).as('id'),
          'id as account_id',
          s.val(e.type).as('type'),
          s.val(e.at).as('at'),
          s.val(e.destinationHost).as('destination_host'),
          sql`${jsonb(e.subject)}::jsonb`.as('subject'),
          sql`${JSON.stringify(e.details)}::jsonb`.as('details'),
        ])
        .where('id', '=', e.accountId)
        .where(({ exists, selectFrom }) =>
          exists(
            selectFrom('alert_rules')
              .select(sql`1`.as('one'))
              .where('account_id', '=', e.accountId)
              .where('enabled', '=', true)
              .where(sql<boolean>`events @> ${JSON.stringify([e.type])}::jsonb`),
          ),
        ),
    )
    .returning('id')
    .execute();
  return rows.length > 0;
}

/** Locks the account's rules (in id order) for one evaluation: evaluations of one account run one at a time. */
export function lockAccountRules(db: Sql, accountId: string): Promise<AlertRuleRow[]> {
  return db
    .selectFrom('alert_rules')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Takes (deletes and answers) up to `limit` of the account's recorded events, oldest first. Run under the rules'
 * lock in the evaluation's transaction: the events go only if the evaluation of them commits.
 */
export async function takeOperatorEvents(
  db: Sql,
  accountId: string,
  limit: number,
): Promise<OperatorEventRow[]> {
  const rows = await db
    .deleteFrom('operator_events')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('operator_events')
        .select('id')
        .where('account_id', '=', accountId)
        .orderBy('at')
        .orderBy('id')
        .limit(limit),
    )
    .returningAll()
    .execute();
  return rows.sort((a, b) => a.at.getTime() - b.at.getTime() || a.id.localeCompare(b.id));
}

/** Writes alert notifications, pending, answering their ids. */
export async function insertAlertNotifications(db: Sql, rows: NewAlertNotification[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('alert_notifications')
    .values(
      rows.map((r) => ({
        ...r,
        channel: jsonb(r.channel),
        message: jsonb(r.message),
        status: 'pending' as const,
        attempt_count: 0,
      })),
    )
    .returning('id')
    .execute();
  return inserted.map((r) => r.id);
}

export async function findAlertNotification(db: Sql, id: string): Promise<AlertNotificationRow | null> {
  return (
    (await db.selectFrom('alert_notifications').selectAll().where('id', '=', id).executeTakeFirst()) ?? null
  );
}

/**
 * Counts an attempt of a pending notification before it is made, so a crash after the send cannot make it look
 * unsent for ever; answers the row, or null when it is no longer pending (sent, failed, or its rule deleted).
 */
export async function startNotificationAttempt(db: Sql, id: string): Promise<AlertNotificationRow | null> {
  return (
    (await db
      .updateTable('alert_notifications')
      .set((eb) => ({ attempt_count: eb('attempt_count', '+', 1) }))
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst()) ?? null
  );
}

export async function finishNotificationAttempt(
  db: Sql,
  n: { id: string; status: 'pending' | 'sent' | 'failed'; error: string | null; now: Date },
): Promise<void> {
  await db
    .updateTable('alert_notifications')
    .set({ status: n.status, last_error: n.error, ...(n.status === 'sent' ? { sent_at: n.now } : {}) })
    .where('id', '=', n.id)
    .execute();
}

export function recentNotifications(db: Sql, ruleId: string, limit: number): Promise<AlertNotificationRow[]> {
  return db
    .selectFrom('alert_notifications')
    .selectAll()
    .where('rule_id', '=', ruleId)
    .orderBy('created_at', 'desc')
    .orderBy('channel_index')
    .limit(limit)
    .execute();
}

/** Deletes a rule's messages beyond its newest `keep` (pending ones stay): the history stays bounded per rule. */
export async function trimNotifications(db: Sql, ruleId: string, keep: number): Promise<void> {
  await db
    .deleteFrom('alert_notifications')
    .where('rule_id', '=', ruleId)
    .where('status', '!=', 'pending')
    .where('id', 'not in', (eb) =>
      eb
        .selectFrom('alert_notifications')
        .select('id')
        .where('rule_id', '=', ruleId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(keep),
    )
    .execute();
}
