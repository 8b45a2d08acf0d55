import type { MissedPolicy } from '@sched/contract';
import type { ActionEvent } from '../../domain/action/states.js';
import { UNIT_MS } from '../../domain/schedule/duration.js';
import { type PauseInput, pauseEnd, pauseRefusal, resumeRefusal } from '../../domain/action/pause.js';
import { type ActionRow, lockAction } from '../../persistence/actions.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredGate, StoredPause } from '../../persistence/entities/stored.js';
import { ConflictError, ValidationError } from '../errors.js';
import type { ActionScheduler, CallbackQueue, Clock, GateTimers, PauseTimers, Store } from '../ports.js';
import type { Waits } from '../waits.js';
import { seriesOf } from './series.js';
import { type ActionEventChange, applyActionEvent, lockOwnAction } from './transition.js';
import { placeRowAttempt } from './window.js';

/**
 * Pause and resume (docs/operations.md). A paused action sends nothing: the delivery claim takes only `scheduled` and
 * `resolved` actions, so a worker's claim passes over a paused one, and resume schedules the attempt again. An
 * approval's timeout and escalation clocks stop: resume moves `gate.expires_at` and the escalation's due time on by the
 * time spent paused and sets their timers again.
 *
 * These functions work inside the caller's transaction (the API's, or one batch of a bulk operation), so every
 * change of one action (row, timeline, callback, jobs) commits together.
 */

export interface ResumeInput {
  missed?: MissedPolicy | undefined;
}

export interface PauseDeps {
  scheduler: ActionScheduler;
  callbacks: CallbackQueue;
  timers: PauseTimers;
  /** Gate timers set again when a paused gate's clock runs again (jobs/gate-timers.ts). */
  gateTimers: GateTimers;
  clock: Clock;
  waits: Waits;
}

/**
 * Who asked, for the timeline (a bulk operation names itself: "bulk operation <id>").
 * @public The pause use case's API for bulk operations.
 */
export interface PauseSource {
  via?: string | undefined;
}

/**
 * Pauses one action of the account inside `tx`. 404 unknown (or another account's), 422 bad input, 409 not pausable.
 * @public The pause use case's API for bulk operations.
 */
export async function pauseAction(
  deps: PauseDeps,
  tx: Sql,
  accountId: string,
  id: string,
  input: PauseInput,
  source: PauseSource = {},
): Promise<ActionRow> {
  const row = await lockOwnAction(tx, accountId, id);
  const now = deps.clock();
  const end = pauseEnd(input, now, row.timezone);
  if (!end.ok) throw new ValidationError(end.errors);
  const refusal = pauseRefusal(row);
  if (refusal) throw new ConflictError(refusal);

  const note = input.note?.trim() ? input.note.trim() : null;
  const pause: StoredPause = {
    from: row.status,
    paused_at: now.toISOString(),
    until: end.until?.toISOString() ?? null,
    note,
  };
  const when = end.until ? `until ${end.until.toISOString()}` : 'indefinitely';
  const updated = await applyActionEvent(
    tx,
    row,
    'pause',
    {
      now,
      set: { pause },
      callback: { paused_at: pause.paused_at, until: pause.until, note },
      timeline: timelineNote(`paused ${when}`, note, source),
      audit: () => ({
        from_status: row.status,
        until: pause.until,
        note,
        ...(source.via ? { via: source.via } : {}),
      }),
    },
    deps,
  );
  if (end.until) await deps.timers.resumeAt(tx, row.id, end.until, pause.paused_at);
  return updated;
}

/**
 * Resumes one paused action of the account inside `tx`. 404 unknown (or another account's), 409 not paused.
 * @public The pause use case's API for bulk operations.
 */
export async function resumeAction(
  deps: PauseDeps,
  tx: Sql,
  accountId: string,
  id: string,
  input: ResumeInput,
  source: PauseSource = {},
): Promise<ActionRow> {
  const row = await lockOwnAction(tx, accountId, id);
  const refusal = resumeRefusal(row);
  if (refusal) throw new ConflictError(refusal);
  return resumeRow(deps, tx, row, input.missed ?? 'run_once', source);
}

/**
 * The `until` of a pause came (its pg-boss job). Idempotent: a pause that already ended, or a later pause of the
 * same action (another `pausedAt`), is left alone.
 * @public The pause use case's API for bulk operations.
 */
export async function resumeWhenDue(
  deps: PauseDeps & { store: Store },
  job: { actionId: string; pausedAt: string },
): Promise<void> {
  await deps.store.transaction(async (tx) => {
    const row = await lockAction(tx, job.actionId);
    if (row?.status !== 'paused' || row.pause?.paused_at !== job.pausedAt) return;
    await resumeRow(deps, tx, row, 'run_once', { via: 'its until' });
  });
}

