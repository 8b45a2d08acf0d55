import { randomUUID } from 'node:crypto';
import {
  type DestinationTestBody,
  type DestinationTestEvent,
  type DestinationTestResult,
  signRequest,
} from '@sched/contract';
import { destinationOrigin, namesScheme, parseDestination } from '../../domain/destinations/origin.js';
import {
  checkDestinationUrl,
  destinationSchemes,
  type PrivateAccess,
} from '../../domain/destinations/policy.js';
import { rule } from '../../domain/rate-limit/policy.js';
import { signingSecretsAt } from '../../persistence/accounts.js';
import type { Sql } from '../../persistence/database.js';
import { destinationKnown, lockDestination } from '../../persistence/destinations.js';
import { recordAudit } from '../audit.js';
import { takeFlowSlot } from './breaker.js';
import { NotFoundError, RateLimitedError, ValidationError } from '../errors.js';
import type { Clock, Outbound, RequestSigning, Store } from '../ports.js';
import type { RateLimiter } from '../rate-limiter.js';

/** A test runs inside the API request that asked for it: shorter than a delivery's 30 s. */
const TEST_TIMEOUT_MS = 10_000;
/** What of the answer's body the caller sees. */
const EXCERPT_CHARS = 512;

export interface DestinationTestsDeps {
  store: Store;
  clock: Clock;
  outbound: Outbound;
  signing: RequestSigning;
  allowPrivateDestinations: PrivateAccess;
  /** Counts tests per destination in PostgreSQL, so the limit holds across API processes. */
  rateLimiter?: Pick<RateLimiter, 'check'> | undefined;
}

/**
 * The URL a test goes to and the origin it tests. A destination named by its origin is tested there; a bare host is
 * tested on the body's scheme and port (https and its default port unless given), bracketed when an IPv6 address.
 */
function testTarget(destination: string, body: DestinationTestBody): { url: string; origin: string } | null {
  const key = parseDestination(destination);
  if (!key) return null;
  // A URL's hostname keeps an IPv6 literal's brackets, so the host goes into the URL as it is.
  const base = namesScheme(destination)
    ? key.origin
    : `${body.scheme}://${key.host}${body.port === undefined ? '' : `:${body.port}`}`;
  const origin = destinationOrigin(base);
  return origin ? { url: `${origin}${body.path}`, origin } : null;
}

/** No action's id: a test is not one of the requests in flight it counts. */
const NO_ACTION = '00000000-0000-0000-0000-000000000000';

/**
 * The host's flow control, as a delivery meets it but without waiting: a test is one more request of the host's
 * rate window, and none is sent while the host is at its parallelism or rate. Answers when to try again, or null
 * (admitted, and counted).
 */
async function testFlowSlot(db: Sql, accountId: string, origin: string, now: Date): Promise<Date | null> {
  const row = await lockDestination(db, accountId, origin);
  if (!row?.flow) return null;
  return takeFlowSlot(db, row.flow, row, { accountId, origin, actionId: NO_ACTION, now });
}

/**
 * `POST /v1/destinations/{origin}/test`: one signed `sched.test` request, sent now, whose outcome is the answer. It
 * is no action (no quota, no attempt, no circuit statistics) and goes out whatever the destination's pause or circuit
 * says, since it is how an operator checks that a receiver is back; what bounds it is one test per destination every
 * few seconds, and the destination's own flow control.
 */
export class DestinationTests {
  constructor(private readonly deps: DestinationTestsDeps) {}

  async send(
    accountId: string,
    destination: string,
    body: DestinationTestBody,
  ): Promise<DestinationTestResult> {
    const allowPrivate = this.deps.allowPrivateDestinations;
    const target = testTarget(destination, body);
    if (!target)
      throw ValidationError.field('host', 'must be an origin (https://api.example.com:8443) or a host');
    const { url, origin } = target;
    if (url.startsWith('http:') && !destinationSchemes(allowPrivate).includes('http:'))
      throw ValidationError.field(
        'scheme',
        'must be https (http only where private destinations are allowed)',
      );
    // The destination policy, judged here on the name or literal address (422, nothing sent) and again by the
    // outbound client on the address it connects to (a name resolving to a private address: `error`).
    const checked = checkDestinationUrl(url, { allowPrivate });
    if (!checked.ok) throw ValidationError.field('host', checked.message);
    if (!(await destinationKnown(this.deps.store.sql, accountId, origin)))
      throw new NotFoundError('destination');
    const now = this.deps.clock();
    // Each test is a request to someone's host on the account's behalf: a burst of them must not become a flood.
    const limit = await this.deps.rateLimiter?.check(
      [rule('destinationTests', `${accountId}:${origin}`, 1)],
      1,
      now,
    );
    if (limit && !limit.allowed) throw new RateLimitedError(limit.retryAfterSeconds);
    const heldUntil = await this.deps.store.transaction((db) => testFlowSlot(db, accountId, origin, now));
    if (heldUntil)
      throw new RateLimitedError(
        Math.max(1, Math.ceil((heldUntil.getTime() - now.getTime()) / 1000)),
        "the host's flow control is at its limit: a test waits for no slot",
      );

    const { current } = await signingSecretsAt(this.deps.store.sql, accountId, now);
    // During a rotation's overlap, both the new secret and the one it replaces sign, as for a delivery.
    const secrets = current ? await this.deps.signing.secretsFor(accountId, current) : [];
    const messageId = `test_${randomUUID()}`;
    const event: DestinationTestEvent = {
      type: 'sched.test',
      id: messageId,
      destination: origin,
      sent_at: now.toISOString(),
      message: 'A test request from sched: nothing to do. Check its signature, then answer 2xx.',
    };
    const payload = JSON.stringify(event);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'x-sched-event': 'sched.test',
    };
    if (secrets.length > 0) {
      const signed = signRequest({
        secret: secrets,
        messageId,
        timestamp: Math.floor(now.getTime() / 1000),
        body: payload,
      });
      for (const [name, value] of Object.entries(signed)) headers[name.toLowerCase()] = value;
    }
    const result = await this.deps.outbound.send({
      url,
      method: 'POST',
      headers,
      body: payload,
      timeoutMs: TEST_TIMEOUT_MS,
      maxResponseBytes: EXCERPT_CHARS * 4,
    });
    const answer: DestinationTestResult = {
      url,
      status: result.kind === 'response' ? result.status : null,
      duration_ms: Math.round(result.durationMs),
      signed: secrets.length > 0,
      ...(result.kind === 'response'
        ? result.bodyExcerpt
          ? { response_excerpt: result.bodyExcerpt.slice(0, EXCERPT_CHARS) }
          : {}
        : { error: result.message }),
    };
    // The outcome, not the answer's body: a receiver's text has no place in the audit log.
    await this.deps.store.transaction((db) =>
      recordAudit(db, accountId, {
        action: 'destination.test',
        resource: { type: 'destination', id: origin },
        details: { url, status: answer.status, ...(answer.error ? { error: answer.error } : {}) },
      }),
    );
    return answer;
  }
}
