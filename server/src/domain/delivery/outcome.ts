import type { DeliveryOutcome } from '@sched/contract';

/**
 * Classification of one delivery attempt, used for webhook requests and callbacks alike.
 *
 * | Result                         | Outcome   |
 * |--------------------------------|-----------|
 * | 2xx                            | success   |
 * | 429                            | retryable |
 * | other 4xx                      | permanent |
 * | 5xx                            | retryable |
 * | 3xx                            | permanent: redirects are never followed (SSRF guard), so retrying the same
 * |                                | URL would get the same redirect; the user must fix the URL |
 * | 1xx or a code outside 100-599  | retryable: a protocol anomaly, treated like a connection error |
 * | timeout (30 s)                 | retryable |
 * | connection error               | retryable |
 * | blocked by the SSRF guard      | permanent: the destination is refused, retrying cannot help |
 */

export type { DeliveryOutcome };

export type AttemptResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'connection'; message: string }
  | { kind: 'blocked'; message: string };

export function classifyAttempt(result: AttemptResult): DeliveryOutcome {
  switch (result.kind) {
    case 'timeout':
    case 'connection':
      return 'retryable';
    case 'blocked':
      return 'permanent';
    case 'response':
      return classifyStatus(result.status);
  }
}

function classifyStatus(status: number): DeliveryOutcome {
  if (status >= 200 && status <= 299) return 'success';
  if (status === 429) return 'retryable';
  if ((status >= 300 && status <= 399) || (status >= 400 && status <= 499)) return 'permanent';
  return 'retryable';
}
