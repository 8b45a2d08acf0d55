import type { HoldReason } from '@sched/contract';
import {
  admit,
  CIRCUIT_DEFAULTS,
  type CircuitEvent,
  type CircuitRecord,
  type CircuitSignal,
  type CircuitStep,
  circuitAt,
  circuitOf,
  countFailure,
  judge,
  scanLimit,
  settleProbe,
  step,
} from '../../domain/destinations/circuit.js';
import { decideFlow } from '../../domain/destinations/flow.js';
import { hostOfOrigin } from '../../domain/destinations/origin.js';
import type { Sql } from '../../persistence/database.js';
import {
  attemptsSince,
  circuitRecordOf,
  type DestinationRow,
  lockDestination,
  lockOrCreateDestination,
  originsOfHost,
  saveCircuit,
  saveRateWindow,
} from '../../persistence/destinations.js';
import { heldDeliveries, requestsInFlight } from '../../persistence/destination-actions.js';
import type { Clock, DestinationWake, DestinationWakes, OperatorEvents, Store } from '../ports.js';

/** What a destination's flow control and circuit say of one due delivery, under its row lock. */
export type HostAdmission =
  | { admit: true; probe: boolean }
  | {
      admit: false;
      by: HoldReason;
      /** When to look again; null when a wake brings it back (a circuit's half-open or closing). */
      retryAt: Date | null;
    };

const PASS: HostAdmission = { admit: true, probe: false };
const CIRCUIT: HoldReason = 'circuit';
const FLOW_CONTROL: HoldReason = 'flow_control';
/** A wake of a closed (or resumed) origin fires this many held deliveries, then wakes again for the rest. */
const WAKE_BATCH = 500;
/** A half-open origin's wake fires a few: one takes the probe slot; should it not start, another may. */
const PROBE_WAKE = 3;

/** One destination of one account, named by its origin (domain/destinations/origin.ts). */
interface Host {
  accountId: string;
  origin: string;
}

export function pausedNow(row: DestinationRow | undefined, now: Date): boolean {
  return !!row?.paused_at && (row.paused_until === null || row.paused_until > now);
}

/**
 * A destination's flow control for one request about to start, its row locked: when to look again, or null (admitted,
 * and counted in the rate window). The careful claim (`CircuitBreaker.admit`) and a destination test both take it.
 */
export async function takeFlowSlot(
  db: Sql,
  limits: NonNullable<DestinationRow['flow']>,
  row: Pick<DestinationRow, 'rate_window_start' | 'rate_window_count'>,
  a: { accountId: string; origin: string; actionId: string; now: Date },
): Promise<Date | null> {
  const inFlight = await requestsInFlight(db, a);
  const flow = decideFlow(
    limits,
    { inFlight, windowStart: row.rate_window_start, windowCount: row.rate_window_count },
    a.now,
  );
  if (!flow.admit) return flow.retryAt;
  if (limits.rate !== undefined)
    await saveRateWindow(db, {
      accountId: a.accountId,
      origin: a.origin,
      windowStart: flow.windowStart,
      windowCount: flow.windowCount,
    });
  return null;
}

/**
 * The circuit breaker of every destination (domain/destinations/circuit.ts has the rule and its table).
 * State lives in the origin's `destinations` row, changed under its lock, so every worker shares it. The success
 * path of a closed circuit costs nothing here: only failures are counted, in the record transaction that already
 * runs for them; a half-open origin's deliveries take the careful claim path, where `admit` hands out the probe slot.
 * Each change records its operator event and, when held deliveries should move, a durable wake, in the same
 * transaction.
 */
export class CircuitBreaker {
  constructor(
    private readonly p: { store: Store; clock: Clock; events: OperatorEvents; wakes: DestinationWakes },
  ) {}

  /**
   * In the careful claim's transaction (the action's row is locked): the circuit first, then flow control. A
   * delivery the circuit holds waits for a wake; one flow control holds looks again at `retryAt`.
   */
  async admit(db: Sql, a: Host & { actionId: string; now: Date; leaseUntil: Date }): Promise<HostAdmission> {
    const row = await lockDestination(db, a.accountId, a.origin);
    if (!row) return PASS;
    const circuit = circuitOf(row.circuit);
    const before = circuitRecordOf(row);
    const c = admit(before, circuit, a.now, a.leaseUntil);
    if (c.admission === 'hold') {
      if (c.transition) await this.save(db, a, before, c, a.now);
      return { admit: false, by: CIRCUIT, retryAt: null };
    }
    if (row.flow) {
      const retryAt = await takeFlowSlot(db, row.flow, row, a);
      if (retryAt) {
        // Half-open stands, but a request that does not start takes no probe slot.
        if (c.transition)
          await this.save(
            db,
            a,
            before,
            { ...c, record: { ...c.record, probeUntil: before.probeUntil } },
            a.now,
          );
        return { admit: false, by: FLOW_CONTROL, retryAt };
      }
    }
    if (c.admission === 'probe') await this.save(db, a, before, c, a.now);
    return { admit: true, probe: c.admission === 'probe' };
  }

