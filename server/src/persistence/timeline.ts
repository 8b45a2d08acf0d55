import { randomUUID } from 'node:crypto';
import type { AnswerChannel, ReminderEventType } from '@sched/contract';
import { type Selectable, sql } from 'kysely';
import type { Sql, Tables } from './database.js';

export type TimelineEvent = Selectable<Tables['reminder_events']>;

export interface NewTimelineEvent {
  type: ReminderEventType;
  actor: string | null;
  notes: string | null;
  /** Where an answer came from (an answer's event only). */
  channel?: AnswerChannel | null;
}

/**
 * An action's timeline: what happened to it, in order, for every mode (answers, rounds, pauses, bulk operations,
 * deliveries). The table keeps the interface's wire name, `reminder_events`.
 */

/**
 * Appends to one action's timeline. `clock_timestamp()`, not the transaction's time, so events written by one
 * transaction keep their order when listed by time.
 */
export async function addToTimeline(db: Sql, actionId: string, events: readonly NewTimelineEvent[]) {
  await addTimelineEvents(
    db,
    events.map((e) => ({ ...e, actionId })),
  );
}

/** Appends events to the timelines of several actions in one statement (a bulk operation's batch). */
export async function addTimelineEvents(
  db: Sql,
  events: readonly (NewTimelineEvent & { actionId: string })[],
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

export function timelineOf(db: Sql, actionId: string): Promise<TimelineEvent[]> {
  return db
    .selectFrom('reminder_events')
    .selectAll()
    .where('action_id', '=', actionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
