import { type ActionState, isPausable } from './states.js';
import { parseDuration, UNIT_MS } from '../schedule/duration.js';
import { parseTimestamp } from '../schedule/resolve.js';

/**
 * The rules of pausing an action (docs/operations.md), pure: when a pause ends, and when an action cannot be paused
 * or resumed. Applied by app/actions/pause.ts, for the API and bulk operations alike.
 */

/** `POST /actions/{id}/pause`: exactly one of `until` / `duration`, or `indefinite: true`. */
export interface PauseInput {
  until?: string | undefined;
  duration?: string | undefined;
  indefinite?: boolean | undefined;
  note?: string | null | undefined;
}

/**
 * A pause (or an `until`) may last at most this long: its job must outlive it (jobs/queue.ts retention).
 */
const MAX_PAUSE_MS = 365 * UNIT_MS.d;
const MAX_NOTE = 1000;

/**
 * When a pause ends by itself (null: indefinite), or the 422 field errors of the input.
 */
export function pauseEnd(
  input: PauseInput,
  now: Date,
  timezone: string,
): { ok: true; until: Date | null } | { ok: false; errors: Record<string, string[]> } {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  const given = [
    input.until !== undefined && input.until !== null,
    input.duration !== undefined && input.duration !== null,
    input.indefinite === true,
  ].filter(Boolean).length;
  if (given === 0) add('until', 'Give one of until, duration or indefinite: true');
  if (given > 1) add('until', 'Give only one of until, duration and indefinite');
  if (input.indefinite === false && given === 0) add('indefinite', 'Must be true when given');
  if (input.note != null && input.note.length > MAX_NOTE) add('note', `At most ${MAX_NOTE} characters`);
  let until: Date | null = null;
  if (input.until != null) {
    const parsed = parseTimestamp(input.until, timezone);
    if (!parsed) add('until', 'Must be an ISO 8601 timestamp');
    else if (parsed.getTime() <= now.getTime()) add('until', 'Must be in the future');
    else if (parsed.getTime() - now.getTime() > MAX_PAUSE_MS) add('until', 'Must be within 365 days');
    else until = parsed;
  } else if (input.duration != null) {
    const ms = parseDuration(input.duration);
    if (ms === null) add('duration', 'Must be a positive integer followed by s, m, h, d or w (e.g. 2h)');
    else if (ms > MAX_PAUSE_MS) add('duration', 'Must be at most 365 days');
    // A duration the caller chose: never scaled by SCHED_TIME_SCALE.
    else until = new Date(now.getTime() + ms);
  }
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, until };
}

/**
 * Why an action cannot be paused (a 409's message), or null when it can.
 */
export function pauseRefusal(row: {
  id: string;
  status: ActionState;
  chain_id: string | null;
}): string | null {
  if (row.chain_id)
    return `action ${row.id} is a step of chain ${row.chain_id} and cannot be paused on its own`;
  if (row.status === 'paused') return `action ${row.id} is already paused`;
  if (row.status === 'executing')
    return `action ${row.id} is being delivered right now and cannot be paused; try again in a moment`;
  if (!isPausable(row.status)) return `action ${row.id} is ${row.status} and cannot be paused`;
  return null;
}

/**
 * Why an action cannot be resumed (a 409's message), or null when it can.
 */
export function resumeRefusal(row: { id: string; status: ActionState }): string | null {
  return row.status === 'paused' ? null : `action ${row.id} is not paused (it is ${row.status})`;
}
