import { foldFailedInbox } from '../../persistence/failed-inbox.js';
import type { Store } from '../ports.js';

/**
 * How often the failed inbox's deltas are folded into each account's base: a read adds the deltas since the last
 * fold, so a storm of failures between two folds costs the read a range of that many small index entries.
 */
export const FAILED_INBOX_FOLD_MS = 2_000;
/**
 * While folds find nothing, the wait between them doubles up to this: nothing waits on a fold (a read is exact
 * either way), so an idle server folds twice a minute, and the first fold of a storm comes at most this late.
 */
export const FAILED_INBOX_IDLE_FOLD_MS = 32_000;

/**
 * The failed inbox's kept total (persistence/failed-inbox.ts) folds its deltas into each account's base: exact at any
 * moment either way, the fold only keeps the read short. Any number of workers may run it at once.
 */
export class FailedInboxFold {
  constructor(private readonly store: Store) {}

  /** One fold; answers how many accounts' bases it moved. */
  fold(): Promise<number> {
    return foldFailedInbox(this.store.sql);
  }
}
