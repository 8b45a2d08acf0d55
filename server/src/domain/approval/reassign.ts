import { RECIPIENT_STATUS } from '@sched/contract';
import { recipientMatches } from './recipient-match.js';

/** Whether a recipient still stands on its gate: one handed over to another no longer counts or answers. */
export function isOnGate(r: { status: string }): boolean {
  return r.status !== RECIPIENT_STATUS.reassigned;
}

/** Whether a `required_recipients` / `exclude_requester` entry names a stored recipient (its reference or address). */
export function namedBy(r: { reference: string; address: string }, entry: string): boolean {
  return recipientMatches(r.reference, entry) || recipientMatches(r.address, entry);
}

/**
 * `gate.required_recipients` after `from` is handed over to `to`: when `from` was required, `to` is required too (its
 * reference is added unless an entry already names it). The old entries stay: they name no one on the gate any more
 * unless someone else they name is still there, who stays required.
 */
export function requiredAfterReassign(
  required: readonly string[],
  from: { reference: string; address: string },
  to: { reference: string; address: string },
): string[] {
  const wasRequired = required.some((q) => namedBy(from, q));
  const isRequired = required.some((q) => namedBy(to, q));
  return wasRequired && !isRequired ? [...required, to.reference] : [...required];
}
