import { sqlValue } from './seed.js';

/**
 * The pg-boss jobs about these actions still ahead (created, retry or active) in any queue: their due attempts,
 * gate timers and pause ends. Once an action is final, or paused with this at 0, nothing is left that would send for
 * it, so a test checks "nothing more arrives" by waiting for this state rather than sleeping.
 */
export function jobsAhead(
  databaseUrl: string,
  actionIds: string[],
  /** Only gate timers of this kind (`reminder`, `timeout`, `escalation`). */
  kind?: string,
): Promise<number> {
  return sqlValue<number>(
    databaseUrl,
    `select count(*)::int from pgboss.job
      where state in ('created', 'retry', 'active') and data->>'actionId' = any($1::text[])
        and ($2::text is null or data->>'kind' = $2)`,
    [actionIds, kind ?? null],
  );
}

/** The states of an action's callbacks in the outbox, oldest first (`pending`, then `delivered`, `rejected`...). */
export async function callbackStates(databaseUrl: string, actionId: string): Promise<string[]> {
  return sqlValue<string[]>(
    databaseUrl,
    "select coalesce(array_agg(status order by created_at), '{}') from callback_deliveries where action_id = $1",
    [actionId],
  );
}
