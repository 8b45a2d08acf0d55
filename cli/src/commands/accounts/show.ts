import type { Plan } from '@sched/server';
import { parseNumber, UsageError } from '../../runtime.js';
import { serverModule } from '../../server-package.js';

/** The columns of an account in tables. */
export const ACCOUNT_COLUMNS = ['id', 'name', 'plan', 'rate_limit_factor'];

/** `--plan`, checked against the server's plans. */
export async function parsePlan(text: string): Promise<Plan> {
  const { PLANS } = await serverModule();
  if (!(PLANS as readonly string[]).includes(text))
    throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return text as Plan;
}

/** `--rate-limit-factor`: a positive number, when given. */
export function parseRateLimitFactor(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseNumber('--rate-limit-factor', text);
}
