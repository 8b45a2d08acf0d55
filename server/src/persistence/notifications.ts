import pg from 'pg';
import { connectionConfig } from './hosts.js';
import { MEMBER_LOCK_CLASS, memberLockStatement, memberUnlockStatement } from './workers.js';

/** What a subscriber of one channel hears. */
interface Subscription {
  payload(payload: string): void;
  /**
   * The connection came back after a drop: notifications sent meanwhile were lost, so a subscriber that keeps state
   * from them reads it again here.
   */
  reconnected?(): void;
}

/** One LISTEN connection of a process, fanned out by channel. */
export interface Notifications {
  /** Listens on `channel` too; resolves once the LISTEN is active (or, while reconnecting, once it is recorded). */
  subscribe(channel: string, on: Subscription): Promise<void>;
  /**
   * This worker's member number while its connection lives (with `member: true`; persistence/workers.ts), null while
   * it is being made again.
   */
  member(): number | null;
  /**
   * Gives up the member lock (a worker stopping: the others take its share at once) and tells the workers on
   * `channel`; it is not taken again until the connection is made again.
   */
  leave(channel: string): Promise<void>;
  close(): Promise<void>;
}

export interface NotificationsOptions {
  /** Hold the worker member lock on the connection (persistence/workers.ts): a worker's LISTEN connection does. */
  member?: boolean;
  /** The connection dropped; it is reconnected with back-off (the callers' scans cover the gap meanwhile). */
  lost?(err: Error): void;
  /** A reconnection failed; the next one waits `nextDelayMs`. */
  retryFailed?(err: unknown, nextDelayMs: number): void;
  /** Reconnection back-off: `minDelayMs * 2^n` capped at `maxDelayMs`, each wait drawn in [half of it, all of it]. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** For tests: the jitter's source of randomness. */
  random?: () => number;
}

/** The wait before reconnection attempt `n` (0-based): exponential, capped, with jitter so workers do not stampede. */
export function reconnectDelayMs(n: number, opts: NotificationsOptions = {}): number {
  const min = opts.minDelayMs ?? 250;
  const max = opts.maxDelayMs ?? 30_000;
  const ceiling = Math.min(max, min * 2 ** Math.min(n, 30));
  return Math.round(ceiling / 2 + (opts.random ?? Math.random)() * (ceiling / 2));
}

/**
 * Opens the process's LISTEN connection (a connection of its own: a pooled one would drop the subscriptions when
 * returned). Each notification goes to the subscribers of its channel. When the connection drops, it reconnects
 * with exponential back-off and jitter, listens on every channel again and tells each subscriber (`reconnected`).
 * The first connection is made here: an error then is the caller's.
 */
export async function openNotifications(
  databaseUrl: string,
  opts: NotificationsOptions = {},
): Promise<Notifications> {
  const subscribers = new Map<string, Subscription[]>();
  let client: pg.Client | null = null;
  let member: number | null = null;
  let memberOfNext: number | null = null;
  let listening = new Set<string>();
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const listenOn = async (c: pg.Client, channel: string) => {
    await c.query(`listen ${pg.escapeIdentifier(channel)}`);
    listening.add(channel);
  };

  const discard = (c: pg.Client) => {
    c.removeAllListeners('error').on('error', () => {});
    void c.end().catch(() => undefined);
  };

  async function connect(): Promise<pg.Client> {
    // Read at each (re)connection: with several hosts, it goes to the one found writable last (hosts.ts).
    const settings = connectionConfig(databaseUrl);
    const c = new settings.Client({ ...settings, application_name: 'sched-worker-listen' });
    c.on('error', (err) => dropped(c, err));
    c.on('notification', (msg) => {
      for (const s of subscribers.get(msg.channel) ?? []) s.payload(msg.payload ?? '');
    });
    try {
      await c.connect();
      if (opts.member) {
        const { rows } = await c.query<{ member: number }>(memberLockStatement, [MEMBER_LOCK_CLASS]);
        memberOfNext = rows[0]!.member;
      }
      listening = new Set();
      for (const channel of subscribers.keys()) await listenOn(c, channel);
    } catch (err) {
      // Not listening: this half-made connection must not linger.
      discard(c);
      throw err;
    }
    return c;
  }

  function dropped(c: pg.Client, err: Error): void {
    if (client !== c) return;
    client = null;
    member = null;
    discard(c);
    if (closed) return;
    opts.lost?.(err);
    reconnectLater();
  }

  async function reconnect(): Promise<void> {
    if (closed) return;
    let c: pg.Client | undefined;
    try {
      c = await connect();
      if (closed) return discard(c);
      client = c;
      member = memberOfNext;
      // Channels subscribed while the connection was being made.
      for (const channel of subscribers.keys()) if (!listening.has(channel)) await listenOn(c, channel);
    } catch (error) {
      if (c) {
        if (client === c) client = null;
        discard(c);
      }
      opts.retryFailed?.(error, reconnectDelayMs(failures, opts));
      return reconnectLater();
    }
    failures = 0;
    for (const list of subscribers.values()) for (const s of list) s.reconnected?.();
  }

  function reconnectLater(): void {
    const delay = reconnectDelayMs(failures, opts);
    failures += 1;
    retry = setTimeout(() => void reconnect(), delay);
    retry.unref();
  }

  client = await connect();
  member = memberOfNext;
  return {
    async subscribe(channel, on) {
      const list = subscribers.get(channel) ?? [];
      subscribers.set(channel, [...list, on]);
      if (client && !listening.has(channel)) await listenOn(client, channel);
    },
    member: () => member,
    async leave(channel) {
      const c = client;
      if (!c || member === null) return;
      member = null;
      await c.query(memberUnlockStatement, [MEMBER_LOCK_CLASS]);
      await c.query('select pg_notify($1, $2)', [channel, '']);
    },
    async close() {
      closed = true;
      member = null;
      if (retry) clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
