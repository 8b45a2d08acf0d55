/**
 * The HTTP headers of a delivery besides its signatures (signatures.ts): the server writes them, a receiver (and
 * `sched listen`) reads them. Names in lower case, as Node's `req.headers` has them.
 */

/** The action a delivery (or an approval's email) is of. */
export const ACTION_ID_HEADER = 'x-sched-action-id';
/** The attempt's number, from 1. */
export const ATTEMPT_HEADER = 'x-sched-attempt';

/**
 * Headers an HTTP client manages itself (framing, connection, host): a value given for them is dropped before a
 * request is sent on, so a stored action cannot smuggle a second request or break keep-alive, and a forwarded one
 * gets its own framing.
 */
export const MANAGED_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);