  /**
   * An attempt's answer, in its record transaction: a probe's settles the half-open circuit; a failure of a closed
   * one is counted, and the rate read when it could have reached `failure_rate`. A success that is not a probe
   * never comes here (the common path stays free).
   */
  async observe(
    db: Sql,
    a: Host & { startedAt: Date; now: Date; signal: CircuitSignal | null; probe: boolean },
  ): Promise<void> {
    if (!a.probe && a.signal !== 'failure') return;
    const row = a.probe
      ? await lockDestination(db, a.accountId, a.origin)
      : await lockOrCreateDestination(db, a.accountId, a.origin, a.now);
    if (!row) return;
    const circuit = circuitOf(row.circuit);
    const before = circuitRecordOf(row);
    if (a.probe) {
      // A probe that never reached the receiver (the destination policy blocked it) says nothing: its slot is freed.
      const settled =
        a.signal === null
          ? { record: { ...before, probeUntil: null }, transition: null }
          : settleProbe(before, circuit, a.now, a.signal);
      if (before.state === 'half_open') await this.save(db, a, before, settled, a.now);
      return;
    }
    const counted = countFailure(before, circuit, a.startedAt, a.now);
    if (counted.record === before) return;
    if (!counted.check) return this.save(db, a, before, { record: counted.record, transition: null }, a.now);
    const read = await attemptsSince(db, {
      ...a,
      since: counted.record.windowStart!,
      limit: scanLimit(counted.record, circuit),
    });
    const judged = judge(counted.record, circuit, a.now, read);
    await this.save(db, a, before, judged, a.now, {
      attempts: read.attempts,
      failures: read.failures,
      failure_rate: read.attempts > 0 ? Math.round((read.failures / read.attempts) * 1000) / 1000 : 0,
      window: row.circuit?.window ?? CIRCUIT_DEFAULTS.window,
    });
  }

  /** `POST /v1/destinations/{origin}/enable` (`enable`), or settings that turn the breaker off (`turn_off`). */
  async reset(db: Sql, h: Host, event: Extract<CircuitEvent, 'enable' | 'turn_off'>): Promise<void> {
    const row = await lockDestination(db, h.accountId, h.origin);
    if (!row) return;
    const now = this.p.clock();
    const before = circuitRecordOf(row);
    const changed = step(before, event, circuitOf(row.circuit), now);
    if (changed) await this.save(db, h, before, changed, now, { via: event });
  }

  /**
   * A wake (a pg-boss job at a circuit's `next_probe_at`, on its closing, at a pause's end): moves the circuit as
   * time says, then answers the held deliveries to fire: a few for a half-open circuit (one becomes the probe),
   * a batch for an open road (the next batch is another wake), none while the origin is still held.
   */
  async wake(job: DestinationWake): Promise<string[]> {
    return this.p.store.transaction(async (db) => {
      const now = this.p.clock();
      // A wake written before destinations were origins names a host, whose row the upgrade copied to each of its
      // origins: it wakes each of them now (each moves as its own circuit and pause say).
      if (!job.origin) {
        for (const origin of await originsOfHost(db, job.accountId, job.host ?? ''))
          await this.p.wakes.wakeAt(db, { accountId: job.accountId, origin }, now);
        return [];
      }
      const origin = job.origin;
      const row = await lockDestination(db, job.accountId, origin);
      let limit = WAKE_BATCH;
      if (row) {
        const circuit = circuitOf(row.circuit);
        const before = circuitRecordOf(row);
        const current = circuitAt(before, circuit, now);
        if (current.transition)
          await this.save(db, { accountId: job.accountId, origin }, before, current, now);
        const state = circuit.enabled ? current.record.state : 'closed';
        if (pausedNow(row, now) || state === 'open' || state === 'disabled') return [];
        if (state === 'half_open') limit = PROBE_WAKE;
      }
      const after = job.after ? { at: new Date(job.after.at), id: job.after.id } : undefined;
      const held = await heldDeliveries(db, { accountId: job.accountId, origin, now, limit, after });
      const last = held.at(-1);
      if (last && held.length === WAKE_BATCH)
        await this.p.wakes.wakeAt(
          db,
          { accountId: job.accountId, origin, after: { at: last.due.toISOString(), id: last.id } },
          now,
        );
      return held.map((h) => h.id);
    });
  }

  /**
   * Writes the circuit and, on a change of state, its operator event and the wake the new state needs: at
   * `next_probe_at` when it opens, now when it closes.
   */
  private async save(
    db: Sql,
    h: Host,
    before: CircuitRecord,
    s: CircuitStep,
    now: Date,
    details: Record<string, unknown> = {},
  ): Promise<void> {
    await saveCircuit(db, { accountId: h.accountId, origin: h.origin, circuit: s.record, now });
    const t = s.transition;
    if (!t) return;
    const r = s.record;
    if (t.to === 'open')
      await this.p.wakes.wakeAt(db, { accountId: h.accountId, origin: h.origin }, r.nextProbeAt!);
    if (t.to === 'closed') await this.p.wakes.wakeAt(db, { accountId: h.accountId, origin: h.origin }, now);
    if (!t.notice) return;
    const openedAt = (t.to === 'closed' ? before.openedAt : r.openedAt)?.toISOString() ?? null;
    const host = hostOfOrigin(h.origin);
    await this.p.events.record(db, {
      account_id: h.accountId,
      type: t.notice,
      at: now,
      destination_host: host,
      subject: { type: 'destination', id: h.origin },
      details: {
        host,
        origin: h.origin,
        state: r.state,
        opened_at: openedAt,
        ...(t.to === 'open' ? { next_probe_at: r.nextProbeAt!.toISOString() } : {}),
        ...(t.to === 'disabled' ? { reopens: r.reopens } : {}),
        ...(t.to === 'closed'
          ? { via: 'probe', outage_ms: before.openedAt ? now.getTime() - before.openedAt.getTime() : null }
          : {}),
        ...details,
      },
    });
  }
}
