import type {
  BulkOperationCreate,
  Destination,
  DestinationPauseBody,
  DestinationRecoverBody,
  DestinationSummary,
  DestinationUpdate,
} from '@sched/contract';
import { CIRCUIT_DEFAULTS, circuitAt, circuitOf } from '../../domain/destinations/circuit.js';
import {
  circuitRecordOf,
  type DestinationRow,
  destinationCounts,
  destinationLoad,
  destinationStats,
  findDestination,
  listDestinationRows,
  upsertDestination,
} from '../../persistence/destinations.js';
import type { Principal } from '../accounts.js';
import type { BulkCreateResult, BulkOperations } from '../bulk/service.js';
import { recordAudit } from '../audit.js';
import { ValidationError } from '../errors.js';
import type { Clock, DestinationWakes, Store } from '../ports.js';
import type { Sql } from '../../persistence/database.js';
import type { Reader, Reads } from '../reads.js';
import { type CircuitBreaker, pausedNow } from './breaker.js';

const DAY_MS = 86_400_000;

/**
 * Destinations as the API sees them: one host of one account, its settings, its pause, its load and its
 * last day of attempts. A host without a row answers the defaults. Every query is scoped to the caller's account.
 */
export class Destinations {
  constructor(
    private readonly store: Store,
    private readonly bulk: BulkOperations,
    private readonly clock: Clock,
    private readonly breaker: CircuitBreaker,
    private readonly wakes: DestinationWakes,
    /** The list (counts over the account's actions) on the read replica when allowed (app/reads.ts). */
    private readonly reads?: Reads,
  ) {}

  async list(accountId: string, q: Pick<Reader, 'consistency'> = {}): Promise<DestinationSummary[]> {
    const now = this.clock();
    const read = (db: Sql) =>
      Promise.all([destinationCounts(db, accountId), listDestinationRows(db, accountId)]);
    const [counts, rows] = this.reads
      ? await this.reads.run({ accountId, consistency: q.consistency }, read)
      : await read(this.store.sql);
    const byHost = new Map(rows.map((r) => [r.host, r]));
    const hosts = [...new Set([...counts.map((c) => c.host), ...byHost.keys()])].sort();
    const countOf = new Map(counts.map((c) => [c.host, c]));
    return hosts.map((host) => {
      const c = countOf.get(host);
      const row = byHost.get(host);
      return {
        host,
        paused: pausedNow(row, now),
        circuit_state: circuitAt(circuitRecordOf(row), circuitOf(row?.circuit), now).record.state,
        configured: !!(row?.flow || row?.circuit),
        actions: c?.actions ?? 0,
        scheduled: c?.scheduled ?? 0,
        in_flight: c?.inFlight ?? 0,
        failed: c?.failed ?? 0,
      };
    });
  }

  async get(accountId: string, host: string): Promise<Destination> {
    return this.view(accountId, host, await findDestination(this.store.sql, accountId, host));
  }