async function resumeRow(
  deps: PauseDeps,
  tx: Sql,
  row: ActionRow,
  missed: MissedPolicy,
  source: PauseSource,
): Promise<ActionRow> {
  const now = deps.clock();
  const pause = row.pause!;
  const pausedMs = Math.max(0, now.getTime() - new Date(pause.paused_at).getTime());
  const changes: NonNullable<ActionEventChange['set']> = { pause: null };
  let event: ActionEvent;
  let dueAt: Date | undefined;
  let error: string | undefined;
  let outcome: string;

  const gate = row.gate;
  // An approval whose request went out: its clocks run again from where they stopped.
  const gateRunning = gate?.sent_at != null && gate.expires_at != null;
  if (gateRunning) changes.gate = shiftedGate(gate, pausedMs);

  if (pause.from === 'awaiting_response') {
    event = 'resume_awaiting';
    outcome = 'waiting for answers again';
  } else {
    const due = row.next_attempt_at ?? row.scheduled_for;
    if (due.getTime() > now.getTime()) {
      event = 'resume';
      dueAt = due;
      outcome = `due ${due.toISOString()}`;
    } else if (missed === 'run_once') {
      event = 'resume';
      dueAt = now;
      outcome = 'its missed moment runs now';
    } else if (gateRunning) {
      // A snoozed approval: the skipped moment was its reminder; the request stands and waits for answers.
      event = 'resume_awaiting';
      outcome = 'the missed reminder is skipped; waiting for answers again';
    } else if (row.recurrence) {
      const run = seriesOf(row, deps.waits).runAfter(now, row.recurrence_count);
      if (run) {
        event = 'resume_skip';
        dueAt = run.at;
        Object.assign(changes, {
          scheduled_for: run.at,
          recurrence_index: run.index,
          attempt_count: 0,
          reschedule_count: 0,
        });
        outcome = `missed occurrences skipped; next ${run.at.toISOString()}`;
      } else {
        event = 'resume_expire';
        error = 'the series ended while paused (resumed with missed: skip)';
        outcome = 'the series ended while paused; nothing is left to run';
      }
    } else {
      // A one-time action whose moment passed, resumed with `skip`: it will never run, so it ends as expired.
      event = 'resume_expire';
      error = 'its moment passed while paused (resumed with missed: skip)';
      outcome = 'its moment passed while paused; expired';
    }
  }
  if (dueAt) {
    // What resume makes due fires inside the action's delivery window.
    const placed = await placeRowAttempt(tx, row, dueAt);
    dueAt = placed.at;
    Object.assign(changes, placed.changes);
  }

  const updated = await applyActionEvent(
    tx,
    row,
    event,
    {
      now,
      set: changes,
      ...(dueAt && { nextAttemptAt: dueAt }),
      ...(error && { error }),
      callback: {
        missed,
        paused_at: pause.paused_at,
        paused_ms: pausedMs,
        next_attempt_at: dueAt?.toISOString() ?? null,
      },
      timeline: timelineNote(
        `resumed (missed: ${missed}) after ${Math.round(pausedMs / 1000)} s; ${outcome}`,
        null,
        source,
      ),
      audit: (status) => ({
        status,
        missed,
        paused_ms: pausedMs,
        ...(source.via ? { via: source.via } : {}),
      }),
    },
    deps,
  );
  if (gateRunning && updated.status !== 'expired')
    await rearmGateTimers(deps, tx, row.id, changes.gate!, now);
  return updated;
}

/** The gate with its clocks moved on by the time spent paused. */
function shiftedGate(gate: StoredGate, pausedMs: number): StoredGate {
  return {
    ...gate,
    expires_at: new Date(new Date(gate.expires_at!).getTime() + pausedMs).toISOString(),
    paused_ms: (gate.paused_ms ?? 0) + pausedMs,
    resumes: (gate.resumes ?? 0) + 1,
  };
}

/**
 * The timeout timer at the moved expiry, and the escalation's at its moved due time if it has not happened yet.
 * Timers set before the pause may still fire: the timeout one finds the expiry later and looks again then, and the
 * escalation one carries an older `resumes` and is ignored (app/approvals/rounds.ts).
 */
async function rearmGateTimers(deps: PauseDeps, tx: Sql, actionId: string, gate: StoredGate, now: Date) {
  const round = gate.sent_at!;
  const expiresAt = new Date(gate.expires_at!);
  await deps.gateTimers.set(tx, { actionId, kind: 'timeout', round }, expiresAt);
  if (!gate.escalation || gate.escalated_at) return;
  const escalateAt = new Date(
    new Date(round).getTime() +
      deps.waits.wait(gate.escalation.after_hours * UNIT_MS.h) +
      (gate.paused_ms ?? 0),
  );
  if (escalateAt > now && escalateAt < expiresAt)
    await deps.gateTimers.set(
      tx,
      { actionId, kind: 'escalation', round, resumes: gate.resumes ?? 0 },
      escalateAt,
    );
}

function timelineNote(what: string, note: string | null, source: PauseSource): string {
  return [source.via ? `${what} by ${source.via}` : what, note].filter(Boolean).join(': ');
}

/** The API's use cases: one action, one transaction. */
export class PauseService {
  constructor(private readonly deps: PauseDeps & { store: Store }) {}

  pause(accountId: string, id: string, input: PauseInput): Promise<ActionRow> {
    return this.deps.store.transaction((tx) => pauseAction(this.deps, tx, accountId, id, input));
  }

  resume(accountId: string, id: string, input: ResumeInput): Promise<ActionRow> {
    return this.deps.store.transaction((tx) => resumeAction(this.deps, tx, accountId, id, input));
  }

  /** A pause's `until` came (jobs/dispatcher.ts). */
  resumeWhenDue(job: { actionId: string; pausedAt: string }): Promise<void> {
    return resumeWhenDue(this.deps, job);
  }
}
