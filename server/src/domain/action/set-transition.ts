import { EVENT_EFFECTS } from './effects.js';
import { ACTION_STATES, ACTION_TRANSITIONS, type ActionEvent, type ActionState } from './states.js';

/**
 * A change the scheduler and the claims write to many rows in one statement (the promote into the window, the claim
 * into flight), read from the state table and the effects table like every other change, so the statement and the
 * tables cannot tell two stories: the states it applies from, the state it leads to, and what it writes besides.
 *
 * `events` is the walk of one row: a row takes the first event where it applies and the rest after it (the claim of
 * a `scheduled` row resolves it and starts it in one write; a `resolved` one only starts). Only changes that emit
 * nothing may be written this way: a callback, an alert, a timeline entry or an audit event needs the one-row path
 * (app/actions/transition.ts `applyActionEvent`), and so does a next attempt's time (`next: due`) or a reason.
 */
export interface SetTransition {
  events: readonly ActionEvent[];
  /** The states a row may be in for the walk to apply, in the vocabulary's order. */
  from: readonly ActionState[];
  to: ActionState;
  /** `none` clears the next attempt's time; `keep` leaves it. */
  next: 'keep' | 'none';
  /** `clear` clears the last error; `keep` leaves it. */
  error: 'keep' | 'clear';
  /** `take`: the row goes in flight under a lease; `end`: the lease is cleared. */
  lease: 'take' | 'end';
}

export function setTransition(events: readonly ActionEvent[]): SetTransition {
  if (events.length === 0) throw new Error('a set-based transition needs an event');
  const from: ActionState[] = [];
  const targets = new Set<ActionState>();
  for (const state of ACTION_STATES) {
    const to = walk(state, events);
    if (to === null) continue;
    from.push(state);
    targets.add(to);
  }
  if (targets.size !== 1) throw new Error(`the walk ${events.join(', ')} does not lead to one state`);
  const effects = events.map((e) => EVENT_EFFECTS[e]);
  for (const [i, e] of effects.entries()) {
    if (e.callback || e.alert || e.timeline || e.audit || e.next === 'due' || e.error === 'set')
      throw new Error(`event ${events[i]} emits or needs more than one statement over many rows can write`);
  }
  const last = effects[effects.length - 1]!;
  return Object.freeze({
    events: Object.freeze([...events]),
    from: Object.freeze(from),
    to: [...targets][0]!,
    next: effects.some((e) => e.next === 'none') ? 'none' : 'keep',
    error: effects.some((e) => e.error === 'clear') ? 'clear' : 'keep',
    lease: last.lease === 'take' ? 'take' : 'end',
  });
}

/** Where a row in `state` ends after the walk, or null when the walk's last event never applies to it. */
function walk(state: ActionState, events: readonly ActionEvent[]): ActionState | null {
  for (let i = 0; i < events.length; i++) {
    const to = next(state, events[i]!);
    if (to === null) continue;
    let at = to;
    for (const event of events.slice(i + 1)) {
      const after = next(at, event);
      if (after === null) return null;
      at = after;
    }
    return at;
  }
  return null;
}

function next(from: ActionState, event: ActionEvent): ActionState | null {
  return ACTION_TRANSITIONS.find((t) => t.from === from && t.event === event)?.to ?? null;
}

/** The promote: a `scheduled` attempt entering the scheduler's window is resolved to its exact time. */
export const PROMOTE = setTransition(['resolve']);
/** The claim: a due attempt goes in flight, resolved first when the promote has not seen it yet. */
export const CLAIM = setTransition(['resolve', 'start']);
