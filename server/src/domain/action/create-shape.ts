/** What a create has to write besides its row, as far as the choice of its statement shape goes. */
export interface CreateWork {
  /** An idempotency key or dedup keys: their advisory locks last until the commit. */
  locksKeys: boolean;
  /** An approval gate: recipients and attachments are written beside the row. */
  hasGate: boolean;
  /** The plan caps actions a month: the counter row is taken in the create's transaction. */
  quotaLimited: boolean;
  /** The destination host is counted against the unverified-domain threshold. */
  countsDestination: boolean;
}

/**
 * Whether a create needs a transaction of its own. Without keys to lock, a gate, a quota to take or a destination to
 * count, it is one INSERT (with its audit event, and its announcement when due within the look-ahead window), which
 * the API shares with the other creates of its turn of the event loop: a transaction per create would only add round
 * trips.
 */
export function createNeedsTransaction(w: CreateWork): boolean {
  return w.locksKeys || w.hasGate || w.quotaLimited || w.countsDestination;
}
