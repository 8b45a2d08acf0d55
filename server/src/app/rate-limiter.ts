import {
  evaluate,
  RATE_LIMITS,
  type RateLimitName,
  type RateLimitRule,
  type RateLimitState,
  rule,
  tightest,
  windowStart,
} from '../domain/rate-limit/policy.js';
import {
  countHits,
  findKeyHoldersAndCount,
  type KeyHolder,
  type KeyHolderFound,
  type KeyHolderQuery,
  pruneWindows,
} from '../persistence/rate-limit-windows.js';
import { systemClock } from './clock.js';
import type { Clock, Store } from './ports.js';
import { TickBatch } from './tick-batch.js';

/** The window each named limit counts in at `now`. */
function windowOf(name: RateLimitName, now: Date): { start: Date; end: Date } {
  const start = windowStart(now, RATE_LIMITS[name].windowSeconds);
  return { start, end: new Date(start.getTime() + RATE_LIMITS[name].windowSeconds * 1000) };
}

/** Counts hits in PostgreSQL, so a limit holds across every API process. */
export class RateLimiter {
  /**
   * The authenticated requests of one turn of the event loop, found and counted in one statement. One statement is
   * under way at a time: the requests of the turns that end meanwhile go together in the next, so under load the
   * count costs a statement per round trip rather than one per turn, and a request waits at most one more for its own.
   */
  private readonly holders = new TickBatch<KeyHolderQuery, KeyHolderFound>(
    (queries) => findKeyHoldersAndCount(this.store.sql, queries, this.clock()),
    500,
    1,
  );

  constructor(
    private readonly store: Store,
    /** The one clock of the process; `now` arguments default to it. */
    readonly clock: Clock = systemClock,
  ) {}

  /**
   * Counts `weight` hits (one request, or the further items of a batch create) against every rule in one statement
   * (one round trip however many rules apply), and answers the tightest state: the one a refusal or the headers
   * show.
   */
  async check(rules: RateLimitRule[], weight = 1, now: Date = this.clock()): Promise<RateLimitState> {
    const windows = rules.map((r) => ({ bucket: `${r.name}:${r.subject}`, ...windowOf(r.name, now) }));
    const hits = await countHits(this.store.sql, windows, weight);
    return tightest(rules.map((r, i) => evaluate(r, hits.get(windows[i]!.bucket) ?? 1, now)));
  }

  /**
   * Finds the holder of an API key (by its hash) and counts the request against the named limits of that holder's
   * account (scaled by `globalFactor` and the account's own factor), in one statement shared with the other
   * requests of this turn of the event loop. Answers the holder and the tightest state; null for an unknown or
   * revoked key, for which nothing is counted.
   */
  async admitKeyHolder(
    keyHash: string,
    names: RateLimitName[],
    globalFactor: number,
    now: Date = this.clock(),
  ): Promise<{ holder: KeyHolder; state: RateLimitState } | null> {
    const windows = names.map((name) => ({ name, ...windowOf(name, now) }));
    const found = await this.holders.add({ keyHash, windows });
    if (!found) return null;
    const { holder, hits } = found;
    const factor = globalFactor * holder.rate_limit_factor;
    const state = tightest(
      names.map((name) =>
        evaluate(rule(name, holder.account_id, factor), hits[`${name}:${holder.account_id}`] ?? 1, now),
      ),
    );
    return { holder, state };
  }

  /** Drops finished windows; run periodically by workers. */
  async prune(now: Date = this.clock()): Promise<number> {
    return pruneWindows(this.store.sql, now);
  }
}
