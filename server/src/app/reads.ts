import { type ReadTarget, type ReplicaHealth, readTarget, shouldRecordWrite } from '../domain/reads/route.js';
import { databaseFault } from '../persistence/availability.js';
import type { Sql } from '../persistence/database.js';
import { lastAccountWrite, recordAccountWrite, replicaLagSeconds } from '../persistence/replica.js';
import { systemClock, systemTimers } from './clock.js';
import type { Clock, Store, Timers } from './ports.js';

/** Whose read, and whether it named `consistency=strong`. */
export interface Reader {
  accountId: string;
  consistency?: 'strong' | 'eventual' | undefined;
}

/** Why a read that could have gone to the replica went to the primary instead (a metric's label). */
export type ReadFallback = 'replica_down' | 'replica_lagging' | 'replica_error';

/** What the routing reports: the measured lag (null: the replica does not answer), where reads went, fallbacks. */
export interface ReadEvents {
  lag(seconds: number | null): void;
  served(on: 'replica' | 'primary'): void;
  fellBack(why: ReadFallback): void;
}

export interface ReadLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** The replica's state as /readyz and the console show it. */
export interface ReplicaStatus {
  state: 'streaming' | 'lagging' | 'unavailable';
  lag_seconds: number | null;
  max_lag_seconds: number;
}

/** How often the replica's lag is measured. */
const PROBE_INTERVAL_MS = 1_000;
/** SQLSTATE 40001 on a standby: a query cancelled by a conflict with recovery; the primary answers it instead. */
const RECOVERY_CONFLICT = '40001';

/**
 * The one place that chooses where a read runs. Reads that may lag (lists, the inbox, stats, the console's reads,
 * the audit export) go to a streaming replica when `SCHED_READ_DATABASE_URL` is set and domain/reads/route.ts allows
 * it; everything else, and every read when no replica is configured, runs on the primary. An account's writes are
 * recorded in the primary (`account_writes`), so any API process keeps that account's next reads on the primary. A
 * read the replica fails for want of a connection runs again on the primary: a replica going away fails no request.
 * Use cases that read take a `Reads` (required); what builds them without a process's context passes `primaryReads`.
 */
export class Reads {
  private health: ReplicaHealth | undefined;
  private readonly recorded = new Map<string, Date>();
  private timer: { cancel(): void } | undefined;
  /** The state last logged, so each change is logged once. */
  private logged: ReplicaStatus['state'] | undefined;
  private closed = false;

  constructor(
    private readonly deps: {
      primary: Store;
      /** The replica's pool; undefined without SCHED_READ_DATABASE_URL. */
      replica: Store | undefined;
      /** Where account writes are recorded and looked up (the primary's counters pool). */
      bookkeeping: Store;
      policy: { maxLagSeconds: number; readYourWritesSeconds: number };
      clock: Clock;
      timers: Timers;
      events: ReadEvents;
      log: ReadLog;
    },
  ) {
    // Until the first measure, the replica is not trusted.
    if (deps.replica) this.health = { state: 'down' };
  }

  /** Measures the lag now and then once a second until `close`. */
  async start(): Promise<void> {
    if (!this.deps.replica) return;
    await this.measure();
    const tick = () => {
      this.timer = this.deps.timers.after(PROBE_INTERVAL_MS, () => {
        void this.measure().finally(() => {
          if (!this.closed) tick();
        });
      });
    };
    tick();
  }

  close(): void {
    this.closed = true;
    this.timer?.cancel();
  }

  /**
   * A read of the caller's account, on the replica when it may serve it: plain statements on the pool. Without a
   * reader (a read that must see the primary's latest, as a wait its announcement woke), on the primary.
   */
  run<T>(reader: Reader | undefined, fn: (db: Sql) => Promise<T>): Promise<T> {
    return this.routed(reader, (store) => fn(store.sql));
  }

  /** The same in one snapshot (a read-only repeatable-read transaction). */
  snapshot<T>(reader: Reader | undefined, fn: (db: Sql) => Promise<T>): Promise<T> {
    return this.routed(reader, (store) => store.snapshot(fn));
  }

  /** Whether writes are recorded at all: only reads routed to a replica can lag behind them. */
  get recordsWrites(): boolean {
    return this.deps.replica !== undefined;
  }

