import type { Action } from '@sched/contract';
import { type WaitFor, waitIsOver } from '../../domain/approval/wait-rules.js';
import type { Clock, Timers } from '../ports.js';
import type { ActionQueries } from './queries.js';
import { type ActionWatch, raceTimeout } from './watch.js';

export interface WaitOutcome {
  action: Action;
  timedOut: boolean;
  /** Ended by a shutdown: the connection should close after this answer. */
  closing: boolean;
}

/**
 * `GET /v1/actions/{id}/wait`: answers as soon as the action's gate is decided (or it ended, `for=terminal`), or
 * when `timeout` seconds passed, or at shutdown, with the action as it is then. The request is registered before the
 * action is read, so a change committed in between still wakes it; each wake reads the action once.
 */
export class ActionWaits {
  constructor(
    private readonly deps: {
      actions: Pick<ActionQueries, 'get'>;
      watch: ActionWatch;
      clock: Clock;
      timers: Timers;
    },
  ) {}

  private readonly running = new Set<Promise<unknown>>();

  /** Shutdown: wakes every held request and resolves once each has its answer. */
  async close(): Promise<void> {
    this.deps.watch.close();
    await Promise.allSettled([...this.running]);
  }

  wait(
    accountId: string,
    id: string,
    opts: { for: WaitFor; timeoutSeconds: number; credentials: boolean },
  ): Promise<WaitOutcome> {
    const held = this.hold(accountId, id, opts);
    this.running.add(held);
    void held.finally(() => this.running.delete(held)).catch(() => undefined);
    return held;
  }

  private async hold(
    accountId: string,
    id: string,
    opts: { for: WaitFor; timeoutSeconds: number; credentials: boolean },
  ): Promise<WaitOutcome> {
    const { actions, watch, clock, timers } = this.deps;
    await watch.ready();
    const deadline = clock().getTime() + opts.timeoutSeconds * 1000;
    for (;;) {
      const watching = watch.watch(id);
      try {
        const action = await actions.get(accountId, id, opts.credentials);
        if (waitIsOver(action.status, action.gate !== null, opts.for))
          return { action, timedOut: false, closing: watch.closed };
        const left = deadline - clock().getTime();
        if (watch.closed || left <= 0) return { action, timedOut: true, closing: watch.closed };
        await raceTimeout(timers, left, watching.changed);
      } finally {
        watching.stop();
      }
    }
  }
}
