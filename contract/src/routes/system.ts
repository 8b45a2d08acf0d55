import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { CHANNEL_STATE } from '../schemas/approval.js';
import { ErrorBody } from '../schemas/common.js';

const c = initContract();

export const Health = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    version: z.string().meta({ description: 'The running server release (as `sched --version` prints it).' }),
    checks: z.record(z.string(), z.string()).optional(),
    channels: z
      .record(z.string(), z.enum(CHANNEL_STATE))
      .optional()
      .meta({
        description:
          "`/readyz` only: each notification channel's state: `configured`, `outbox` (a development server keeps " +
          'its messages for `sched outbox list`) or `not_configured` (production: approvals using only such channels ' +
          'are refused at create). Informative: it never makes the answer 503.',
      }),
    read_replica: z
      .object({
        state: z.enum(['streaming', 'lagging', 'unavailable']),
        lag_seconds: z
          .number()
          .nullable()
          .meta({ description: 'Replay lag as last measured; null when down.' }),
        max_lag_seconds: z.number(),
      })
      .optional()
      .meta({
        description:
          '`/readyz` only, with `SCHED_READ_DATABASE_URL` set: the read replica. `lagging` (past `max_lag_seconds`) ' +
          'and `unavailable` send its reads to the primary. Informative: it never makes the answer 503.',
      }),
  })
  .meta({ id: 'Health' });

export const systemContract = c.router({
  healthz: {
    method: 'GET',
    path: '/healthz',
    responses: { 200: Health, 429: ErrorBody },
    summary: 'Liveness: the process is up',
    description:
      'Needs no key. Answers 200 while the process runs, with the release it runs. Probes share a generous ' +
      'per-IP rate limit, so a flood of them answers 429.',
    metadata: { auth: 'none' },
  },
  readyz: {
    method: 'GET',
    path: '/readyz',
    responses: { 200: Health, 429: ErrorBody, 503: Health },
    summary: 'Readiness: the database answers and migrations are current',
    description:
      'Needs no key. 200 when this process can serve: the database answers and no migration is pending; 503 ' +
      'with the failing check otherwise (the reason is logged, not shown). Rate-limited per IP like /healthz.',
    metadata: { auth: 'none' },
  },
});
