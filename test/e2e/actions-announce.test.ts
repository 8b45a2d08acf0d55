import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DUE_CHANNEL } from '../../server/src/persistence/schedule.js';
import { createTestDatabase } from '../support/database.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// `POST /v1/actions` inserts a turn's plain creates and their audit events in one statement, which also announces
// those due within the announce window (a NOTIFY at its commit): the worker that owns one wakes in time instead of at
// its next read of the due index. A create due later is not announced.
describe('a create announces its attempt when it is due within seconds', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let listener: pg.Client;
  const heard: string[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('announce');
    // An API process alone: nothing claims the attempts, so the test reads only what the creates said.
    server = await startServer({ databaseUrl: db.url, role: 'api', env: { SCHED_RATE_LIMIT_FACTOR: '100' } });
    listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (m) => heard.push(m.payload ?? ''));
    await listener.query(`listen ${DUE_CHANNEL}`);
  });
  afterAll(async () => {
    await listener?.end();
    await server?.stop();
    await db?.drop();
  });

  it('announces `id,dueMs` of a create due in 2s, not of one due in an hour', async () => {
    const create = (wait: string) =>
      api(server, server.apiKey, 'POST', '/v1/actions', {
        schedule: { wait },
        request: { url: 'https://example.com/hook' },
      });
    const [soon, later] = await Promise.all([create('2s'), create('1h')]);
    expect(soon.status).toBe(201);
    expect(later.status).toBe(201);
    const due = Date.parse(soon.body.data.scheduled_for);
    await eventually(async () => heard.includes(`${soon.body.data.id},${due}`));
    // The later one was committed in the same turn or before the announcement arrived: nothing was said of it.
    expect(heard.some((h) => h.startsWith(later.body.data.id))).toBe(false);
    expect(heard).toHaveLength(1);
  });
});
