import type { Action, ActionStatus, DeliveryAttempt, SchedClient } from '@sched/sdk';
import type { Command } from 'commander';
import { client, EXIT, parseNumber, wantsJson } from '../runtime.js';

/** The statuses after which an action never changes again (spec 3.1). */
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
  | { event: 'end'; at: string; action_id: string; status: ActionStatus };

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
  if (ENDED_STATUSES.includes(after.status) && before?.status !== after.status) {
    events.push({ event: 'end', at, action_id: after.id, status: after.status });
  }
  return events;
}

/** One line for a person. */
export function formatWatchEvent(e: WatchEvent): string {
  switch (e.event) {
    case 'status':
      return `${e.at}  status ${e.from === null ? e.to : `${e.from} -> ${e.to}`}`;
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
    .option('--json', 'print one JSON event per line')
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
