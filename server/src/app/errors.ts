/** Typed errors of the use cases; one HTTP error handler maps them to statuses. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A schema issue, as zod (and Standard Schema) report them. */
interface Issue {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

/** `['request', 'url']` → `request.url`; array indexes stay numeric (`dedup_keys.0`). */
export function dottedPath(path: Issue['path']): string {
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
    super(404, `${what} not found`);
  }
}

export class ValidationError extends AppError {
  constructor(
    readonly errors: Record<string, string[]>,
    message = 'The given data was invalid.',
  ) {
    super(422, message);
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

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super(409, message);
  }
}

export class RateLimitedError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate limit exceeded');
  }
}

/** A response link that no longer works: the gate timed out, the action finished, or this person already answered. */
export class GoneError extends AppError {
  constructor(
    readonly reason: 'expired' | 'closed' | 'answered',
    readonly title: string,
  ) {
    super(
      410,
      reason === 'answered'
        ? 'you have already answered this request'
        : reason === 'expired'
          ? 'this request has expired'
          : 'this request is closed',
    );
  }
}
