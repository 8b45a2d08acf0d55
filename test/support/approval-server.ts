import { createTestDatabase, type TestDatabase } from './database.js';
import { linkIn, startSmtpServer } from './peers.js';
import { type Receiver, startReceiver } from './receiver.js';
import { api, startServer, type TestServer } from './server.js';
import { eventually } from './wait.js';

type SmtpSink = Awaited<ReturnType<typeof startSmtpServer>>;

/** A service that sends approval mail to a real SMTP sink, with what the approval tests share. */
export interface ApprovalServer {
  db: TestDatabase;
  smtp: SmtpSink;
  /** A loopback receiver for webhooks, callbacks and provider APIs. */
  rx: Receiver;
  server: TestServer;
  /** The default account's key. */
  key: string;
  /** An API call with that key. */
  call(method: string, path: string, body?: unknown): ReturnType<typeof api>;
  /** `GET /v1/actions/{id}`'s action. */
  get(id: string): Promise<any>;
  /** Waits until the action reaches `status`; answers it then. */
  until(id: string, status: string): Promise<any>;
  /** The response link in the first mail to `to` (waiting for it). */
  linkOf(to: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts the service of an approval test file on its own database, sending mail through a real SMTP server on
 * loopback: `timeScale` is SCHED_TIME_SCALE (3600 makes a gate's hour a second); `env` adds to the environment and
 * may name the receiver (a provider API's URL). Start it in beforeAll, stop it in afterAll.
 */
export async function startApprovalServer(
  prefix: string,
  o: { timeScale: number; env?: (rx: Receiver) => Record<string, string> },
): Promise<ApprovalServer> {
  const db = await createTestDatabase(prefix);
  const smtp = await startSmtpServer();
  const rx = await startReceiver();
  const server = await startServer({
    databaseUrl: db.url,
    env: {
      SCHED_TIME_SCALE: String(o.timeScale),
      SCHED_RATE_LIMIT_FACTOR: '100',
      SCHED_SMTP_URL: smtp.url,
      SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
      ...o.env?.(rx),
    },
  }).catch(async (err: unknown) => {
    await Promise.allSettled([smtp.close(), rx.close(), db.drop()]);
    throw err;
  });
  const key = server.apiKey;
  const call = (method: string, path: string, body?: unknown) => api(server, key, method, path, body);
  const get = async (id: string) => (await call('GET', `/v1/actions/${id}`)).body.data;
  return {
    db,
    smtp,
    rx,
    server,
    key,
    call,
    get,
    until: (id, status) =>
      eventually(async () => {
        const a = await get(id);
        return a.status === status ? a : null;
      }),
    linkOf: async (to) => linkIn((await smtp.waitFor(to))[0]!.text),
    async stop() {
      await server.stop();
      await smtp.close();
      await rx.close();
      await db.drop();
    },
  };
}
