import { randomUUID } from 'node:crypto';
import type { AnswerChannel } from '@sched/contract';
import type { Selectable } from 'kysely';
import type { Sql, Tables } from '../database.js';

export type InboundReply = Selectable<Tables['inbound_replies']>;

/** Keeps an inbound answer that was not acted on, and why (entities/inbound.ts). */
export async function recordInboundReply(
  db: Sql,
  r: {
    channel: AnswerChannel;
    accountId: string | null;
    actionId: string | null;
    recipientId: string | null;
    sender: string;
    reason: string;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('inbound_replies')
    .values({
      id: randomUUID(),
      channel: r.channel,
      account_id: r.accountId,
      action_id: r.actionId,
      recipient_id: r.recipientId,
      sender: r.sender.slice(0, 320),
      reason: r.reason,
      created_at: r.at,
    })
    .execute();
}