  /** Settings that turn the breaker off close its circuit (and release what it held) in the same transaction. */
  async update(accountId: string, host: string, body: DestinationUpdate): Promise<Destination> {
    const flow = body.flow && Object.keys(body.flow).length ? body.flow : null;
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        host,
        now: this.clock(),
        ...(body.flow !== undefined ? { flow } : {}),
        ...(body.circuit !== undefined ? { circuit: body.circuit } : {}),
      });
      // The settings as set: limits and thresholds, nothing secret.
      await recordAudit(db, accountId, {
        action: 'destination.update',
        resource: { type: 'destination', id: host },
        details: {
          ...(body.flow !== undefined ? { flow } : {}),
          ...(body.circuit !== undefined ? { circuit: body.circuit } : {}),
        },
      });
      if (circuitOf(saved.circuit).enabled || saved.circuit_state === 'closed') return saved;
      await this.breaker.reset(db, { accountId, host }, 'turn_off');
      return (await findDestination(db, accountId, host))!;
    });
    return this.view(accountId, host, row);
  }

  /** With `until`, a wake at that moment releases the held deliveries; without, `resume` does. */
  async pause(accountId: string, host: string, body: DestinationPauseBody): Promise<Destination> {
    const now = this.clock();
    const until = body.until === undefined ? null : new Date(body.until);
    if (until && until <= now) throw ValidationError.field('until', 'must be in the future');
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        host,
        now,
        pause: { at: now, until, note: body.note ?? null },
      });
      if (until) await this.wakes.wakeAt(db, { accountId, host }, until);
      await recordAudit(db, accountId, {
        action: 'destination.pause',
        resource: { type: 'destination', id: host },
        details: { until: until?.toISOString() ?? null, note: body.note ?? null },
      });
      return saved;
    });
    return this.view(accountId, host, row);
  }

  /** Held deliveries go out again at once: a wake fires them (within the host's flow control and circuit). */
  async resume(accountId: string, host: string): Promise<Destination> {
    const now = this.clock();
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        host,
        now,
        pause: { at: null, until: null, note: null },
      });
      await this.wakes.wakeAt(db, { accountId, host }, now);
      await recordAudit(db, accountId, {
        action: 'destination.resume',
        resource: { type: 'destination', id: host },
      });
      return saved;
    });
    return this.view(accountId, host, row);
  }

  /** Closes the circuit, whatever its state (a disabled one waits for this), and releases what it held. */
  async enable(accountId: string, host: string): Promise<Destination> {
    await this.store.transaction(async (db) => {
      await this.breaker.reset(db, { accountId, host }, 'enable');
      await recordAudit(db, accountId, {
        action: 'destination.enable',
        resource: { type: 'destination', id: host },
      });
    });
    return this.get(accountId, host);
  }

  /** A bulk `retry` of the host's actions that failed in [since, until): the bulk operation's own answers. */
  recover(principal: Principal, host: string, body: DestinationRecoverBody): Promise<BulkCreateResult> {
    if (body.until !== undefined && Date.parse(body.until) <= Date.parse(body.since))
      throw ValidationError.field('until', 'must be after since');
    const create: BulkOperationCreate = {
      operation: 'retry',
      filter: {
        destination_host: host,
        failed_after: body.since,
        ...(body.until !== undefined ? { failed_before: body.until } : {}),
      },
      dry_run: body.dry_run,
      note: body.note ?? `recover ${host} since ${body.since}`,
    };
    return this.bulk.create(principal, create);
  }

  private async view(accountId: string, host: string, row: DestinationRow | undefined): Promise<Destination> {
    const now = this.clock();
    const [load, stats] = await Promise.all([
      destinationLoad(this.store.sql, accountId, host, now),
      destinationStats(this.store.sql, accountId, host, new Date(now.getTime() - DAY_MS)),
    ]);
    const paused = pausedNow(row, now);
    const settings = { ...CIRCUIT_DEFAULTS, ...(row?.circuit ?? {}) };
    // As time has moved it: past `next_probe_at` an open circuit is half-open (its next delivery is the probe).
    const circuit = circuitAt(circuitRecordOf(row), circuitOf(row?.circuit), now).record;
    return {
      host,
      flow: row?.flow ?? null,
      circuit: {
        state: circuit.state,
        ...settings,
        opened_at: circuit.openedAt?.toISOString() ?? null,
        next_probe_at: circuit.nextProbeAt?.toISOString() ?? null,
        reopens: circuit.reopens,
      },
      paused,
      pause:
        paused && row
          ? {
              paused_at: row.paused_at!.toISOString(),
              until: row.paused_until?.toISOString() ?? null,
              note: row.pause_note,
            }
          : null,
      in_flight: load.inFlight,
      waiting: load.waiting,
      stats: {
        last_24h: {
          attempts: stats.attempts,
          failures: stats.failures,
          p50_ms: stats.p50,
          p99_ms: stats.p99,
        },
      },
    };
  }
}
