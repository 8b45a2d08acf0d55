import { quietHoldUntil } from './quiet.js';
import {
  type AnswerChannel,
  CONFIRMATION_MODE,
  type FieldValue,
  RECIPIENT_ROLE,
  RECIPIENT_STATUS,
  REMINDER_EVENT,
  type ResponseDecision,
  STATUS_AFTER_DECISION,
} from '@sched/contract';
import { type ActionState, isTerminal } from '../../domain/action/states.js';
import { parseDuration } from '../../domain/schedule/duration.js';
import type { ActionRow } from '../../persistence/actions.js';
import {
  type AttachmentMeta,
  attachmentsOf,
  findAttachment,
} from '../../persistence/approvals/attachments.js';
import { findGateAction } from '../../persistence/approvals/gates.js';
import {
  findRecipient,
  type Recipient,
  recipientsOf,
  recordAnswer,
} from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import { recordAudit } from '../audit.js';
import { type GateDecision, gateDecision, isRequester, onGate } from '../../domain/approval/decision.js';
import { recipientReference } from '../../domain/audit/details.js';
import { commentRefusal } from '../../domain/approval/comment-policy.js';
import { findResponseToken } from '../../persistence/approvals/response-tokens.js';
import type { Sql } from '../../persistence/database.js';
import { ConflictError, GoneError, NotFoundError, RequesterError, ValidationError } from '../errors.js';
import type { ActionScheduler, CallbackQueue, Clock, Store, Timers, Tracing } from '../ports.js';
import type { Waits } from '../waits.js';
import { answerValues } from '../../domain/approval/fields.js';
import { giveGrant, grantTtlMs } from '../grants/give.js';
import { applyActionEvent } from '../actions/transition.js';
import { grantGate } from './outcomes.js';

/** Everything the response page shows. */
export interface GateForRecipient {
  action: ActionRow;
  recipient: Recipient;
  attachments: AttachmentMeta[];
  progress: { responded: number; total: number } | null;
  /** Quorum gates: confirmations received, the minimum, and how many more approvals are still needed. */
  quorum: { confirmed: number; min: number; needed: number } | null;
  snoozesLeft: number;
}

export interface ResponseOutcome {
  action_id: string;
  recipient_id: string;
  decision: ResponseDecision;
  recipient_status: (typeof STATUS_AFTER_DECISION)[ResponseDecision];
  action_status: string;
  snoozed_until: string | null;
  /** Quorum gates still waiting: how many more approvals are needed; null otherwise. */
  approvals_needed: number | null;
  title: string;
}

const DEFAULT_SNOOZE = '1h';

/** An answer through a link: the decision, and what may come with it. */
export interface AnswerInput {
  decision: ResponseDecision;
  comment?: string | null;
  snoozeFor?: string | null;
  /** The typed answer as sent (`gate.fields`), checked here. */
  values?: Record<string, unknown> | undefined;
  /** A confirm's standing grant (`gate.grant`): how long the same key is allowed. */
  grantTtl?: string | null;
}

/**
 * Where an answer came from, for the timeline, the audit log and the console: the page by default; a Slack click
 * names the member, a reply the address it came from.
 */
export interface AnswerVia {
  channel: AnswerChannel;
  /** The Slack member who clicked. */
  slackMember?: string;
}

/** A recipient found by one of its tokens (a link, a Slack button's reference, a reply address). */
export interface TokenOwner {
  recipient_id: string;
  action_id: string;
}

/** The request's messages are going out now: the round commits `awaiting_response` once they are sent. */
class SendingNowError extends ConflictError {
  constructor() {
    super('the request is being sent right now; answer again in a moment');
  }
}

/**
 * How long an answer waits for its round to finish sending, and how often it looks: a link clicked (or a Slack
 * button pressed) as its message arrives reaches the server while the round still holds the action; the answer
 * waits for it rather than telling a person to try again.
 */
const SENDING_WAIT_MS = 10_000;
const SENDING_POLL_MS = 100;

/**
 * Answers through login-free links. Reading a link never changes anything (mail scanners open
 * links); answering is a POST. A link stops working once the gate times out, the action is finished, or its
 * recipient has confirmed or declined.
 */
export class ResponseService {
  constructor(
    private readonly deps: {
      db: Store;
      scheduler: ActionScheduler;
      callbacks: CallbackQueue;
      clock: Clock;
      waits: Waits;
      /** Paces an answer that waits for its round to finish sending; without it such an answer is a 409 at once. */
      timers?: Timers | undefined;
      /** A span per answer recorded (OpenTelemetry when configured). */
      tracing?: Tracing | undefined;
    },
  ) {}

