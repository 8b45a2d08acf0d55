import type { Action, SchedClient } from '@sched/sdk';

/** Polls `fn` until it returns a truthy value (tests wait for states, never for fixed sleeps). */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}

/** Waits, through the SDK, until an action reaches `status`; returns it then. */
export function statusOf(
  sched: SchedClient,
  id: string,
  status: Action['status'],
  timeoutMs = 15_000,
): Promise<Action> {
  return eventually(async () => {
    const action = await sched.actions.get(id);
    return action.status === status ? action : null;
  }, timeoutMs);
}

/**
 * Resolves once the clock passes `at` (ms since the epoch): a moment the scenario needs behind it, read from the
 * service (a due time, an expiry), not a guess at how long something takes. `marginMs` covers what happens at that
 * moment (a delivery takes milliseconds); keep it small.
 */
export async function pastInstant(at: number, marginMs = 0): Promise<void> {
  const wait = at + marginMs - Date.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
