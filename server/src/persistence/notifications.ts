import pg from 'pg';
import { connectionConfig } from './hosts.js';

/** A LISTEN connection of its own (a pooled one would drop the subscription when returned). */
export interface Listener {
  close(): Promise<void>;
}

/**
 * Listens on `channel`, handing each payload to `onPayload`; `onLost` is called once when the connection drops
 * (the caller reconnects; notifications sent meanwhile are lost).
 */
export async function listen(
  databaseUrl: string,
  channel: string,
  on: { payload(payload: string): void; lost(err: Error): void },
): Promise<Listener> {
  const settings = connectionConfig(databaseUrl);
  const client = new settings.Client({ ...settings, application_name: 'sched-worker-listen' });
  client.on('error', (err) => on.lost(err));
  client.on('notification', (msg) => on.payload(msg.payload ?? ''));
  try {
    await client.connect();
    await client.query(`listen ${pg.escapeIdentifier(channel)}`);
  } catch (err) {
    // Not listening: the caller retries; this half-made connection must not linger.
    client.removeAllListeners('error').on('error', () => {});
    await client.end().catch(() => undefined);
    throw err;
  }
  return { close: () => client.end() };
}