  async view(token: string): Promise<GateForRecipient> {
    const { action, recipient } = await this.load(this.deps.db.sql, token, false);
    this.assertOpen(action, recipient);
    const [attachments, recipients] = await Promise.all([
      attachmentsOf(this.deps.db.sql, action.id),
      recipientsOf(this.deps.db.sql, action.id),
    ]);
    const gate = action.gate!;
    if (isRequester(gate, recipient)) throw new RequesterError(action.name);
    const required = onGate(recipients);
    const decision = gateDecision(gate, recipients, { kind: 'standing' });
    return {
      quorum:
        gate.confirmation_mode === CONFIRMATION_MODE.quorum && decision.kind === 'waiting'
          ? {
              confirmed: recipients.filter(
                (r) =>
                  r.role === RECIPIENT_ROLE.recipient &&
                  r.status === RECIPIENT_STATUS.confirmed &&
                  !isRequester(gate, r),
              ).length,
              min: gate.min_approvals!,
              needed: decision.approvalsNeeded ?? 0,
            }
          : null,
      action,
      recipient,
      attachments,
      progress:
        gate.confirmation_mode === CONFIRMATION_MODE.all_required && required.length > 1
          ? {
              responded: required.filter((r) => r.status === RECIPIENT_STATUS.confirmed).length,
              total: required.length,
            }
          : null,
      snoozesLeft: Math.max(0, gate.max_snoozes - gate.snooze_count),
    };
  }

  async attachment(token: string, id: string) {
    const { action, recipient } = await this.load(this.deps.db.sql, token, false);
    this.assertOpen(action, recipient);
    const file = await findAttachment(this.deps.db.sql, action.id, id);
    if (!file) throw new NotFoundError('attachment');
    return file;
  }

  async respond(
    token: string | TokenOwner,
    input: AnswerInput,
    via: AnswerVia = { channel: 'page' },
  ): Promise<ResponseOutcome> {
    const record = async () => {
      for (let waited = 0; ; waited += SENDING_POLL_MS) {
        try {
          return await this.recordResponse(token, input, via);
        } catch (err) {
          const timers = this.deps.timers;
          if (!(err instanceof SendingNowError) || !timers || waited >= SENDING_WAIT_MS) throw err;
          await new Promise<void>((resolve) => timers.after(SENDING_POLL_MS, resolve));
        }
      }
    };
    return this.deps.tracing
      ? this.deps.tracing.span('sched.approval.answer', { 'sched.decision': input.decision }, record)
      : record();
  }

  private async recordResponse(
    token: string | TokenOwner,
    input: AnswerInput,
    via: AnswerVia,
  ): Promise<ResponseOutcome> {
    return this.deps.db.transaction(async (tx) => {
      const { action, recipient } = await this.load(tx, token, true);
      // Paused: the clocks are stopped and nothing moves until it is resumed (app/actions/pause.ts).
      if (action.status === 'paused')
        throw new ConflictError('this request is on hold; answer again once it is resumed');
      this.assertOpen(action, recipient);
      if (isRequester(action.gate!, recipient)) throw new RequesterError(action.name);
      const missing = commentRefusal(action.gate!.comment ?? 'optional', input.decision, input.comment);
      if (missing) throw new ValidationError({ comment: [missing] });
      const answered = answerValues(action.gate!.fields ?? [], input.values, input.decision);
      if (!answered.ok) throw new ValidationError(answered.errors);
      const values = answered.values;
      const grantMs = input.grantTtl ? grantTtlMs(action.gate!, input.grantTtl) : null;
      if (action.status === 'executing') throw new SendingNowError();
      const gate = action.gate!;
      const now = this.deps.clock();
      const comment = input.comment?.trim() ? input.comment.trim() : null;
      let snoozedUntil: Date | null = null;
      let status: ActionState = action.status;
      let approvalsNeeded: number | null = null;

      if (input.decision === 'snooze') {
        if (gate.snooze_count >= gate.max_snoozes) {
          throw new ValidationError({
            decision: [gate.max_snoozes === 0 ? 'this request cannot be snoozed' : 'no snoozes left'],
          });
        }
        const ms = parseDuration(input.snoozeFor ?? DEFAULT_SNOOZE);
        if (ms === null)
          throw new ValidationError({ snooze_for: ['must be a duration such as 15m, 1h or 1d'] });
        const expiresAt = gate.expires_at ? new Date(gate.expires_at).getTime() : Number.POSITIVE_INFINITY;
        // The reminder comes before the gate times out, or it would never be seen.
        snoozedUntil = new Date(Math.min(now.getTime() + this.deps.waits.wait(ms), expiresAt - 1000));
        // The re-send after a snooze waits for the end of quiet hours (the timeout keeps running meanwhile).
        const quietUntil = await quietHoldUntil(tx, action.account_id, gate, snoozedUntil, 'reminder');
        if (quietUntil && quietUntil.getTime() < expiresAt) snoozedUntil = quietUntil;
        await this.answer(
          tx,
          action,
          recipient,
          input.decision,
          now,
          comment,
          via,
          [`until ${snoozedUntil.toISOString()}`, comment],
          null,
        );
        ({ status } = await applyActionEvent(
          tx,
          action,
          'snooze',
          { now, nextAttemptAt: snoozedUntil, gate: { snooze_count: gate.snooze_count + 1 } },
          this.deps,
        ));
      } else {
        await this.answer(tx, action, recipient, input.decision, now, comment, via, [comment], values);
        const decision = gateDecision(gate, await recipientsOf(tx, action.id), {
          kind: 'answer',
          decision: input.decision,
          role: recipient.role,
        });
        ({ status, approvalsNeeded } = await this.decide(tx, action, recipient, decision, now, values));
        // The approver's standing grant counts with the confirm that approved the gate, not one that waits for others.
        if (grantMs !== null && decision.kind === 'granted')
          await giveGrant(tx, { action, recipient, ttlMs: grantMs, now, waits: this.deps.waits });
      }
      await this.deps.callbacks.enqueue(tx, action, 'reminder.responded', {
        status,
        response: STATUS_AFTER_DECISION[input.decision],
        decision: input.decision,
        respondent: recipient.address,
        recipient_id: recipient.id,
        comment,
        values,
        ...(snoozedUntil ? { snoozed_until: snoozedUntil.toISOString() } : {}),
      });
      return {
        action_id: action.id,
        recipient_id: recipient.id,
        decision: input.decision,
        recipient_status: STATUS_AFTER_DECISION[input.decision],
        action_status: status,
        snoozed_until: snoozedUntil ? snoozedUntil.toISOString() : null,
        approvals_needed: approvalsNeeded,
        title: action.name,
      };
    });
  }

