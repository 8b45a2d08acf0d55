import type { Timers } from '../ports.js';

/** What the watch needs of the process's LISTEN connection (persistence/notifications.ts `Notifications`). */
export interface ChangeFeed {
  subscribe(channel: string, on: { payload(payload: string): void; reconnected?(): void }): Promise<void>;
}

/** One held request's interest in an action: `changed` settles at the next announcement of it (or at close). */
export interface Watching {
  changed: Promise<void>;
  stop(): void;
}

/**
 * Announcements of changed actions (the `action_changed` trigger's NOTIFY, sent at the commit of whatever moved
 * the action, in any process) fanned out to the requests held on them. One subscription serves every held request
 * of the process, so waiting costs no query of PostgreSQL until something changed. After a reconnection every
 * watcher is woken: what was announced meanwhile was lost, so each one reads its action again.
 */
export class ActionWatch {
  private readonly watchers = new Map<string, Set<() => void>>();
  private subscribed: Promise<void> | null = null;
  private closedFlag = false;

  constructor(
    private readonly deps: {
      feed: () => Promise<ChangeFeed>;
      channel: string;
    },
  ) {}

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Starts listening on first use; a failed start is retried by the next request. */
  async ready(): Promise<void> {
    this.subscribed ??= this.deps
      .feed()
      .then((feed) =>
        feed.subscribe(this.deps.channel, {
          payload: (id) => this.wake(id),
          reconnected: () => this.wakeAll(),
        }),
      )
      .catch((err: unknown) => {
        this.subscribed = null;
        throw err;
      });
    return this.subscribed;
  }

  watch(id: string): Watching {
    let done!: () => void;
    const changed = new Promise<void>((resolve) => {
      done = resolve;
    });
    if (this.closedFlag) {
      done();
      return { changed, stop: () => undefined };
    }
    const set = this.watchers.get(id) ?? new Set();
    set.add(done);
    this.watchers.set(id, set);
    return {
      changed,
      stop: () => {
        set.delete(done);
        if (set.size === 0 && this.watchers.get(id) === set) this.watchers.delete(id);
      },
    };
  }

  /** Shutdown: every held request answers now, with what its action is. */
  close(): void {
    this.closedFlag = true;
    this.wakeAll();
  }

  private wake(id: string): void {
    for (const done of this.watchers.get(id) ?? []) done();
  }

  private wakeAll(): void {
    for (const set of this.watchers.values()) for (const done of set) done();
  }
}

/** Settles after `ms` (a client's chosen wait: never scaled), or never before `changed`. */
export function raceTimeout(
  timers: Timers,
  ms: number,
  changed: Promise<void>,
): Promise<'changed' | 'timeout'> {
  return new Promise((resolve) => {
    const timer = timers.after(Math.max(0, ms), () => resolve('timeout'));
    void changed.then(() => {
      timer.cancel();
      resolve('changed');
    });
  });
}