  /** Records an API write of `accountId` (at most once a second per process), when a replica is configured. */
  async wrote(accountId: string): Promise<void> {
    if (!this.deps.replica) return;
    const now = this.deps.clock();
    if (!shouldRecordWrite(this.recorded.get(accountId), now)) return;
    this.recorded.set(accountId, now);
    // Bounded: the throttle only needs the accounts of the last second.
    if (this.recorded.size > 10_000) this.recorded.clear();
    await recordAccountWrite(this.deps.bookkeeping.sql, accountId, now);
  }

  /** The replica's state; undefined when none is configured. */
  status(): ReplicaStatus | undefined {
    const h = this.health;
    if (!h) return undefined;
    const max = this.deps.policy.maxLagSeconds;
    if (h.state === 'down') return { state: 'unavailable', lag_seconds: null, max_lag_seconds: max };
    return {
      state: h.lagSeconds > max ? 'lagging' : 'streaming',
      lag_seconds: Math.round(h.lagSeconds * 1000) / 1000,
      max_lag_seconds: max,
    };
  }

  private async routed<T>(reader: Reader | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
    const { primary, replica } = this.deps;
    if (!reader) return fn(primary);
    const target = await this.target(reader);
    if (target.on === 'primary' || !replica) {
      if (target.on === 'primary' && (target.why === 'replica_down' || target.why === 'replica_lagging'))
        this.deps.events.fellBack(target.why);
      this.deps.events.served('primary');
      return fn(primary);
    }
    try {
      const result = await fn(replica);
      this.deps.events.served('replica');
      return result;
    } catch (err) {
      const fault = databaseFault(err);
      const conflict = (err as { code?: unknown }).code === RECOVERY_CONFLICT;
      if (fault !== 'unavailable' && fault !== 'timeout' && !conflict) throw err;
      if (!conflict) this.setHealth({ state: 'down' }, err);
      this.deps.events.fellBack('replica_error');
      this.deps.events.served('primary');
      return fn(primary);
    }
  }

  private async target(reader: Reader): Promise<ReadTarget> {
    const request = { strong: reader.consistency === 'strong', lastWriteAt: null, now: this.deps.clock() };
    const first = readTarget(request, this.health, this.deps.policy);
    // The account's last write is looked up only when it is what decides.
    if (first.on === 'primary') return first;
    const lastWriteAt = await lastAccountWrite(this.deps.bookkeeping.sql, reader.accountId);
    return readTarget({ ...request, lastWriteAt }, this.health, this.deps.policy);
  }

  private async measure(): Promise<void> {
    try {
      this.setHealth({ state: 'up', lagSeconds: await replicaLagSeconds(this.deps.replica!.sql) });
    } catch (err) {
      this.setHealth({ state: 'down' }, err);
    }
  }

  /** Logs each change of what the replica may serve: down, lagging past the bound, serving again. */
  private setHealth(next: ReplicaHealth, err?: unknown): void {
    const before = this.logged;
    this.health = next;
    this.deps.events.lag(next.state === 'up' ? next.lagSeconds : null);
    const now = this.status()!;
    if (before === now.state) return;
    this.logged = now.state;
    if (now.state === 'unavailable')
      this.deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        'read replica unavailable: its reads go to the primary',
      );
    else if (now.state === 'lagging')
      this.deps.log.warn(
        { lagSeconds: now.lag_seconds, maxLagSeconds: now.max_lag_seconds },
        'read replica lagging past its bound: its reads go to the primary',
      );
    else if (before !== undefined)
      this.deps.log.info({ lagSeconds: now.lag_seconds }, 'read replica serving reads');
  }
}

/**
 * Reads with no replica: every read on `store`, nothing recorded or measured. For use cases built without a
 * process's context (tests); the server builds its `Reads` in compose/context.ts.
 */
export function primaryReads(store: Store): Reads {
  const nothing = () => undefined;
  return new Reads({
    primary: store,
    replica: undefined,
    bookkeeping: store,
    policy: { maxLagSeconds: 0, readYourWritesSeconds: 0 },
    clock: systemClock,
    timers: systemTimers,
    events: { lag: nothing, served: nothing, fellBack: nothing },
    log: { warn: nothing, info: nothing },
  });
}
