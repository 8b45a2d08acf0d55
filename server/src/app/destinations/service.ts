import type {
  BulkOperationCreate,
  Destination,
  DestinationPauseBody,
  DestinationRecoverBody,
  DestinationSummary,
  DestinationUpdate,
} from '@sched/contract';
import { CIRCUIT_DEFAULTS, circuitAt, circuitOf } from '../../domain/destinations/circuit.js';
import { type DestinationKey, hostOfOrigin, parseDestination } from '../../domain/destinations/origin.js';
import {
  circuitRecordOf,
  type DestinationRow,
  destinationStats,
  findDestination,
  listDestinationRows,
  upsertDestination,
} from '../../persistence/destinations.js';
import { destinationCounts, destinationLoad } from '../../persistence/destination-actions.js';
import type { Principal } from '../accounts.js';
import type { BulkCreateResult, BulkOperations } from '../bulk/service.js';
import { recordAudit } from '../audit.js';
import { ValidationError } from '../errors.js';
import type { Clock, DestinationWakes, Store } from '../ports.js';
import type { Sql } from '../../persistence/database.js';
import { type Page, type PageQuery, pageOf, pageWindow } from '../pagination.js';
import type { Reader, Reads } from '../reads.js';
import { type CircuitBreaker, pausedNow } from './breaker.js';

const DAY_MS = 86_400_000;

/** A destination as a path names it (an origin, or a bare host: its https origin); 422 for anything else. */
function keyOf(destination: string): DestinationKey {
  const key = parseDestination(destination);
  if (!key) throw ValidationError.field('host', 'must be an origin (scheme://host[:port]) or a host name');
  return key;
}

/**
 * Destinations as the API sees them: one origin of one account, its settings, its pause, its load and its
 * last day of attempts. An origin without a row answers the defaults. Every query is scoped to the caller's account.
 */
export class Destinations {
  constructor(
    private readonly store: Store,
    private readonly bulk: BulkOperations,
    private readonly clock: Clock,
    private readonly breaker: CircuitBreaker,
    private readonly wakes: DestinationWakes,
    /** The list (counts over the account's actions) on the read replica when allowed (app/reads.ts). */
    private readonly reads: Reads,
  ) {}

  /** `GET /v1/destinations`: a page of the account's origins, in origin order, with their counts. */
  async list(
    accountId: string,
    q: PageQuery & Pick<Reader, 'consistency'>,
  ): Promise<Page<DestinationSummary>> {
    const now = this.clock();
    const read = async (db: Sql) => {
      const rows = await listDestinationRows(db, accountId);
      const known = rows.map((r) => r.origin);
      return [await destinationCounts(db, accountId, now, known, pageWindow(q)), rows] as const;
    };
    const [counts, rows] = await this.reads.run({ accountId, consistency: q.consistency }, read);
    const byOrigin = new Map(rows.map((r) => [r.origin, r]));
    const data = counts.rows.map((c) => {
      const row = byOrigin.get(c.origin);
      return {
        origin: c.origin,
        host: c.host,
        paused: pausedNow(row, now),
        circuit_state: circuitAt(circuitRecordOf(row), circuitOf(row?.circuit), now).record.state,
        configured: !!(row?.flow || row?.circuit),
        actions: c.actions,
        scheduled: c.scheduled,
        in_flight: c.inFlight,
        failed: c.failed,
        // Named only when estimated, as a list's `total_exact`.
        ...(c.exact ? {} : { counts_exact: false }),
      };
    });
    return pageOf(data, { total: counts.total }, q);
  }

  async get(accountId: string, destination: string): Promise<Destination> {
    const { origin } = keyOf(destination);
    return this.view(accountId, origin, await findDestination(this.store.sql, accountId, origin));
  }

