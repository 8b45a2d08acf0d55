import { type ActionState, assertTransition, isTerminal } from '../../domain/action/states.js';
import { parseDuration } from '../../domain/schedule/duration.js';
import type { ActionRow } from '../../persistence/action-store.js';
import { approvalSql, type AttachmentMetaRow, type RecipientRow } from '../../persistence/approval-store.js';
import type { Db, Sql } from '../../persistence/db.js';
import { ConflictError, GoneError, NotFoundError, ValidationError } from '../errors.js';
import type { ActionScheduler, CallbackOutbox, Clock } from '../ports.js';
import { grantGate, setGate } from './outcomes.js';

export type Decision = 'confirm' | 'decline' | 'snooze';

/** Everything the response page shows. */
export interface GateForRecipient {
  action: ActionRow;
  recipient: RecipientRow;
  attachments: AttachmentMetaRow[];
  progress: { responded: number; total: number } | null;
  snoozesLeft: number;
}

export interface ResponseOutcome {
  action_id: string;
  recipient_id: string;
  decision: Decision;
  recipient_status: RecipientRow['status'];
  action_status: string;
  snoozed_until: string | null;
  title: string;
}

export const DEFAULT_SNOOZE = '1h';
const RESPONSE: Record<Decision, 'confirmed' | 'declined' | 'snoozed'> = {
  confirm: 'confirmed',
  decline: 'declined',
  snooze: 'snoozed',
};

/**
 * Answers through login-free links (spec 3.1, 5.3). Reading a link never changes anything (mail scanners open
 * links); answering is a POST. A link stops working once the gate times out, the action is finished, or its
 * recipient has confirmed or declined.
 */
export class ResponseService {
  constructor(
    private readonly deps: {
      db: Db;
      scheduler: ActionScheduler;
      callbacks: CallbackOutbox;
      clock: Clock;
      timeScale: number;
    },
  ) {}

  async view(token: string): Promise<GateForRecipient> {
    const { action, recipient } = await this.load(this.deps.db, token, false);
    this.assertOpen(action, recipient);
    const [attachments, recipients] = await Promise.all([
      approvalSql.attachmentsMeta(this.deps.db, action.id),
      approvalSql.recipients(this.deps.db, action.id),
    ]);
    const gate = action.gate!;
    const required = recipients.filter((r) => r.role === 'recipient');
    return {
      action,
      recipient,
      attachments,
      progress:
        gate.confirmation_mode === 'all_required' && required.length > 1
          ? { responded: required.filter((r) => r.status === 'confirmed').length, total: required.length }
          : null,
      snoozesLeft: Math.max(0, gate.max_snoozes - gate.snooze_count),
    };
  }

  async attachment(token: string, id: string) {
    const { action, recipient } = await this.load(this.deps.db, token, false);
    this.assertOpen(action, recipient);
    const file = await approvalSql.attachment(this.deps.db, action.id, id);
    if (!file) throw new NotFoundError('attachment');
    return file;
  }

  async respond(
    token: string,
    input: { decision: Decision; comment?: string | null; snoozeFor?: string | null },
  ): Promise<ResponseOutcome> {
    return this.deps.db.transaction(async (tx) => {
      const { action, recipient } = await this.load(tx, token, true);
      this.assertOpen(action, recipient);
      if (action.status === 'executing')
        throw new ConflictError('the request is being sent right now; answer again in a moment');
      const gate = action.gate!;
      const now = this.deps.clock();
      const comment = input.comment?.trim() ? input.comment.trim() : null;
      let snoozedUntil: Date | null = null;
      let status: ActionState = action.status;

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
        snoozedUntil = new Date(Math.min(now.getTime() + ms / this.deps.timeScale, expiresAt - 1000));
        status = assertTransition(action.status, 'snooze');
        await this.answerRecipient(tx, recipient, 'snoozed', now, comment);
        await approvalSql.addEvent(
          tx,
          action.id,
          'snoozed',
          recipient.address,
          [`until ${snoozedUntil.toISOString()}`, comment].filter(Boolean).join('; '),
        );
        await setGate(
          tx,
          action,
          { snooze_count: gate.snooze_count + 1 },
          { status, next_attempt_at: snoozedUntil },
        );
        await this.deps.scheduler.schedule(tx, action.id, snoozedUntil);
      } else if (input.decision === 'decline') {
        status = assertTransition(action.status, 'decline');
        await this.answerRecipient(tx, recipient, 'declined', now, comment);
        await approvalSql.addEvent(tx, action.id, 'declined', recipient.address, comment);
        await setGate(
          tx,
          action,
          {},
          { status, next_attempt_at: null, last_error: `declined by ${recipient.address}` },
        );
      } else {
        await this.answerRecipient(tx, recipient, 'confirmed', now, comment);
        await approvalSql.addEvent(tx, action.id, 'confirmed', recipient.address, comment);
        const recipients = await approvalSql.recipients(tx, action.id);
        // first_response: one confirmation is enough. all_required: every original recipient must confirm.
        // An escalation contact's confirmation decides alone: that is what escalating to them is for.
        const done =
          recipient.role === 'escalation' ||
          gate.confirmation_mode === 'first_response' ||
          recipients.filter((r) => r.role === 'recipient').every((r) => r.status === 'confirmed');
        if (done) status = (await grantGate(tx, action, 'confirm', this.deps)).status;
      }
      await this.deps.callbacks.enqueue(tx, action, 'reminder.responded', {
        status,
        response: RESPONSE[input.decision],
        decision: input.decision,
        respondent: recipient.address,
        recipient_id: recipient.id,
        comment,
        ...(snoozedUntil ? { snoozed_until: snoozedUntil.toISOString() } : {}),
      });
      return {
        action_id: action.id,
        recipient_id: recipient.id,
        decision: input.decision,
        recipient_status: RESPONSE[input.decision],
        action_status: status,
        snoozed_until: snoozedUntil ? snoozedUntil.toISOString() : null,
        title: action.name,
      };
    });
  }

  private async answerRecipient(
    tx: Sql,
    r: RecipientRow,
    status: RecipientRow['status'],
    now: Date,
    comment: string | null,
  ) {
    await tx.query(
      'update recipients set status = $2, responded_at = $3, response_comment = $4 where id = $1',
      [r.id, status, now, comment],
    );
  }

  private async load(
    db: Sql,
    token: string,
    forUpdate: boolean,
  ): Promise<{ action: ActionRow; recipient: RecipientRow }> {
    const found = await approvalSql.findByToken(db, token);
    if (!found) throw new NotFoundError('response link');
    const lock = forUpdate ? ' for update' : '';
    const [action] = await db.query<ActionRow>(`select * from actions where id = $1${lock}`, [
      found.action_id,
    ]);
    const [recipient] = await db.query<RecipientRow>(`select * from recipients where id = $1${lock}`, [
      found.recipient_id,
    ]);
    if (!action || !recipient || !action.gate) throw new NotFoundError('response link');
    return { action, recipient };
  }

  private assertOpen(action: ActionRow, recipient: RecipientRow): void {
    const expiresAt = action.gate?.expires_at ? new Date(action.gate.expires_at) : null;
    if (action.status === 'expired' || (expiresAt && expiresAt <= this.deps.clock()))
      throw new GoneError('expired', action.name);
    if (isTerminal(action.status)) throw new GoneError('closed', action.name);
    if (recipient.status === 'confirmed' || recipient.status === 'declined')
      throw new GoneError('answered', action.name);
  }
}