  /** Applies what the answer decided: the gate granted, declined, or still waiting. */
  private async decide(
    tx: Sql,
    action: ActionRow,
    recipient: Recipient,
    decision: GateDecision,
    now: Date,
    values: Record<string, FieldValue> | null,
  ): Promise<{ status: ActionState; approvalsNeeded: number | null }> {
    if (decision.kind === 'waiting')
      return { status: action.status, approvalsNeeded: decision.approvalsNeeded };
    if (decision.kind === 'granted')
      return {
        status: (await grantGate(tx, action, decision.event, this.deps, { values })).status,
        approvalsNeeded: null,
      };
    if (decision.kind === 'timed_out') throw new Error('an answer never times a gate out');
    const error = {
      declined: `declined by ${recipient.address}`,
      required_declined: `declined by required recipient ${recipient.address}`,
      unreachable: `declined by ${recipient.address}: the quorum of ${action.gate!.min_approvals} can no longer be reached`,
    }[decision.reason];
    const { status } = await applyActionEvent(
      tx,
      action,
      decision.event,
      { now, error, gate: {} },
      this.deps,
    );
    return { status, approvalsNeeded: null };
  }

  /** Records the recipient's answer and its timeline event (notes: the non-empty parts, joined). */
  private async answer(
    tx: Sql,
    action: ActionRow,
    r: Recipient,
    decision: ResponseDecision,
    now: Date,
    comment: string | null,
    via: AnswerVia,
    notes: (string | null)[],
    values: Record<string, FieldValue> | null,
  ) {
    const status = STATUS_AFTER_DECISION[decision];
    await recordAnswer(tx, r.id, { status, at: now, comment, values });
    const note = notes.filter(Boolean).join('; ') || null;
    await addToTimeline(tx, action.id, [
      { type: REMINDER_EVENT[status], actor: r.address, notes: note, channel: via.channel },
    ]);
    // The decision in the audit log, in the same transaction; the link's token is never part of it.
    await recordAudit(tx, action.account_id, {
      action: `approval.${decision}`,
      // The recipient by id (and reference), never by address: the log cannot be edited, personal data can be.
      actor: { type: 'recipient', id: r.id },
      resource: { type: 'action', id: action.id },
      channel: via.channel,
      details: {
        recipient_id: r.id,
        ...(recipientReference(r.reference) !== undefined && { reference: r.reference }),
        role: r.role,
        decision,
        comment,
        notes: note,
        ...(via.slackMember ? { slack_member: via.slackMember } : {}),
      },
    });
  }

  private async load(
    db: Sql,
    token: string | TokenOwner,
    forUpdate: boolean,
  ): Promise<{ action: ActionRow; recipient: Recipient }> {
    const found = typeof token === 'string' ? await findResponseToken(db, token) : token;
    if (!found) throw new NotFoundError('response link');
    const action = await findGateAction(db, found.action_id, { forUpdate });
    const recipient = await findRecipient(db, found.recipient_id, { forUpdate });
    if (!action || !recipient || !action.gate) throw new NotFoundError('response link');
    return { action, recipient };
  }

  private assertOpen(action: ActionRow, recipient: Recipient): void {
    // First: whatever became of the gate since, this link was handed over to someone else.
    if (recipient.status === RECIPIENT_STATUS.reassigned) throw new GoneError('reassigned', action.name);
    const expiresAt = action.gate?.expires_at ? new Date(action.gate.expires_at) : null;
    if (action.status === 'expired' || (expiresAt && expiresAt <= this.deps.clock()))
      throw new GoneError('expired', action.name);
    if (isTerminal(action.status)) throw new GoneError('closed', action.name);
    if (recipient.status === RECIPIENT_STATUS.confirmed || recipient.status === RECIPIENT_STATUS.declined)
      throw new GoneError('answered', action.name);
  }
}
