import { z } from 'zod';
import { ACTION_STATES, BULK_OPERATION_STATES, BULK_OPERATIONS } from '../vocabulary.js';
import { ActionFilterFields, PauseBody, ReplayBody, ResumeBody, RunNowBody } from './action.js';
import { NullableTimestamp, paginationQuery, Timestamp, Uuid } from './common.js';

/** At most this many ids in one bulk operation given by ids; a filter has no such bound. */
export const MAX_BULK_IDS = 1000;
/** Bulk operations one account may have running at once; a start past it is refused (409). */
export const MAX_RUNNING_BULK_OPERATIONS = 3;

export const BulkOperationName = z.enum(BULK_OPERATIONS).meta({ id: 'BulkOperationKind' });
export const BulkOperationStatus = z.enum(BULK_OPERATION_STATES).meta({ id: 'BulkOperationStatus' });

export const BulkFilter = z
  .strictObject(ActionFilterFields)
  .meta({ id: 'BulkFilter', description: 'The filters of `GET /v1/actions`, with the same meaning.' });

export const BulkOperationCreate = z
  .object({
    operation: BulkOperationName,
    filter: BulkFilter.optional(),
    ids: z.array(Uuid).min(1).max(MAX_BULK_IDS).optional(),
    dry_run: z.boolean().default(true).meta({
      description:
        'Defaults to true: count what would change and change nothing. `false` starts the operation.',
    }),
    note: z
      .string()
      .max(1000)
      .optional()
      .meta({ description: "Shown on the operation and each action's timeline." }),
    expected_matched: z.number().int().min(0).optional().meta({
      description:
        "A start only: the dry run's `matched`. A snapshot that matches more (actions arrived since the dry run) is refused with 409 `conflict`, and nothing starts.",
    }),
    replay: ReplayBody.optional().meta({ description: '`replay` only: the overrides of each replay.' }),
    pause: PauseBody.omit({ note: true }).optional().meta({
      description: '`pause` only (required): `until`, `duration` or `indefinite: true`, as for one action.',
    }),
    resume: ResumeBody.optional().meta({ description: '`resume` only: what to do with what was missed.' }),
    reschedule: z
      .object({
        offset: z
          .string()
          .regex(/^-?\d{1,15}[smhdw]$/, 'must be a duration, optionally negative (e.g. 2h, -30m, 1d)')
          .meta({ description: "Moves each action's due time by this much (`-30m` earlier)." }),
      })
      .optional()
      .meta({
        description:
          "`reschedule` only (required): each pending action's next due time moved by `offset`, by the rules of `POST /v1/actions/{id}/reschedule` (a time in the past, or beyond the horizon, fails that action).",
      }),
    run: RunNowBody.optional().meta({ description: '`run` only: `ignore_window` for every action.' }),
  })
  .superRefine((b, ctx) => {
    if ((b.filter === undefined) === (b.ids === undefined))
      ctx.addIssue({ code: 'custom', path: ['filter'], message: 'give exactly one of filter or ids' });
    for (const part of ['replay', 'pause', 'resume', 'reschedule', 'run'] as const) {
      if (b[part] !== undefined && b.operation !== part)
        ctx.addIssue({ code: 'custom', path: [part], message: `is only for the ${part} operation` });
    }
    if (b.operation === 'reschedule' && b.reschedule === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['reschedule'],
        message: 'is required: give offset (e.g. 2h, -30m)',
      });
    if (b.expected_matched !== undefined && b.dry_run)
      ctx.addIssue({
        code: 'custom',
        path: ['expected_matched'],
        message: 'is only for a start (dry_run: false)',
      });
    if (b.operation === 'pause' && b.pause === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['pause'],
        message: 'is required: give until, duration or indefinite: true',
      });
  })
  .meta({
    id: 'BulkOperationCreate',
    description: `Exactly one of \`filter\` or \`ids\` (at most ${MAX_BULK_IDS}). At most ${MAX_RUNNING_BULK_OPERATIONS} operations of an account run at once.`,
  });
export type BulkOperationCreate = z.output<typeof BulkOperationCreate>;

export const BulkDryRun = z
  .object({
    dry_run: z.literal(true),
    operation: BulkOperationName,
    matched: z.number().int(),
    eligible: z.number().int().meta({ description: 'Matched actions the operation would change.' }),
    ineligible: z
      .partialRecord(z.enum(ACTION_STATES), z.number().int())
      .meta({ description: 'Matched actions it would skip, counted by their status.' }),
    sample_ids: z.array(Uuid).meta({ description: 'Up to 10 eligible actions, newest first.' }),
  })
  .meta({ id: 'BulkDryRun' });
export type BulkDryRun = z.infer<typeof BulkDryRun>;

export const BulkOperation = z
  .object({
    id: Uuid,
    operation: BulkOperationName,
    status: BulkOperationStatus,
    note: z.string().nullable(),
    filter: z.record(z.string(), z.unknown()).nullable(),
    matched: z.number().int().meta({ description: 'Actions snapshotted when the operation started.' }),
    processed: z.number().int(),
    affected: z
      .number()
      .int()
      .meta({ description: 'Actions the operation changed (a replay: replays made).' }),
    skipped: z.number().int().meta({ description: 'Actions no longer eligible when their turn came.' }),
    failed: z.number().int(),
    created_at: Timestamp,
    finished_at: NullableTimestamp,
  })
  .meta({ id: 'BulkOperation' });
export type BulkOperation = z.infer<typeof BulkOperation>;

export const BulkOperationListQuery = z.object({
  status: BulkOperationStatus.optional(),
  ...paginationQuery(25),
});
