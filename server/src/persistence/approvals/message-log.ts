import { randomUUID } from 'node:crypto';
import type { GateChannelName } from '@sched/contract';
import type { Sql } from '../database.js';

/** One message sent (or refused, or kept in the outbox) to a recipient through one channel. */
export interface NewNotification {
  actionId: string;
  recipientId: string;
  channel: GateChannelName;
  kind: string;
  ok: boolean;
  via: string;
  providerMessageId?: string | undefined;
  error?: string | undefined;
}

export async function logNotifications(db: Sql, notifications: readonly NewNotification[], now: Date) {
  if (notifications.length === 0) return;
  await db
    .insertInto('notifications')
    .values(
      notifications.map((n) => ({
        id: randomUUID(),
        action_id: n.actionId,
        recipient_id: n.recipientId,
        channel: n.channel,
        kind: n.kind,
        ok: n.ok,
        via: n.via,
        provider_message_id: n.providerMessageId ?? null,
        error: n.error ?? null,
        created_at: now,
      })),
    )
    .execute();
}

/** Whether any message was logged for the recipient yet (a reassigned recipient's first send is made once). */
export async function wasNotified(db: Sql, recipientId: string): Promise<boolean> {
  const row = await db
    .selectFrom('notifications')
    .select('id')
    .where('recipient_id', '=', recipientId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
