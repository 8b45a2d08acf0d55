import { RECIPIENT_ROLE, type ReassignBody, REMINDER_EVENT } from '@sched/contract';
import { reassignRefusal } from '@sched/contract/machines';
import { isOnGate, namedBy, requiredAfterReassign } from '../../domain/approval/reassign.js';
import { planLimits } from '../../domain/quota/plans.js';
import { updateGate } from '../../persistence/approvals/gates.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import {
  findRecipient,
  insertRecipients,
  markReassigned,
  type Recipient,
  recipientsOf,
} from '../../persistence/approvals/recipients.js';
import { addToTimeline } from '../../persistence/timeline.js';
import type { Sql } from '../../persistence/database.js';
import type { ActionOwner } from '../actions/create.js';
import { lockOwnAction } from '../actions/transition.js';
import { recordAudit } from '../audit.js';
import { recipientReference } from '../../domain/audit/details.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { Clock, GateTimers, Store } from '../ports.js';
import { assertChannelAllowances } from '../quota.js';
import {
  type ResolvedRecipient,
  resolveEscalationContacts,
  resolveRecipients,
  sqlDirectory,
} from '../directory/recipients.js';

/**
 * `POST /v1/actions/{id}/recipients/{recipient_id}/reassign`: hands a recipient who has not answered over to someone
 * else, in one transaction. The old recipient becomes `reassigned` (its links answer a page saying so, and it no
 * longer counts); the new one takes its place, with its role, required when the old one was, and `reassigned_from`
 * naming it. The timeline and the audit log record it. When the request has gone out, the new recipient's first
 * message is a gate timer due now, written in the same transaction, which a worker sends (rounds.ts
 * `sendToReassigned`) with a link of its own.
 *
 * Only the owner's API key reaches this (a `/v1` route with the `write` scope), so `to` may be any address, resolved
 * as `gate.recipients` are at create; a template trigger or a chain's values can never choose it (N-M1).
 */
export class Reassignments {
  constructor(private readonly deps: { store: Store; timers: GateTimers; clock: Clock }) {}

  async reassign(
    owner: ActionOwner,
    actionId: string,
    recipientId: string,
    input: ReassignBody,
  ): Promise<{ recipient: Recipient }> {
    return this.deps.store.transaction(async (tx) => {
      const row = await lockOwnAction(tx, owner.accountId, actionId);
      const early = reassignRefusal(row, null);
      if (early) throw new ConflictError(early);
      const old = await findRecipient(tx, recipientId, { forUpdate: true });
      if (!old || old.action_id !== row.id) throw new NotFoundError('recipient');
      const refusal = reassignRefusal(row, old);
      if (refusal) throw new ConflictError(refusal);
      const gate = row.gate!;
      const now = this.deps.clock();

      const all = await recipientsOf(tx, row.id);
      const next = await this.resolve(tx, owner, gate, old, input.to);
      if (all.some((r) => r.id !== old.id && isOnGate(r) && sameRecipient(r, next)))
        throw ValidationError.field('to', `${next.address} is already a recipient of this approval`);
      if (
        old.role === RECIPIENT_ROLE.recipient &&
        gate.exclude_requester &&
        namedBy(next, gate.exclude_requester)
      )
        throw ValidationError.field(
          'to',
          'is the requester (gate.exclude_requester), who cannot approve their own request',
        );
      await assertChannelAllowances(
        tx,
        owner.accountId,
        owner.plan,
        next.targets.map((t) => t.channel),
        now,
      );

      await markReassigned(tx, old.id);
      const position = Math.max(...all.map((r) => r.position)) + 1;
      const [added] = await insertRecipients(tx, row.id, old.role, [next], now, position, old.id);
      const patch: Partial<StoredGate> = {};
      const required = gate.required_recipients ?? [];
      const requiredNow = requiredAfterReassign(required, old, next);
      if (requiredNow.length !== required.length) patch.required_recipients = requiredNow;
      const channels = [...new Set([...gate.channels, ...next.targets.map((t) => t.channel)])];
      if (channels.length !== gate.channels.length) patch.channels = channels;
      await updateGate(tx, row.id, patch, {}, now);

      const reason = input.reason?.trim() || null;
      await addToTimeline(tx, row.id, [
        {
          type: REMINDER_EVENT.reassigned,
          actor: null,
          notes: `reassigned from ${old.address} to ${next.address}${reason ? `: ${reason}` : ''}`,
        },
      ]);
      await recordAudit(tx, owner.accountId, {
        action: 'approval.reassigned',
        resource: { type: 'action', id: row.id },
        details: {
          // By id and reference, never by address (docs/audit.md).
          recipient_id: old.id,
          to_recipient_id: added!.id,
          ...(recipientReference(next.reference) !== undefined && { to: next.reference }),
          role: old.role,
          required: requiredNow.some((q) => namedBy(next, q)),
          reason,
        },
      });
      // Not sent yet: the first round asks the new recipient with the others.
      if (gate.sent_at)
        await this.deps.timers.set(tx, { actionId: row.id, kind: 'reassigned', recipientId: added!.id }, now);
      return { recipient: added! };
    });
  }

  /**
   * `to` resolved as the old recipient was: a recipient under the gate's own `channels` rule and the plan's chat
   * channels; an escalation contact as escalation contacts are. Errors are the field `to`'s.
   */
  private async resolve(
    tx: Sql,
    owner: ActionOwner,
    gate: StoredGate,
    old: Recipient,
    to: string,
  ): Promise<ResolvedRecipient> {
    const directory = sqlDirectory(tx, owner.accountId);
    const resolved =
      old.role === RECIPIENT_ROLE.escalation
        ? await resolveEscalationContacts([to], { directory, field: 'to' })
        : await resolveRecipients([to], {
            channels:
              gate.requested_channels === undefined ? gate.channels : (gate.requested_channels ?? undefined),
            directory,
            field: 'to',
            slackTeamsAllowed: planLimits(owner.plan).slackTeams,
          });
    if (!resolved.ok) throw new ValidationError({ to: Object.values(resolved.errors).flat() });
    return resolved.recipients[0]!;
  }
}

/** The same person: the same address, or exactly the same places reached (as a gate's recipients are deduplicated). */
function sameRecipient(r: Recipient, next: ResolvedRecipient): boolean {
  return (
    r.address.toLowerCase() === next.address.toLowerCase() ||
    JSON.stringify(r.targets) === JSON.stringify(next.targets)
  );
}
