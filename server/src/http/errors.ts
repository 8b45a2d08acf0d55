import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestValidationError } from '@ts-rest/fastify';
import { AppError, codeOfStatus, errorBody, issuesToErrors, validationMessage } from '../app/errors.js';

export { issuesToErrors } from '../app/errors.js';

type Issue = Parameters<typeof issuesToErrors>[0][number];

function issuesOf(e: unknown): Issue[] {
  return ((e as { issues?: Issue[] } | null)?.issues ?? []) as Issue[];
}

/** ts-rest hands request-validation failures here: the 422 with dotted paths, or 404 for a malformed id. */
export function requestValidationErrorHandler(
  err: RequestValidationError,
  _req: FastifyRequest,
  reply: FastifyReply,
): void {
  if (err.pathParams) {
    void reply.status(404).send({ code: 'not_found', message: 'resource not found' });
    return;
  }
  const errors = {
    ...issuesToErrors(issuesOf(err.query), 'query'),
    ...issuesToErrors(issuesOf(err.headers), 'headers'),
    ...issuesToErrors(issuesOf(err.body), 'body'),
  };
  void reply.status(422).send({ code: 'validation_failed', message: validationMessage(errors), errors });
}

/**
 * One place maps every error to a status and a stable `code` (contract's ERROR_CODES): messages below 500, a
 * generic text above.
 */
export function errorHandler(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  // Rate limits and the monthly quota: 429 with Retry-After.
  if (
    error instanceof AppError &&
    'retryAfterSeconds' in error &&
    typeof error.retryAfterSeconds === 'number'
  ) {
    void reply
      .header('Retry-After', String(error.retryAfterSeconds))
      .status(error.status)
      .send(errorBody(error));
    return;
  }
  if (error instanceof AppError) {
    void reply.status(error.status).send(errorBody(error));
    return;
  }
  const fe = error as FastifyError;
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      void reply.status(400).send({ code: 'malformed_body', message: 'malformed JSON body' });
      return;
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      void reply.status(413).send({ code: 'payload_too_large', message: 'request body too large' });
      return;
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      void reply.status(415).send({
        code: 'unsupported_media_type',
        message: 'unsupported content type: send application/json',
      });
      return;
  }
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    void reply.status(fe.statusCode).send({ code: codeOfStatus(fe.statusCode), message: fe.message });
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  void reply.status(500).send({ code: 'internal_error', message: 'internal server error' });
}

/** Seconds a client is told to wait before retrying while the database is away. */
const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * The database is away (a crash, a restart, a failover) or did not answer in time: 503 with Retry-After, the spec's
 * error shape and no stack; the outage itself is logged once by the process's availability tracker.
 */
export function databaseUnavailable(reply: FastifyReply, fault: 'unavailable' | 'slow'): void {
  void reply
    .header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS))
    .status(503)
    .send({
      message:
        fault === 'slow'
          ? 'the database did not answer in time; retry shortly'
          : 'the database is unavailable; retry shortly',
      code: 'service_unavailable',
    });
}
