import type { AnswerChannel } from '@sched/contract';
import { recordInboundReply } from '../../persistence/approvals/inbound-replies.js';
import { recordAudit } from '../audit.js';
import type { Clock, Store } from '../ports.js';
import type { TokenOwner } from './respond.js';

/**
 * An answer from a chat or a reply that was not acted on: kept with why (the `inbound_replies` table), and, when
 * its token named an action, in that account's audit log as `approval.answer_refused`, in one transaction.
 */
export async function recordRefusal(
  deps: { store: Store; clock: Clock },
  r: {
    channel: AnswerChannel;
    sender: string;
    reason: string;
    owner?: (TokenOwner & { account_id: string }) | undefined;
  },
): Promise<void> {
  const at = deps.clock();
  await deps.store.transaction(async (tx) => {
    await recordInboundReply(tx, {
      channel: r.channel,
      accountId: r.owner?.account_id ?? null,
      actionId: r.owner?.action_id ?? null,
      recipientId: r.owner?.recipient_id ?? null,
      sender: r.sender,
      reason: r.reason,
      at,
    });
    if (r.owner)
      await recordAudit(tx, r.owner.account_id, {
        action: 'approval.answer_refused',
        resource: { type: 'action', id: r.owner.action_id },
        channel: r.channel,
        at,
        // A Slack member id names who clicked; a mail's sender address stays out of the append-only log
        // (it is kept in inbound_replies, which can be erased).
        details: {
          recipient_id: r.owner.recipient_id,
          reason: r.reason,
          ...(r.channel === 'slack' ? { slack_member: r.sender } : {}),
        },
      });
  });
}