  /** Settings that turn the breaker off close its circuit (and release what it held) in the same transaction. */
  async update(accountId: string, destination: string, body: DestinationUpdate): Promise<Destination> {
    const { origin } = keyOf(destination);
    const flow = body.flow && Object.keys(body.flow).length ? body.flow : null;
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        origin,
        now: this.clock(),
        ...(body.flow !== undefined ? { flow } : {}),
        ...(body.circuit !== undefined ? { circuit: body.circuit } : {}),
      });
      // The settings as set: limits and thresholds, nothing secret.
      await recordAudit(db, accountId, {
        action: 'destination.update',
        resource: { type: 'destination', id: origin },
        details: {
          ...(body.flow !== undefined ? { flow } : {}),
          ...(body.circuit !== undefined ? { circuit: body.circuit } : {}),
        },
      });
      if (circuitOf(saved.circuit).enabled || saved.circuit_state === 'closed') return saved;
      await this.breaker.reset(db, { accountId, origin }, 'turn_off');
      return (await findDestination(db, accountId, origin))!;
    });
    return this.view(accountId, origin, row);
  }

  /** With `until`, a wake at that moment releases the held deliveries; without, `resume` does. */
  async pause(accountId: string, destination: string, body: DestinationPauseBody): Promise<Destination> {
    const { origin } = keyOf(destination);
    const now = this.clock();
    const until = body.until === undefined ? null : new Date(body.until);
    if (until && until <= now) throw ValidationError.field('until', 'must be in the future');
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        origin,
        now,
        pause: { at: now, until, note: body.note ?? null },
      });
      if (until) await this.wakes.wakeAt(db, { accountId, origin }, until);
      await recordAudit(db, accountId, {
        action: 'destination.pause',
        resource: { type: 'destination', id: origin },
        details: { until: until?.toISOString() ?? null, note: body.note ?? null },
      });
      return saved;
    });
    return this.view(accountId, origin, row);
  }

  /** Held deliveries go out again at once: a wake fires them (within the origin's flow control and circuit). */
  async resume(accountId: string, destination: string): Promise<Destination> {
    const { origin } = keyOf(destination);
    const now = this.clock();
    const row = await this.store.transaction(async (db) => {
      const saved = await upsertDestination(db, {
        accountId,
        origin,
        now,
        pause: { at: null, until: null, note: null },
      });
      await this.wakes.wakeAt(db, { accountId, origin }, now);
      await recordAudit(db, accountId, {
        action: 'destination.resume',
        resource: { type: 'destination', id: origin },
      });
      return saved;
    });
    return this.view(accountId, origin, row);
  }

  /** Closes the circuit, whatever its state (a disabled one waits for this), and releases what it held. */
  async enable(accountId: string, destination: string): Promise<Destination> {
    const { origin } = keyOf(destination);
    await this.store.transaction(async (db) => {
      await this.breaker.reset(db, { accountId, origin }, 'enable');
      await recordAudit(db, accountId, {
        action: 'destination.enable',
        resource: { type: 'destination', id: origin },
      });
    });
    return this.view(accountId, origin, await findDestination(this.store.sql, accountId, origin));
  }

  /**
   * A bulk `retry` of the destination's actions that failed in [since, until): the bulk operation's own answers. An
   * origin names its own actions; a bare host every origin of the host (an outage of a host is the common case).
   */
  recover(
    principal: Principal,
    destination: string,
    body: DestinationRecoverBody,
  ): Promise<BulkCreateResult> {
    const key = keyOf(destination);
    const byOrigin = destination.includes('://') || key.origin !== `https://${key.host}`;
    if (body.until !== undefined && Date.parse(body.until) <= Date.parse(body.since))
      throw ValidationError.field('until', 'must be after since');
    const create: BulkOperationCreate = {
      operation: 'retry',
      filter: {
        ...(byOrigin ? { destination_origin: key.origin } : { destination_host: key.host }),
        failed_after: body.since,
        ...(body.until !== undefined ? { failed_before: body.until } : {}),
      },
      dry_run: body.dry_run,
      note: body.note ?? `recover ${byOrigin ? key.origin : key.host} since ${body.since}`,
    };
    return this.bulk.create(principal, create);
  }

  private async view(
    accountId: string,
    origin: string,
    row: DestinationRow | undefined,
  ): Promise<Destination> {
    const now = this.clock();
    const [load, stats] = await Promise.all([
      destinationLoad(this.store.sql, accountId, origin, now),
      destinationStats(this.store.sql, accountId, origin, new Date(now.getTime() - DAY_MS)),
    ]);
    const paused = pausedNow(row, now);
    const settings = { ...CIRCUIT_DEFAULTS, ...(row?.circuit ?? {}) };
    // As time has moved it: past `next_probe_at` an open circuit is half-open (its next delivery is the probe).
    const circuit = circuitAt(circuitRecordOf(row), circuitOf(row?.circuit), now).record;
    return {
      origin,
      host: hostOfOrigin(origin),
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
