import {
  type ActionCallback,
  type ChainCallback,
  DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
  type SignatureScheme,
  type SignatureVerification,
  verifySignature,
  WEBHOOK_SIGNATURE_HEADER,
} from '@sched/contract';
import { SchedSignatureError } from './errors.js';

/** A fetch `Headers` instance (Fetch API, undici, Hono, Next.js) or a plain object such as Node's `req.headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface WebhookVerificationInput {
  /**
   * The `webhook_secret` given when the action was created, or several while rotating (actions created with the
   * old secret and the new one both verify).
   */
  secret: string | readonly string[];
  headers: WebhookHeaders;
  /** The raw body exactly as received (string or bytes); re-serialised JSON would not match the signature. */
  body: string | Uint8Array;
  /** How far the signed timestamp may be from this machine's clock, either way. Default 300 s. */
  toleranceSeconds?: number;
  /** The clock, for tests. */
  now?: Date;
  /**
   * Also accept a request signed only with `X-Service-Signature` v1 (a sched server older than v2). v1 does not
   * cover `webhook-id`, so `id` is then null; leave this off once your server sends v2.
   */
  allowV1?: boolean;
}

export type WebhookVerification = SignatureVerification;

/**
 * Checks a request sched sent to a receiver (webhook delivery or callback). Answers
 * `{ ok: true, scheme, id, timestamp }` or `{ ok: false, reason }` and never throws for a bad signature (only for a
 * body that is not raw, which is a programming error). `X-Service-Signature` v2 decides when present, else the
 * Standard Webhooks headers (v1 only with `allowV1`). Every scheme signs the timestamp, so stale requests (beyond
 * `toleranceSeconds`) are refused; v2 and Standard Webhooks sign `webhook-id` too, returned as `id`: deduplicate
 * by it, and a captured request replayed within the tolerance is refused as a duplicate.
 */
export function verifyWebhook(input: WebhookVerificationInput): WebhookVerification {
  const { body } = input;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(
      'verifyWebhook needs the raw request body (string, Buffer or Uint8Array), not parsed JSON',
    );
  }
  return verifySignature({
    secret: input.secret,
    headers: headerBag(input.headers),
    body,
    toleranceSeconds: input.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS,
    ...(input.now ? { now: input.now } : {}),
    ...(input.allowV1 ? { allowV1: true } : {}),
  });
}

/** Like `verifyWebhook`, but throws `SchedSignatureError` (with `reason`) unless the request is authentic. */
export function assertWebhook(input: WebhookVerificationInput): {
  scheme: SignatureScheme;
  id: string | null;
  timestamp: number;
} {
  const result = verifyWebhook(input);
  if (!result.ok) throw new SchedSignatureError(result.reason);
  return { scheme: result.scheme, id: result.id, timestamp: result.timestamp };
}

function headerBag(headers: WebhookHeaders): Record<string, string | string[] | undefined> {
  const bag: Record<string, string | string[] | undefined> = {};
  if (isFetchHeaders(headers)) {
    headers.forEach((value, name) => {
      bag[name] = value;
    });
  } else {
    for (const [name, value] of Object.entries(headers)) bag[name.toLowerCase()] = value;
  }
  // Repeated `webhook-signature` headers arrive joined by ", " (Headers and Node both do this); the Standard
  // Webhooks list separator is a space, and base64 never contains ", ", so rejoining is lossless.
  const signature = bag[WEBHOOK_SIGNATURE_HEADER];
  if (signature !== undefined) {
    bag[WEBHOOK_SIGNATURE_HEADER] = (Array.isArray(signature) ? signature.join(' ') : signature).replace(
      /,\s+/g,
      ' ',
    );
  }
  return bag;
}

/** Duck-typed, so Headers from another fetch implementation (node-fetch, a polyfill) work too. */
function isFetchHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof headers.forEach === 'function' && typeof headers.get === 'function';
}

/**
 * Every body sched POSTs to a `callback_url`, discriminated by `event`: `action.executed`, `action.failed`,
 * `action.expired`, `reminder.responded` (an action's), `chain.step.completed`, `chain.completed`, `chain.failed`...
 * (a chain's). `id` is the event's, the same on every retry: act once per id.
 */
export type CallbackEvent = ActionCallback | ChainCallback;

/** A request as web frameworks hand it over: a fetch `Request`, or its headers and raw body. */
export type CallbackRequest = Request | { headers: WebhookHeaders; body: string | Uint8Array };

/**
 * Verifies the signature of a callback request (the `webhook_secret` of its action, chain or template; several
 * while rotating) and answers its typed event. Throws `SchedSignatureError` (with `reason`) unless the request is
 * authentic, or when its body is not a callback. Reads a `Request`'s body, so pass a clone if you need it again.
 *
 * ```ts
 * const event = await parseCallback(request, process.env.SCHED_WEBHOOK_SECRET!);
 * if (event.event === 'action.failed') console.log(event.action_id, event.payload.error_message);
 * ```
 */
export async function parseCallback(
  request: CallbackRequest,
  secrets: string | readonly string[],
  options: Pick<WebhookVerificationInput, 'toleranceSeconds' | 'now'> = {},
): Promise<CallbackEvent> {
  const body = isRequest(request) ? await request.text() : request.body;
  assertWebhook({ secret: secrets, headers: request.headers, body, ...options });
  let event: unknown;
  try {
    event = JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch {
    throw new SchedSignatureError('body is not JSON');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { event?: unknown }).event !== 'string')
    throw new SchedSignatureError('body is not a sched callback (no event)');
  return event as CallbackEvent;
}

function isRequest(request: CallbackRequest): request is Request {
  return typeof (request as Request).text === 'function' && typeof (request as Request).method === 'string';
}
