import type { ActionScheduler, Clock, Store } from '../app/ports.js';
import { RESOLVE_WINDOW_MS, withinAnnounceWindow } from '../domain/schedule/window.js';
import type { Sql } from '../persistence/database.js';
import { announceDue, type DueShare, type MemberShare, promoteEntering } from '../persistence/schedule.js';

/** Channel on which workers hear of attempts due soon (`id,dueMs`), to wake in time for them. */

/** At most this many attempts are promoted per statement of the scan; a fuller window is taken in several turns. */
const PROMOTE_BATCH = 2_000;

export interface WindowScheduler extends ActionScheduler {
  /**
   * Moves the worker's `scheduled` attempts entering the window to `resolved`, in batches, and answers the earliest
   * due time of the worker's share (its firing loop's safety net) and, for a share named by its member, the live
   * members the statement read.
   */
  promoteEntering(
    store: Store,
    share: DueShare | MemberShare,
  ): Promise<{ nextDue: Date | null; members: number[] | null }>;
}

/**
 * Durable scheduling: the `actions` row is the schedule (its `next_attempt_at`, in the partial due index), and
 * workers claim from it directly (app/deliveries/firing.ts), so scheduling writes nothing else. An attempt due within
 * a few seconds is announced (a NOTIFY, delivered at commit), so the worker that owns it wakes in time; a later one is
 * found by that worker's scan of the due index, every second, before it falls due (domain/schedule/window.ts).
 */
export function createActionScheduler(clock: Clock): WindowScheduler {
  const announce = (db: Sql, attempts: readonly { actionId: string; dueAt: Date }[]) => {
    const now = clock();
    return announceDue(
      db,
      attempts.filter((a) => withinAnnounceWindow(a.dueAt, now)),
    );
  };
  return {
    schedule: (db, actionId, dueAt) => announce(db, [{ actionId, dueAt }]),
    announce,

    async promoteEntering(store, share) {
      for (;;) {
        const now = clock();
        const { promoted, nextDue, members } = await promoteEntering(store.sql, {
          until: new Date(now.getTime() + RESOLVE_WINDOW_MS),
          now,
          limit: PROMOTE_BATCH,
          share,
        });
        if (promoted < PROMOTE_BATCH) return { nextDue, members };
      }
    },
  };
}
