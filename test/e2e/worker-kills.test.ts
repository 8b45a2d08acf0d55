import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Issue 21, item 6: process faults under load. Two worker processes deliver a steady flow of due webhooks while one
// of them is SIGKILLed every 3 s, ten times, and started again. Nothing is lost; an attempt a worker was sending
// when it died may be sent again after its lease expires (at-least-once): such doubles are counted, and each must be
// one of the attempts recorded as lost with a killed worker. The scale here (40 due/s) is what a shared test machine
// carries; the rate of issue 21 (200 due/s) and its 0.1 % goal are a bench figure.
const RATE = 40;
const SECONDS = 25;
const KILLS = 10;

describe('workers SIGKILLed under load', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apiServer: TestServer;
  let rx: Receiver;
  const workers: (TestServer | undefined)[] = [];
  const env = { SCHED_TIME_SCALE: '300', SCHED_RATE_LIMIT_FACTOR: '1000' };

  beforeAll(async () => {
    db = await createTestDatabase('kills');
    rx = await startReceiver();
    apiServer = await startServer({ databaseUrl: db.url, role: 'api', env });
    for (let i = 0; i < 2; i++)
      workers.push(
        await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: apiServer.dataDir }),
      );
  }, 90_000);
  afterAll(async () => {
    for (const w of workers) await w?.stop();
    await apiServer?.stop();
    await rx?.close();
    await db?.drop();
  });

  it(`${KILLS} SIGKILLs of a worker in ${KILLS * 3} s while ${RATE} webhooks a second come due: 0 lost, doubles counted`, async () => {
    const count = RATE * SECONDS;
    const start = Date.now() + 20_000;
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < count) {
          const i = next++;
          const res = await api(apiServer, apiServer.apiKey, 'POST', '/v1/actions', {
            scheduled_for: new Date(start + (i * 1000) / RATE).toISOString(),
            request: { url: `${rx.url}/flow` },
          });
          expect(res.status).toBe(201);
          ids.push(res.body.data.id);
        }
      }),
    );
    // The kills begin once the flow has: its first second delivered (on a slow machine creating may take longer than
    // the lead).
    await rx.waitFor('/flow', RATE, 60_000);

    // Kill a worker every 3 s (alternating), starting it again at once, while the flow lasts.
    const restarts: Promise<void>[] = [];
    for (let k = 0; k < KILLS; k++) {
      const slot = k % 2;
      const victim = workers[slot];
      workers[slot] = undefined;
      await victim?.kill();
      restarts.push(
        (async () => {
          workers[slot] = await startServer({
            databaseUrl: db.url,
            role: 'worker',
            env,
            dataDir: apiServer.dataDir,
          });
        })(),
      );
      // The scenario's pace (a kill every 3 s while the flow lasts), not a wait for a result.
      await new Promise((r) => setTimeout(r, 3_000));
      await restarts[k - 1];
    }
    await Promise.all(restarts);

    let lostLeases = 0;
    const sql = new pg.Client({ connectionString: db.url });
    sql.on('error', () => {});
    await sql.connect();
    try {
      await eventually(
        async () => {
          const r = await sql.query<{ n: number }>(
            "select count(*)::int as n from actions where status <> 'executed'",
          );
          return r.rows[0]!.n === 0;
        },
        90_000,
        500,
      );
      // A double is sent by the retry of a killed worker's attempt, before its action is recorded final: with every
      // action executed, the doubles counted below are final.
      lostLeases = (
        await sql.query<{ n: number }>(
          "select count(*)::int as n from delivery_attempts where outcome = 'retryable' and error ilike '%lease%'",
        )
      ).rows[0]!.n;
    } finally {
      await sql.end();
    }
    const seen = new Map<string, number>();
    for (const r of rx.to('/flow')) {
      const id = String(r.headers['x-sched-action-id']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    const lost = ids.filter((id) => !seen.has(id));
    const doubles = [...seen.values()].reduce((n, c) => n + c - 1, 0);
    console.log(
      `worker kills: ${KILLS} SIGKILLs, ${count} webhooks, ${seen.size} delivered, ${lost.length} lost, ${doubles} doubled (${((doubles / count) * 100).toFixed(2)} %), ${lostLeases} attempts lost with a killed worker`,
    );
    expect(lost).toEqual([]);
    // A double is an attempt a killed worker had sent but not recorded, retried once its lease expired: every double
    // is one of those, never a race between the live workers.
    expect(lostLeases).toBeGreaterThan(0);
    expect(doubles).toBeLessThanOrEqual(lostLeases);
  }, 240_000);
});
