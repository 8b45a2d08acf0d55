import type { CommentPolicy, ResponseDecision } from '@sched/contract';

/**
 * Whether an answer lacks the comment `gate.comment` asks for: the message for a 422 on `comment`, or null. A snooze
 * is not a decision and never needs one.
 */
export function commentRefusal(
  policy: CommentPolicy,
  decision: ResponseDecision,
  comment: string | null | undefined,
): string | null {
  if (comment?.trim()) return null;
  if (policy === 'required' && decision !== 'snooze') return 'a comment is required with your answer';
  if (policy === 'required_on_decline' && decision === 'decline') return 'a comment is required to decline';
  return null;
}
