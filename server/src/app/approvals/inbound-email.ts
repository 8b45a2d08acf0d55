import { answerNeedsPage } from '../../domain/approval/answer-where.js';
import { readReply, replyTokenIn, sameAddress } from '../../domain/approval/reply.js';
import { findGateAction } from '../../persistence/approvals/gates.js';
import { findRecipient } from '../../persistence/approvals/recipients.js';
import { findResponseToken } from '../../persistence/approvals/response-tokens.js';
import { AppError } from '../errors.js';
import type { Clock, Log, Store } from '../ports.js';
import { recordRefusal } from './inbound-refusals.js';
import type { ResponseOutcome, ResponseService, TokenOwner } from './respond.js';

/** A reply as the inbound adapters read it (integrations/inbound-mail.ts): SMTP or a provider's hook. */
export interface InboundMail {
  /** The From header's address. */
  from: string | null;
  /** The envelope sender (SMTP `MAIL FROM`, or `Return-Path` from a hook); null when unknown, `''` for `<>`. */
  envelopeFrom: string | null;
  /** Where it was addressed: envelope recipients first, then To, Cc and Delivered-To. */
  to: string[];
  /** The text part (or the HTML part as text). */
  text: string;
  subject: string;
  messageId: string | null;
  /** RFC 3834 `Auto-Submitted` other than `no`, or a bulk/auto-reply precedence: never answered. */
  automatic: boolean;
}

/** Short mails that tell a sender why their reply changed nothing. */
export interface ReplyNotices {
  send(notice: { to: string; subject: string; text: string; inReplyTo: string | null }): Promise<void>;
}

export type ReplyResult = { applied: true; outcome: ResponseOutcome } | { applied: false; reason: string };

/**
 * Approve by replying: a reply to an approval email's `reply+<token>@<domain>` address answers for the recipient it
 * was sent to, when it comes from that recipient's address (From and envelope) and its first line says what to do.
 * Anything else is recorded (inbound-refusals.ts) and answered by a short mail saying why, never acted on.
 */
export class EmailReplies {
  constructor(
    private readonly deps: {
      store: Store;
      responses: ResponseService;
      clock: Clock;
      log: Log;
      /** SCHED_INBOUND_EMAIL_DOMAIN. */
      domain: string;
      notices: ReplyNotices | null;
    },
  ) {}

  async receive(mail: InboundMail): Promise<ReplyResult> {
    const sender = mail.from ?? mail.envelopeFrom ?? '';
    const token = replyTokenIn(mail.to, this.deps.domain);
    const found = token ? await findResponseToken(this.deps.store.sql, token, 'reply') : undefined;
    if (!found)
      return this.refuse(
        mail,
        sender,
        'it was sent to an unknown or expired reply address; nothing was changed',
      );
    const [recipient, action] = await Promise.all([
      findRecipient(this.deps.store.sql, found.recipient_id),
      findGateAction(this.deps.store.sql, found.action_id),
    ]);
    const target = recipient?.targets.find((t) => t.channel === 'email');
    if (!recipient || !action?.gate || !target || target.channel !== 'email')
      return this.refuse(
        mail,
        sender,
        'it was sent to an unknown or expired reply address; nothing was changed',
      );
    const envelopeOk = mail.envelopeFrom === null || sameAddress(mail.envelopeFrom, target.email);
    if (!sameAddress(mail.from, target.email) || !envelopeOk)
      return this.refuse(
        mail,
        sender,
        'it did not come from the address the request was sent to; nothing was changed',
        found,
      );
    const read = readReply(mail.text);
    if (!read.ok) return this.refuse(mail, sender, `${read.reason}; nothing was changed`, found);
    if (answerNeedsPage(action.gate))
      return this.refuse(
        mail,
        sender,
        'this request needs values entered on its page: answer with the link in the request email',
        found,
      );
    try {
      const outcome = await this.deps.responses.respond(
        found,
        { decision: read.decision, comment: read.comment },
        { channel: 'email_reply' },
      );
      return { applied: true, outcome };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return this.refuse(mail, sender, `${err.message}; nothing was changed`, found);
    }
  }

  private async refuse(
    mail: InboundMail,
    sender: string,
    reason: string,
    owner?: TokenOwner & { account_id: string },
  ): Promise<ReplyResult> {
    await recordRefusal(this.deps, { channel: 'email_reply', sender: sender || '(none)', reason, owner });
    // No answer to an automatic message or a bounce (empty envelope sender): two robots must not loop.
    if (this.deps.notices && sender && !mail.automatic && mail.envelopeFrom !== '') {
      try {
        await this.deps.notices.send({
          to: sender,
          subject: `Not applied: ${mail.subject || 'your reply'}`.slice(0, 200),
          text: `Your reply was not applied: ${reason}.\n\nTo answer, reply to the approval email itself from the address it was sent to, with "approve" or "decline" on the first line, or use the link in that email.\n`,
          inReplyTo: mail.messageId,
        });
      } catch (err) {
        this.deps.log.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'reply notice not sent',
        );
      }
    }
    return { applied: false, reason };
  }
}
