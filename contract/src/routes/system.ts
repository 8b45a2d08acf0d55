import { initContract } from '@ts-rest/core';
import { z } from 'zod';

const c = initContract();

export const Health = z
  .object({ status: z.enum(['ok', 'unavailable']), checks: z.record(z.string(), z.string()).optional() })
  .meta({ id: 'Health' });

export const systemContract = c.router({
  healthz: {
    method: 'GET',
    path: '/healthz',
    responses: { 200: Health },
    summary: 'Liveness: the process is up',
    metadata: { auth: 'none', rateLimited: false },
  },
  readyz: {
    method: 'GET',
    path: '/readyz',
    responses: { 200: Health, 503: Health },
    summary: 'Readiness: the database answers and migrations are current',
    metadata: { auth: 'none', rateLimited: false },
  },
});
