import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { eventually, type Receiver, startReceiver } from '../support/receiver.js';
import { api, startServer, type TestServer } from '../support/server.js';

// Process faults under load. Two worker processes deliver 200 due webhooks a second for a minute
// while one of them is SIGKILLed every 6 s, ten times, and started again. Nothing is lost. An attempt a worker had
// sent but not yet recorded when it died is sent again once its lease expires (at-least-once): such doubles are
// counted, and each must be one of the attempts recorded as lost with a killed worker (never a race between the live
// workers). An attempt claimed but not yet sent is sent once, by whoever takes it over. The goal of doubles
// under 0.1 % was met in all three runs of the final code and missed in two earlier ones (docs/performance.md "Worker
// kills"): the figure swings with the machine's load, so it is printed, and bounded here only by the attempts the
// kills left unrecorded.
const RATE = 200;
const SECONDS = 60;
const KILLS = 10;
const KILL_EVERY_MS = 6_000;
const BATCH = 500;

describe('workers SIGKILLed under load', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let apiServer: TestServer;
  let rx: Receiver;
  const workers: (TestServer | undefined)[] = [];
  // Leases of 15 s (time scale 3): a live worker's attempt, slow on a loaded machine, is never taken for a lost one.
  const env = { SCHED_TIME_SCALE: '3', SCHED_RATE_LIMIT_FACTOR: '1000' };

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

  it(`${KILLS} SIGKILLs of a worker in a minute while ${RATE} webhooks a second come due: 0 lost, every double a killed worker's unrecorded attempt`, async () => {
    const count = RATE * SECONDS;
    const start = Date.now() + 30_000;
    const ids: string[] = [];
    for (let first = 0; first < count; first += BATCH) {
      const res = await api(apiServer, apiServer.apiKey, 'POST', '/v1/actions/batch', {
        actions: Array.from({ length: Math.min(BATCH, count - first) }, (_, k) => ({
          scheduled_for: new Date(start + ((first + k) * 1000) / RATE).toISOString(),
          request: { url: `${rx.url}/flow` },
        })),
      });
      expect(res.status).toBe(201);
      ids.push(...res.body.data.map((a: { id: string }) => a.id));
    }
    // The kills begin once the flow has: its first second delivered (on a slow machine creating may take longer than
    // the lead).
    await rx.waitFor('/flow', RATE, 60_000);

    // Kill a worker every 6 s (alternating), starting it again at once, while the flow lasts.
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
      // The scenario's pace (a kill every 6 s while the flow lasts), not a wait for a result.
      await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
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
        120_000,
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
      `worker kills: ${KILLS} SIGKILLs, ${count} webhooks, ${seen.size} delivered, ${lost.length} lost, ${doubles} doubled (${((doubles / count) * 100).toFixed(3)} %), ${lostLeases} attempts lost with a killed worker`,
    );
    expect(lost).toEqual([]);
    // A double is an attempt a killed worker had sent but not recorded, retried once its lease expired: every double
    // is one of those, never a race between the live workers.
    expect(doubles).toBeLessThanOrEqual(lostLeases);
  }, 360_000);
});
