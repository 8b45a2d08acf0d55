import { RECIPIENT_STATUS } from '@sched/contract';

/**
 * Why a reminder cannot go out now (`POST /v1/actions/{id}/remind` answers 409), or null when it can: the approval
 * must be waiting for an answer, and someone must not have answered. The console offers its Remind button by the
 * same rule.
 */
export function remindRefusal(
  action: { mode: string; status: string },
  recipients: readonly { status: string }[],
): 'not_waiting' | 'all_answered' | null {
  if (action.mode !== 'approval' || action.status !== 'awaiting_response') return 'not_waiting';
  if (!recipients.some((r) => r.status === RECIPIENT_STATUS.pending)) return 'all_answered';
  return null;
}
