import { type ErrorCode, issueMessage } from '@sched/contract';
import { z } from 'zod';

// Schema issues without a message of their own are worded by the contract's map, in the voice of its messages
// ("must be at most 10"), not zod's defaults ("Too big: expected number to be <=10"). Set once for the process:
// every use case that validates imports this module.
z.config({ customError: issueMessage });

/**
 * Typed errors of the use cases; one HTTP error handler maps them to statuses. `code` is the stable,
 * machine-readable name of the error (contract's ERROR_CODES); `message` is for people.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: ErrorCode = codeOfStatus(status),
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The code of an error known only by its status (Fastify's own 4xx, say). */
export function codeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 410:
      return 'gone';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    case 422:
      return 'validation_failed';
    case 429:
      return 'rate_limited';
    case 503:
      return 'service_unavailable';
    default:
      return status >= 500 ? 'internal_error' : 'bad_request';
  }
}

/** The JSON body of an error answer: `{ code, message }`, plus `errors` for a validation failure. */
export function errorBody(error: AppError): {
  code: ErrorCode;
  message: string;
  errors?: Record<string, string[]>;
} {
  return error instanceof ValidationError
    ? { code: error.code, message: error.message, errors: error.errors }
    : { code: error.code, message: error.message };
}

/** The top-level message of a 422: the first field's first message, and how many more fields failed. */
export function validationMessage(errors: Record<string, string[]>): string {
  const entries = Object.entries(errors);
  const first = entries[0];
  if (!first) return 'the request is invalid';
  const more = entries.length - 1;
  return `${first[0]}: ${first[1][0]}${more > 0 ? ` (and ${more} more error${more > 1 ? 's' : ''})` : ''}`;
}

/** A schema issue, as zod (and Standard Schema) report them. */
interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/** `['request', 'url']` → `request.url`; array indexes stay numeric (`dedup_keys.0`). */
function dottedPath(path: Issue['path']): string {
  return (path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p)).join('.');
}

/** Schema issues as the 422 `errors` map; an issue without a path is filed under `root`. */
export function issuesToErrors(issues: readonly Issue[], root: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    const key = dottedPath(issue.path) || root;
    errors[key] = [...(errors[key] ?? []), issue.message];
  }
  return errors;
}

export class NotFoundError extends AppError {
  constructor(what = 'resource') {
    super(404, `${what} not found`, 'not_found');
  }
}

export class ValidationError extends AppError {
  constructor(
    readonly errors: Record<string, string[]>,
    message = validationMessage(errors),
  ) {
    super(422, message, 'validation_failed');
  }

  static field(path: string, message: string): ValidationError {
    return new ValidationError({ [path]: [message] });
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'missing or invalid API key') {
    super(401, message);
  }
}

/** The API key lacks a scope (`forbidden`), or the plan lacks a feature (`plan_required`) or room (`plan_limit_reached`). */
export class ForbiddenError extends AppError {
  constructor(message: string, code: 'forbidden' | 'plan_required' | 'plan_limit_reached' = 'forbidden') {
    super(403, message, code);
  }
}

/** A gate's `exclude_requester` used their own link: they may not approve their own request. */
export class RequesterError extends ForbiddenError {
  constructor(readonly title: string) {
    super('you requested this approval, so your answer cannot count towards it');
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

/** The server cannot serve now (shutting down, database unreachable): 503, worth retrying. */
export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message, 'service_unavailable');
  }
}

export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    message = 'rate limit exceeded',
  ) {
    super(429, message, 'rate_limited');
  }
}

const GONE_MESSAGES = {
  answered: 'you have already answered this request',
  expired: 'this request has expired',
  closed: 'this request is closed',
  reassigned: 'this request was reassigned to someone else',
} as const;

/**
 * A response link that no longer works: the gate timed out, the action finished, this person already answered, or
 * the request was handed over to someone else.
 */
export class GoneError extends AppError {
  constructor(
    readonly reason: keyof typeof GONE_MESSAGES,
    readonly title: string,
  ) {
    super(410, GONE_MESSAGES[reason]);
  }
}
