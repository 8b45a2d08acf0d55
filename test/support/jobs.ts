import { sqlValue } from './seed.js';

/**
 * The work still ahead for these actions: an attempt due or in flight (the actions table is the schedule: workers
 * claim from it), or a pg-boss job about them (created, retry or active: gate timers and pause ends). Once an action
 * is final, or paused with this at 0, nothing is left that would send for it, so a test checks "nothing more
 * arrives" by waiting for this state rather than sleeping. With `kind`, only gate timers of that kind count.
 */
export function workAhead(
  databaseUrl: string,
  actionIds: string[],
  /** Only gate timers of this kind (`reminder`, `timeout`, `escalation`). */
  kind?: string,
): Promise<number> {
  return sqlValue<number>(
    databaseUrl,
    `select (select count(*)::int from pgboss.job
              where state in ('created', 'retry', 'active') and data->>'actionId' = any($1::text[])
                and ($2::text is null or data->>'kind' = $2))
          + (select count(*)::int from actions
              where $2::text is null and id::text = any($1::text[])
                and (status = 'executing' or (status in ('scheduled', 'resolved') and next_attempt_at is not null)))`,
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
