import { parseDuration } from '../../domain/schedule/duration.js';
import type { ActionRow } from '../../persistence/actions.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import type { Recipient } from '../../persistence/approvals/recipients.js';
import type { Sql } from '../../persistence/database.js';
import { insertGrant } from '../../persistence/grants.js';
import { recordAudit } from '../audit.js';
import { ValidationError } from '../errors.js';
import type { Waits } from '../waits.js';

/** A confirm's `grant_ttl` against the gate's offer: its length (ms, unscaled), or a 422 naming `grant_ttl`. */
export function grantTtlMs(gate: StoredGate, ttl: string): number {
  if (!gate.grant) throw new ValidationError({ grant_ttl: ['this request offers no standing grant'] });
  const ms = parseDuration(ttl);
  if (ms === null || ms <= 0)
    throw new ValidationError({ grant_ttl: ['must be a duration such as 1h or 1d'] });
  if (ms > gate.grant.max_ttl_ms)
    throw new ValidationError({ grant_ttl: [`must be at most ${gate.grant.max_ttl}`] });
  return ms;
}

/**
 * The approver confirmed and allowed the gate's key for `ttlMs`: the grant is written, and audited naming who gave
 * it, in the confirm's transaction.
 */
export async function giveGrant(
  tx: Sql,
  g: { action: ActionRow; recipient: Recipient; ttlMs: number; now: Date; waits: Waits },
): Promise<void> {
  const { action, recipient, now } = g;
  const key = action.gate!.grant!.key;
  const grant = await insertGrant(tx, {
    accountId: action.account_id,
    key,
    actionId: action.id,
    recipientId: recipient.id,
    givenBy: recipient.address,
    expiresAt: new Date(now.getTime() + g.waits.wait(g.ttlMs)),
    now,
  });
  await recordAudit(tx, action.account_id, {
    action: 'grant.give',
    // The recipient by id, never by address: the log cannot be edited, personal data can be.
    actor: { type: 'recipient', id: recipient.id },
    resource: { type: 'grant', id: grant.id },
    details: {
      key,
      action_id: action.id,
      expires_at: grant.expires_at.toISOString(),
    },
  });
}
