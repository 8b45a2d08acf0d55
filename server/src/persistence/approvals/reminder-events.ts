import { randomUUID } from 'node:crypto';
import type { AnswerChannel, ReminderEventType } from '@sched/contract';
import { type Selectable, sql } from 'kysely';
import type { Sql, Tables } from '../database.js';

export type ReminderEvent = Selectable<Tables['reminder_events']>;

export interface NewReminderEvent {
  type: ReminderEventType;
  actor: string | null;
  notes: string | null;
  /** Where an answer came from (an answer's event only). */
  channel?: AnswerChannel | null;
}

/**
 * Appends to the approval timeline. `clock_timestamp()`, not the transaction's time, so events written by one
 * transaction keep their order when listed by time.
 */
export async function addReminderEvents(db: Sql, actionId: string, events: readonly NewReminderEvent[]) {
  await addTimelineEvents(
    db,
    events.map((e) => ({ ...e, actionId })),
  );
}

/** Appends events to the timelines of several actions in one statement (a bulk operation's batch). */
export async function addTimelineEvents(
  db: Sql,
  events: readonly (NewReminderEvent & { actionId: string })[],
): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('reminder_events')
    .values(
      events.map((e) => ({
        id: randomUUID(),
        action_id: e.actionId,
        event_type: e.type,
        actor_email: e.actor,
        notes: e.notes,
        channel: e.channel ?? null,
        created_at: sql<Date>`clock_timestamp()`,
      })),
    )
    .execute();
}

export function reminderEventsOf(db: Sql, actionId: string): Promise<ReminderEvent[]> {
  return db
    .selectFrom('reminder_events')
    .selectAll()
    .where('action_id', '=', actionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
