import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CircuitBreaker } from '../../server/src/app/destinations/breaker.js';
import type { DestinationWake } from '../../server/src/app/ports.js';
import { destinationOrigin } from '../../server/src/domain/destinations/origin.js';
import { Database, migrateUp, openOrm } from '../../server/src/persistence/database.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawQuery } from '../support/in-process.js';

const BEFORE = 'Migration20261128161000_AnswerValuesGrants';

/**
 * Destinations keyed by host become destinations keyed by origin: rows written the old way (a host's settings,
 * pause and circuit; actions with only `destination_host`) are migrated, and no setting is lost.
 */
describe('migration: destinations by origin', { timeout: 60_000 }, () => {
  let test: TestDatabase;
  let database: Database;
  const account = randomUUID();
  const urls = [
    'http://127.0.0.1:9000/a',
    'http://127.0.0.1:9001/b?x=1',
    'HTTPS://API.Example.com:443/y',
    'https://api.example.com./x',
    'http://api.example.com/plain',
    'https://bücher.de/x',
    'http://[::1]:8080/',
    'https://user:pw@api.example.com:8443/z',
    'http://0x7f.1:9002/hex',
  ];

  beforeAll(async () => {
    test = await createTestDatabase('dest_origins', { empty: true });
    database = new Database(await openOrm({ databaseUrl: test.url, poolSize: 2 }));
    await database.orm.migrator.up({ to: BEFORE });
    const db = database.sql;
    const now = new Date();
    await rawQuery(
      db,
      `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'old', 'business', now(), now())`,
      [account],
    );
    for (const [i, url] of urls.entries()) {
      const host = new URL(url).hostname.replace(/\.+$/, '').toLowerCase();
      await rawQuery(
        db,
        `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at, max_attempts,
           attempt_count, retry_strategy, request, destination_host, created_at, updated_at)
         values (gen_random_uuid(), $1, $2, 'webhook', 'scheduled', 'UTC', $3, $3, 3, 0, 'exponential', $4, $5, $3, $3)`,
        [account, `old ${i}`, now, JSON.stringify({ url, method: 'POST', headers: {} }), host],
      );
    }
    // The host's row as the old release wrote it: flow control, a pause and an open circuit on `127.0.0.1`.
    await rawQuery(
      db,
      `insert into destinations (account_id, host, flow, circuit, paused_at, paused_until, pause_note, circuit_state,
         circuit_opened_at, circuit_next_probe_at, circuit_reopens, created_at, updated_at)
       values ($1, '127.0.0.1', '{"parallelism":2}', '{"min_requests":3}', $2, null, 'maintenance', 'open', $2, $3, 1,
               $2, $2),
              ($1, 'api.example.com', null, '{"open_for":"30s"}', null, null, null, 'closed', null, null, 0, $2, $2),
              ($1, 'quiet.example', '{"rate":5,"period":"1m"}', null, null, null, null, 'closed', null, null, 0, $2, $2)`,
      [account, now, new Date(now.getTime() + 60_000)],
    );
    expect(await migrateUp(database.orm)).toContain('Migration20261128170000_DestinationOrigins');
  });
  afterAll(async () => {
    await database?.close();
    await test?.drop();
  });

  it("gives every action its request's origin, spelled as the domain rule spells it", async () => {
    const rows = await rawQuery<{ url: string; destination_origin: string | null }>(
      database.sql,
      `select request->>'url' as url, destination_origin from actions where account_id = $1`,
      [account],
    );
    expect(rows).toHaveLength(urls.length);
    for (const r of rows) expect(r.destination_origin, r.url).toBe(destinationOrigin(r.url));
    expect(rows.map((r) => r.destination_origin).sort()).toEqual(
      [
        'http://127.0.0.1:9000',
        'http://127.0.0.1:9001',
        'https://api.example.com',
        'https://api.example.com',
        'http://api.example.com',
        'https://xn--bcher-kva.de',
        'http://[::1]:8080',
        'https://api.example.com:8443',
        'http://127.0.0.1:9002',
      ].sort(),
    );
  });

  it("copies each host's settings, pause and circuit to every origin of it, and to its https origin", async () => {
    const rows = await rawQuery<Record<string, any>>(
      database.sql,
      `select origin, flow, circuit, pause_note, circuit_state, circuit_reopens from destinations
        where account_id = $1 order by origin`,
      [account],
    );
    const by = Object.fromEntries(rows.map((r) => [r.origin, r]));
    expect(Object.keys(by).sort()).toEqual(
      [
        'http://127.0.0.1:9000',
        'http://127.0.0.1:9001',
        'http://127.0.0.1:9002',
        'https://127.0.0.1',
        'http://api.example.com',
        'https://api.example.com',
        'https://api.example.com:8443',
        'https://quiet.example',
      ].sort(),
    );
    for (const o of [
      'http://127.0.0.1:9000',
      'http://127.0.0.1:9001',
      'http://127.0.0.1:9002',
      'https://127.0.0.1',
    ])
      expect(by[o]).toMatchObject({
        flow: { parallelism: 2 },
        circuit: { min_requests: 3 },
        pause_note: 'maintenance',
        circuit_state: 'open',
        circuit_reopens: 1,
      });
    for (const o of ['http://api.example.com', 'https://api.example.com', 'https://api.example.com:8443'])
      expect(by[o]).toMatchObject({ flow: null, circuit: { open_for: '30s' }, circuit_state: 'closed' });
    expect(by['https://quiet.example']).toMatchObject({ flow: { rate: 5, period: '1m' } });
  });

  it("a wake written before the upgrade (naming a host) wakes each of the host's origins", async () => {
    const wakes: DestinationWake[] = [];
    const breaker = new CircuitBreaker({
      store: database,
      clock: () => new Date(),
      events: { record: async () => {} },
      wakes: { wakeAt: async (_tx, wake) => void wakes.push(wake) },
    });
    expect(await breaker.wake({ accountId: account, host: '127.0.0.1' })).toEqual([]);
    expect(wakes.map((w) => w.origin).sort()).toEqual(
      ['http://127.0.0.1:9000', 'http://127.0.0.1:9001', 'http://127.0.0.1:9002', 'https://127.0.0.1'].sort(),
    );
    wakes.length = 0;
    await rawQuery(
      database.sql,
      `insert into destinations (account_id, origin, created_at, updated_at) values ($1, 'http://[::1]:8080', now(), now())`,
      [account],
    );
    await breaker.wake({ accountId: account, host: '[::1]' });
    expect(wakes).toEqual([{ accountId: account, origin: 'http://[::1]:8080' }]);
  });

  it('indexes held deliveries by origin', async () => {
    const [index] = await rawQuery<{ indexdef: string }>(
      database.sql,
      `select indexdef from pg_indexes where indexname = 'actions_held_index'`,
    );
    expect(index?.indexdef).toContain('destination_origin');
  });
});
