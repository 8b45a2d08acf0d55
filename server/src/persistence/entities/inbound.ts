import { defineEntity, p } from '@mikro-orm/core';
import type { AnswerChannel } from '@sched/contract';

/**
 * Answers that arrived through a channel of their own (a reply to an approval email, a Slack click) and were not
 * acted on, with why: an unknown or dead token, a sender who is not the recipient, an unclear first line. Kept for
 * operators; the account, action and recipient are known only when the token was.
 */
export const InboundReplySchema = defineEntity({
  name: 'InboundReply',
  tableName: 'inbound_replies',
  indexes: [{ properties: ['createdAt'] }, { properties: ['actionId'] }],
  properties: {
    id: p.uuid().primary(),
    channel: p.string().length(16).$type<AnswerChannel>(),
    accountId: p.uuid().nullable(),
    actionId: p.uuid().nullable(),
    recipientId: p.uuid().nullable(),
    /** The sender's address (email) or member id (Slack), as it came. */
    sender: p.string().length(320),
    /** Why it was not applied, in a sentence (also what the answer mail says). */
    reason: p.text(),
    createdAt: p.datetime(),
  },
});
