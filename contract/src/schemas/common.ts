import { z } from 'zod';
import { ERROR_CODES } from '../vocabulary.js';

type ErrorCodeName = keyof typeof ERROR_CODES;

/** The stable `code` of an error answer; the list and each code's status are in `ERROR_CODES`. */
export const ErrorCode = z.enum(Object.keys(ERROR_CODES) as [ErrorCodeName, ...ErrorCodeName[]]).meta({
  id: 'ErrorCode',
  description: `A stable, machine-readable error code (branch on it; \`message\` may be reworded):\n${Object.entries(
    ERROR_CODES,
  )
    .map(([code, { status, meaning }]) => `- \`${code}\` (${status}): ${meaning}`)
    .join('\n')}`,
});
export type ErrorCode = ErrorCodeName;

/** Body of every error answer except 422: a stable `code` and a human-readable message. */
export const ErrorBody = z
  .object({ code: ErrorCode, message: z.string() })
  .meta({ id: 'Error', description: 'Error answer for every status except 422.' });

/** 422 body: field paths use dots, as in `request.url` or `dedup_keys.0`. */
export const ValidationErrorBody = z
  .object({
    code: z.literal('validation_failed'),
    message: z.string(),
    errors: z.record(z.string(), z.array(z.string())),
  })
  .meta({
    id: 'ValidationError',
    description:
      'Validation failure (`code` is `validation_failed`). `errors` maps dotted field paths (e.g. `request.url`) to messages; `message` repeats the first of them.',
  });

/** Past this many matching items a list's `total` is an estimate: counting millions of rows takes seconds. */
export const EXACT_TOTAL_LIMIT = 10_000;
/** The limit as the descriptions print it. */
export const exactTotalLimit = EXACT_TOTAL_LIMIT.toLocaleString('en-US');

export const PaginationMeta = z
  .object({
    current_page: z.number().int(),
    last_page: z.number().int(),
    total: z
      .number()
      .int()
      .meta({
        description: `How many items the filter matches: counted exactly up to ${exactTotalLimit}; past that, PostgreSQL's estimate (\`total_exact\` false), since counting millions of rows takes seconds.`,
      }),
    total_exact: z
      .boolean()
      .optional()
      .meta({
        description: `Present, and false, only when \`total\` (and so \`last_page\`) is an estimate: more than ${exactTotalLimit} items match. Walk such a list until a page comes back shorter than \`per_page\`.`,
      }),
    per_page: z.number().int(),
  })
  .meta({ id: 'PaginationMeta' });

export const Uuid = z.uuid();

/** `<integer><s|m|h|d|w>`: one grammar for waits, timeouts, snoozes and delays. */
export const Duration = z
  .string()
  .regex(
    /^\d{1,15}[smhdw]$/,
    'must be a whole number followed by s, m, h, d or w (e.g. 30s, 10m, 2h, 7d, 1w)',
  )
  .meta({ id: 'Duration', examples: ['30s', '10m', '4h', '7d'] });
export const Timestamp = z.string().meta({ format: 'date-time' });
export const NullableTimestamp = Timestamp.nullable();

/** Single resources are wrapped as `{ data }`. */
export function single<T extends z.ZodType>(item: T) {
  return z.object({ data: item });
}

/** Lists are `{ data: [...], meta }`. */
export function paginated<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), meta: PaginationMeta });
}

/** Query parameters arrive as strings; coerce and bound them. */
export function paginationQuery(defaultPerPage: number) {
  return {
    page: z.coerce.number().int().min(1).max(1_000_000).default(1),
    per_page: z.coerce.number().int().min(1).max(100).default(defaultPerPage),
  };
}

/** An email address, as every email field of the API accepts it. */
export const Email = z.email();

/** E.164: a plus sign, a non-zero digit, up to 15 digits in all. */
export const E164 = z
  .string()
  .regex(/^\+[1-9]\d{1,14}$/, 'must be an E.164 phone number such as +15551234567');

/**
 * `consistency` of the reads a server may answer from its read replica (`SCHED_READ_DATABASE_URL`): `strong` reads
 * the primary, as every read does without a replica.
 */
export const ReadConsistencyFields = {
  consistency: z
    .enum(['eventual', 'strong'])
    .optional()
    .meta({
      description:
        '`strong` reads the primary database. Otherwise (`eventual`, the default) a server with a read replica may ' +
        "answer from it, a few seconds behind at most, except right after the account's own writes (docs/scale.md).",
    }),
};
export const ReadConsistencyQuery = z.object(ReadConsistencyFields);

/** Errors every authenticated endpoint can answer. */
export const authErrors = {
  401: ErrorBody,
  403: ErrorBody,
  422: ValidationErrorBody,
  429: ErrorBody,
} as const;
