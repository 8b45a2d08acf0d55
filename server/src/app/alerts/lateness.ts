import { smallestLateAfter } from '../../domain/alerts/definition.js';
import { lateDeliveryRules } from '../../persistence/alerts.js';
import type { Clock, LateDeliveryThresholds, Store } from '../ports.js';

/** How long a process trusts what it read: a new or changed `delivery.late` rule applies within this. */
export const LATE_AFTER_CACHE_MS = 10_000;
/** Accounts remembered at once; past it the memory starts over (a read per account costs one small query). */
const MAX_ACCOUNTS = 10_000;

/**
 * The smallest `late_after` of each account's `delivery.late` rules, cached per process for LATE_AFTER_CACHE_MS
 * (the database stays the source of truth). The delivery core asks only for an attempt later than the smallest
 * `late_after` any rule may set (1 s), so on time deliveries never reach it.
 */
export class LateAfterCache implements LateDeliveryThresholds {
  private readonly known = new Map<string, { value: Promise<number | null>; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  lateAfterMs(accountId: string): Promise<number | null> {
    const now = this.clock().getTime();
    const hit = this.known.get(accountId);
    if (hit && hit.until > now) return hit.value;
    if (this.known.size >= MAX_ACCOUNTS) this.known.clear();
    const value = lateDeliveryRules(this.store.sql, accountId).then(smallestLateAfter);
    // A failed read is not remembered: the next late delivery asks again.
    value.catch(() => this.known.delete(accountId));
    this.known.set(accountId, { value, until: now + LATE_AFTER_CACHE_MS });
    return value;
  }
}
