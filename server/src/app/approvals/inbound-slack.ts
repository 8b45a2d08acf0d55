import { findGateAction } from '../../persistence/approvals/gates.js';
import { findRecipient } from '../../persistence/approvals/recipients.js';
import { findResponseToken, mintResponseTokens } from '../../persistence/approvals/response-tokens.js';
import { answerNeedsPage } from '../../domain/approval/answer-where.js';
import { AppError, GoneError, ValidationError } from '../errors.js';
import type { Clock, Store } from '../ports.js';
import { recordRefusal } from './inbound-refusals.js';
import type { ResponseOutcome, ResponseService } from './respond.js';

/** A click on a Slack app button, once its request was verified as Slack's. */
export interface SlackClick {
  /** The button's value: the message's opaque reference. */
  reference: string;
  decision: 'confirm' | 'decline';
  /** Who clicked (`user.id`). */
  memberId: string;
}

export type SlackClickResult =
  | { kind: 'answered'; outcome: ResponseOutcome; at: Date }
  /** Nothing changed; `text` is for the clicking member only (an ephemeral message). */
  | { kind: 'refused'; text: string; decided: boolean };

/**
 * Answers from Slack app buttons: the reference names the recipient; the member who clicked must be that
 * recipient (a direct message) or, in a channel, one of the gate's `slack_responders` when it has some. The answer
 * is then recorded exactly as the page records it (ResponseService), with `channel: "slack"` and the member.
 */
export class SlackAnswers {
  constructor(
    private readonly deps: {
      store: Store;
      responses: ResponseService;
      clock: Clock;
      publicUrl: () => string;
    },
  ) {}

  async click(c: SlackClick): Promise<SlackClickResult> {
    const db = this.deps.store.sql;
    const owner = await findResponseToken(db, c.reference, 'slack');
    if (!owner) {
      await this.refuse(c, 'unknown or expired Slack button');
      return { kind: 'refused', text: 'This request is no longer open.', decided: true };
    }
    const [recipient, action] = await Promise.all([
      findRecipient(db, owner.recipient_id),
      findGateAction(db, owner.action_id),
    ]);
    const gate = action?.gate;
    if (!recipient || !gate) {
      await this.refuse(c, 'unknown or expired Slack button');
      return { kind: 'refused', text: 'This request is no longer open.', decided: true };
    }
    const target = recipient.targets.find((t) => t.channel === 'slack' && !('webhookUrl' in t));
    const allowed =
      target && 'slackMemberId' in target
        ? target.slackMemberId === c.memberId
        : !gate.slack_responders?.length || gate.slack_responders.includes(c.memberId);
    if (!allowed) {
      await this.refuse(c, `Slack member ${c.memberId} may not answer for ${recipient.address}`, owner);
      return {
        kind: 'refused',
        text: 'You are not one of the people asked to answer this request; nothing was changed.',
        decided: false,
      };
    }
    if (answerNeedsPage(gate)) {
      await this.refuse(c, 'the request needs values entered on its page', owner);
      return {
        kind: 'refused',
        text: `This request needs a few values: answer it on its page, ${await this.pageLink(owner.recipient_id)}`,
        decided: false,
      };
    }
    try {
      const outcome = await this.deps.responses.respond(
        owner,
        { decision: c.decision, comment: null },
        { channel: 'slack', slackMember: c.memberId },
      );
      return { kind: 'answered', outcome, at: this.deps.clock() };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await this.refuse(c, err.message, owner);
      if (err instanceof GoneError)
        return {
          kind: 'refused',
          text: `This request was already decided (${err.message}); nothing was changed.`,
          decided: true,
        };
      // A comment the gate requires is written on the page: the member gets their own link.
      if (err instanceof ValidationError)
        return {
          kind: 'refused',
          text: `${err.message}: answer on the request's page, ${await this.pageLink(owner.recipient_id)}`,
          decided: false,
        };
      return { kind: 'refused', text: err.message, decided: false };
    }
  }

  private refuse(
    c: SlackClick,
    reason: string,
    owner?: { recipient_id: string; action_id: string; account_id: string },
  ) {
    return recordRefusal(this.deps, { channel: 'slack', sender: c.memberId, reason, owner });
  }

  /** A fresh page link for the recipient, shown only to the member who clicked (an ephemeral message). */
  private async pageLink(recipientId: string): Promise<string> {
    const tokens = await mintResponseTokens(this.deps.store.sql, [recipientId], this.deps.clock());
    return `${this.deps.publicUrl()}/r/${tokens.get(recipientId)}`;
  }
}
