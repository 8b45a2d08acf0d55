import type { Action, ActionStatus, DeliveryAttempt, SchedClient } from '@sched/sdk';
import type { Command } from 'commander';
import { client, EXIT, parseNumber, wantsJson } from '../runtime.js';

/** The statuses after which an action never changes again. */
const ENDED_STATUSES: readonly ActionStatus[] = ['executed', 'failed', 'cancelled', 'expired'];

/** What `actions watch` reports, one JSON object per line with `--json`. */
export type WatchEvent =
  | { event: 'status'; at: string; action_id: string; from: ActionStatus | null; to: ActionStatus }
  | {
      event: 'attempt';
      at: string;
      action_id: string;
      attempt_number: number;
      status_code: number | null;
      outcome: DeliveryAttempt['outcome'];
      lateness_ms: number;
      duration_ms: number;
      error: string | null;
    }
  | { event: 'next_attempt'; at: string; action_id: string; next_attempt_at: string }
  | { event: 'end'; at: string; action_id: string; status: ActionStatus };

/** Statuses whose name a newcomer misreads: said in words after the name. */
const STATUS_NOTES: Partial<Record<ActionStatus, string>> = {
  resolved: 'due within a minute, a worker holds it',
  awaiting_response: 'waiting for answers',
};

/** The events between two readings of an action (`before` null for the first): pure, so tested without a server. */
export function watchEvents(before: Action | null, after: Action, now: Date): WatchEvent[] {
  const at = now.toISOString();
  const events: WatchEvent[] = [];
  const seen = new Set((before?.delivery_attempts ?? []).map((a) => a.id));
  const fresh = (after.delivery_attempts ?? [])
    .filter((a) => !seen.has(a.id))
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
  for (const a of fresh) {
    events.push({
      event: 'attempt',
      at: a.started_at,
      action_id: after.id,
      attempt_number: a.attempt_number,
      status_code: a.status_code,
      outcome: a.outcome,
      lateness_ms: a.lateness_ms,
      duration_ms: a.duration_ms,
      error: a.error,
    });
  }
  if (before?.status !== after.status) {
    events.push({ event: 'status', at, action_id: after.id, from: before?.status ?? null, to: after.status });
  }
  // A retryable attempt leaves a wait that may be long (linear: 5 minutes per attempt made): say when the next is.
  const lastFresh = fresh[fresh.length - 1];
  if (lastFresh?.outcome === 'retryable' && after.next_attempt_at && !ENDED_STATUSES.includes(after.status)) {
    events.push({ event: 'next_attempt', at, action_id: after.id, next_attempt_at: after.next_attempt_at });
  }
  if (ENDED_STATUSES.includes(after.status) && before?.status !== after.status) {
    events.push({ event: 'end', at, action_id: after.id, status: after.status });
  }
  return events;
}

/** A wait in the largest whole unit: `45s`, `5m`, `2h`. */
function inWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.round(s / 3600)}h`;
}

/** One line for a person. */
export function formatWatchEvent(e: WatchEvent): string {
  switch (e.event) {
    case 'status': {
      const note = STATUS_NOTES[e.to] ? ` (${STATUS_NOTES[e.to]})` : '';
      return `${e.at}  status ${e.from === null ? e.to : `${e.from} -> ${e.to}`}${note}`;
    }
    case 'next_attempt':
      return `${e.at}  next attempt at ${e.next_attempt_at} (in ${inWords(Date.parse(e.next_attempt_at) - Date.parse(e.at))})`;
    case 'attempt': {
      const answer = e.status_code === null ? (e.error ?? 'no answer') : `HTTP ${e.status_code}`;
      const error = e.status_code !== null && e.error ? ` (${e.error})` : '';
      return `${e.at}  attempt ${e.attempt_number}: ${answer}${error}, ${e.outcome}, ${e.lateness_ms} ms late, took ${e.duration_ms} ms`;
    }
    case 'end':
      return `${e.at}  ended: ${e.status}`;
  }
}

/**
 * Polls the action until it ends, emitting each change. Exits 0 when it ended `executed`, `cancelled` or
 * `expired` as designed, 1 when it `failed` (for scripts that wait on a delivery).
 */
export async function watchAction(
  sched: Pick<SchedClient, 'actions'>,
  id: string,
  opts: { intervalMs: number; emit: (e: WatchEvent) => void; sleep?: (ms: number) => Promise<void> },
): Promise<ActionStatus> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let before: Action | null = null;
  for (;;) {
    const after = await sched.actions.get(id);
    for (const e of watchEvents(before, after, new Date())) opts.emit(e);
    if (ENDED_STATUSES.includes(after.status)) return after.status;
    before = after;
    await sleep(opts.intervalMs);
  }
}

export function configureActionsWatchCommand(actions: Command): void {
  actions
    .command('watch <id>')
    .description('follow an action live: status changes and each delivery attempt, until it ends')
    .option('--interval <seconds>', 'how often to ask the server (default 1)')
    .action(async (id: string, opts: { interval?: string }, cmd: Command) => {
      const intervalMs = opts.interval ? parseNumber('--interval', opts.interval) * 1000 : 1000;
      const json = wantsJson(cmd);
      const status = await watchAction(client(cmd), id, {
        intervalMs,
        emit: (e) => process.stdout.write(`${json ? JSON.stringify(e) : formatWatchEvent(e)}\n`),
      });
      process.exitCode = status === 'failed' ? EXIT.failed : EXIT.ok;
    });
}
