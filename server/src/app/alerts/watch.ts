import type { OperatorEventType } from '@sched/contract';
import { smallestLateAfter } from '../../domain/alerts/definition.js';
import { watchingRules } from '../../persistence/alerts.js';
import type { Sql } from '../../persistence/database.js';
import type { Clock, LateDeliveryThresholds, Store } from '../ports.js';

/**
 * How long a process trusts what it read when no change is announced (the LISTEN connection was down, or this
 * process has none): a new or changed rule applies within this at worst.
 */
export const WATCH_CACHE_MS = 10_000;
/** Accounts remembered at once; past it the memory starts over (a read per account costs one small query). */
const MAX_ACCOUNTS = 10_000;

interface Watched {
  types: ReadonlySet<OperatorEventType>;
  lateAfterMs: number | null;
}

/**
 * What each account's enabled rules watch, cached per process: so an event no rule watches (every event of an
 * account without rules) costs no statement at all, and a delivery is compared with the smallest `late_after` without
 * a read. The database stays the source of truth: recording checks the rules again in its statement, a rule change
 * is announced at commit (`forget`, wired to the worker's LISTEN connection), and nothing is trusted longer than
 * WATCH_CACHE_MS.
 */
export class AlertWatch implements LateDeliveryThresholds {
  private readonly known = new Map<string, { value: Promise<Watched>; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Whether an enabled rule of the account watches `type`. `via`: the caller's transaction, read on (on a miss)
   * rather than taking a second connection while it holds one.
   */
  async watches(accountId: string, type: OperatorEventType, via?: Sql): Promise<boolean> {
    return (await this.read(accountId, via)).types.has(type);
  }

  /** The smallest `late_after` of the account's rules watching `delivery.late`, or null. */
  async lateAfterMs(accountId: string): Promise<number | null> {
    return (await this.read(accountId)).lateAfterMs;
  }

  /** The account's rules changed (or, without an id, anything may have: a LISTEN connection came back). */
  forget(accountId?: string): void {
    if (accountId === undefined) this.known.clear();
    else this.known.delete(accountId);
  }

  private read(accountId: string, via: Sql = this.store.sql): Promise<Watched> {
    const now = this.clock().getTime();
    const hit = this.known.get(accountId);
    if (hit && hit.until > now) return hit.value;
    if (this.known.size >= MAX_ACCOUNTS) this.known.clear();
    const value = watchingRules(via, accountId).then((rules) => ({
      types: new Set(rules.flatMap((r) => r.events)),
      lateAfterMs: smallestLateAfter(rules),
    }));
    // A failed read is not remembered: the next event asks again.
    value.catch(() => {
      if (this.known.get(accountId)?.value === value) this.known.delete(accountId);
    });
    this.known.set(accountId, { value, until: now + WATCH_CACHE_MS });
    return value;
  }
}
