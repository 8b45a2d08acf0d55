import { dueIndexPlan } from '../domain/action/due-horizon.js';
import { buildDueIndex, dropDueIndex, dueIndexes, withDueIndexLock } from '../persistence/due-index.js';
import type { Clock, Store } from './ports.js';

/**
 * The due index's days (domain/action/due-horizon.ts): today's bounded index built, the ones behind dropped, and the
 * unbounded index of a database the job had not yet run on replaced. Idempotent; run at every start (waiting for
 * another process's run) and every minute by the workers (skipped while another process runs it). A day's build
 * reads the whole table once; the check that finds nothing to do reads the catalog only.
 */
export class DueIndex {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async maintain(opts: { wait: boolean }): Promise<{ built: string | null; dropped: string[] } | null> {
    return withDueIndexLock(this.store.sql, opts.wait, async (connection) => {
      const plan = dueIndexPlan(this.clock(), await dueIndexes(connection));
      const built = plan.build ? await buildDueIndex(connection, plan.build) : null;
      const dropped: string[] = [];
      for (const bound of plan.drop) dropped.push(await dropDueIndex(connection, bound));
      if (plan.dropUnbounded) dropped.push(await dropDueIndex(connection, null));
      return { built, dropped };
    });
  }
}
