import { ACTION_ID_HEADER, ATTEMPT_HEADER, signRequest } from '@sched/contract';
import type { AttemptRow } from '../../persistence/delivery-claims.js';
import type { OutboundRequest } from '../ports.js';

/** Stored response excerpt of each attempt. */
export const EXCERPT_BYTES = 2048;

/**
 * The outgoing request of an attempt: the user's request, JSON body, delivery headers and signatures. The response
 * body is read up to `responseBytes`: the excerpt, or more when a settlement listener wants it (a chain step).
 * `secrets` sign it: the row's own, and the replaced account secret during a rotation's overlap.
 */
export function buildRequest(
  row: AttemptRow,
  now: Date,
  timeoutMs: number,
  responseBytes = EXCERPT_BYTES,
  secrets: readonly string[] = row.webhook_secret ? [row.webhook_secret] : [],
): OutboundRequest {
  const req = row.request!;
  const hasBody = req.body !== undefined && req.method !== 'GET';
  const body = hasBody ? JSON.stringify(req.body) : '';
  // One message id per occurrence: retries of it share the id, so receivers can deduplicate.
  const messageId = `${row.id}.${row.recurrence_count}`;
  // Names are case-insensitive: the user's headers are folded to lower case, so ours replace theirs instead of
  // being sent twice, and a user's own content-type wins over the default.
  const headers: Record<string, string> = hasBody ? { 'content-type': 'application/json' } : {};
  for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
  headers[ACTION_ID_HEADER] = row.id;
  headers[ATTEMPT_HEADER] = String(row.attempt_count);
  if (secrets.length > 0) {
    const signed = signRequest({
      secret: secrets,
      messageId,
      timestamp: Math.floor(now.getTime() / 1000),
      body,
    });
    for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
  }
  return {
    url: req.url,
    method: req.method,
    headers,
    ...(hasBody ? { body } : {}),
    timeoutMs,
    maxResponseBytes: Math.max(responseBytes, EXCERPT_BYTES),
  };
}
