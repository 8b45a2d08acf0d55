import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database, migrateUp, openOrm } from '../../server/src/persistence/database.js';

import { ANNOUNCE_WINDOW_MS, RESOLVE_WINDOW_MS } from '../../server/src/domain/schedule/window.js';
import { createActionScheduler } from '../../server/src/jobs/scheduler.js';
import { openNotifications } from '../../server/src/persistence/notifications.js';
import { DUE_CHANNEL } from '../../server/src/persistence/schedule.js';
import { ownerSlot } from '../../server/src/persistence/workers.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { rawQuery } from '../support/in-process.js';
import { eventually } from '../support/wait.js';

// The persistence side of scheduling, on a real PostgreSQL: the row is the schedule; an attempt due within the
// look-ahead window is announced at commit, a later one is found by its worker's scan of the due index, which also
// promotes `scheduled` attempts entering the window; and prepared statements survive another process's migration.
describe('scheduling from the due index', () => {
  let database: TestDatabase;
  let orm: Awaited<ReturnType<typeof openOrm>>;
  let store: Database;
  let listener: pg.Client;
  const heard: string[] = [];
  let accountId: string;
  const everyone = { slots: 1, slot: 0, overdueBefore: new Date(0) };

  beforeAll(async () => {
    database = await createTestDatabase('scheduling');
    orm = await openOrm({ databaseUrl: database.url });
    await migrateUp(orm);
    store = new Database(orm);
    listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    listener.on('notification', (m) => heard.push(m.payload ?? ''));
    await listener.query(`listen ${DUE_CHANNEL}`);
    accountId = randomUUID();
    await rawQuery(
      store.sql,
      `insert into accounts (id, name, plan, rate_limit_factor, created_at, updated_at)
       values ($1, 'scheduling', 'business', 1, now(), now())`,
      [accountId],
    );
  });
  afterAll(async () => {
    await listener?.end();
    await orm?.close(true);
    await database?.drop();
  });

  const scheduler = () => createActionScheduler(() => new Date());

  async function newAction(dueAt: Date, status = 'scheduled', id: string = randomUUID()): Promise<string> {
    await store.transaction(async (tx) => {
      await rawQuery(
        tx,
        `insert into actions (id, account_id, name, mode, status, timezone, scheduled_for, next_attempt_at,
           max_attempts, retry_strategy, request, created_at, updated_at)
         values ($1, $2, 'a', 'webhook', $4, 'UTC', $3, $3, 3, 'exponential', '{}'::jsonb, now(), now())`,
        [id, accountId, dueAt, status],
      );
      await scheduler().schedule(tx, id, dueAt);
    });
    return id;
  }

  async function statusOf(id: string): Promise<string> {
    const [row] = await rawQuery<{ status: string }>(store.sql, 'select status from actions where id = $1', [
      id,
    ]);
    return row!.status;
  }

  /** Moves every due attempt out of the way, so each test reads its own. */
  async function clear(): Promise<void> {
    await rawQuery(
      store.sql,
      `update actions set status = 'cancelled' where status in ('scheduled', 'resolved')`,
    );
  }

  it('an attempt due within seconds is announced at commit; a later one is not (the scan finds it)', async () => {
    const soon = new Date(Date.now() + ANNOUNCE_WINDOW_MS / 2);
    const near = await newAction(soon);
    const far = await newAction(new Date(Date.now() + 2 * ANNOUNCE_WINDOW_MS));
    await eventually(async () => heard.includes(`${near},${soon.getTime()}`));
    expect(heard.some((h) => h.startsWith(far))).toBe(false);
    // Announcing writes nothing: the row is the schedule.
    expect(await statusOf(near)).toBe('scheduled');
    // Several at once, in one statement: those within the window only.
    const a = randomUUID();
    const b = randomUUID();
    await store.transaction((tx) =>
      scheduler().announce(tx, [
        { actionId: a, dueAt: soon },
        { actionId: b, dueAt: new Date(Date.now() + 2 * ANNOUNCE_WINDOW_MS) },
      ]),
    );
    await eventually(async () => heard.includes(`${a},${soon.getTime()}`));
    expect(heard.some((h) => h.startsWith(b))).toBe(false);
  });

  it('the scan promotes attempts entering the window, held ones too, and reads the earliest due time of those not held', async () => {
    await clear();
    const far = await newAction(new Date(Date.now() + 3_600_000));
    let scan = await scheduler().promoteEntering(store, everyone);
    expect(await statusOf(far)).toBe('scheduled');
    expect(scan.nextDue?.getTime()).toBe((await dueOf(far)).getTime());

    // Time passes: the attempt is now 30 s away; a held one is due already.
    const due = new Date(Date.now() + 30_000);
    await rawQuery(store.sql, 'update actions set next_attempt_at = $2 where id = $1', [far, due]);
    const held = await newAction(new Date(Date.now() - 1_000));
    await rawQuery(store.sql, `update actions set held_since = now(), held_by = 'paused' where id = $1`, [
      held,
    ]);
    scan = await scheduler().promoteEntering(store, everyone);
    expect(await statusOf(far)).toBe('resolved');
    // A held attempt enters the window too (a claim may hold it first); only the earliest due time leaves it out.
    expect(await statusOf(held)).toBe('resolved');
    expect(scan.nextDue?.getTime()).toBe(due.getTime());
  });

  /** A random id owned by `slot` of three workers (persistence/workers.ts `ownerSlot`). */
  const inSlot = (slot: number): string => {
    for (;;) {
      const id = randomUUID();
      if (ownerSlot(id, 3) === slot) return id;
    }
  };

  it("a worker promotes and reads only its share, and anyone's overdue attempts", async () => {
    await clear();
    // Four ids in each of the three slots: random ids would leave a slot empty about once in a hundred runs.
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        newAction(new Date(Date.now() + 20_000 + i * 1_000), 'scheduled', inSlot(i % 3)),
      ),
    );
    const mine = ids.filter((id) => ownerSlot(id, 3) === 1);
    const scan = await scheduler().promoteEntering(store, { slots: 3, slot: 1, overdueBefore: new Date(0) });
    for (const id of ids) expect(await statusOf(id)).toBe(mine.includes(id) ? 'resolved' : 'scheduled');
    const earliest = Math.min(...(await Promise.all(mine.map(dueOf))).map((d) => d.getTime()));
    expect(scan.nextDue?.getTime()).toBe(earliest);
    // An attempt of another slot, overdue past the grace: this worker's too.
    const other = ids.find((id) => ownerSlot(id, 3) === 2)!;
    const overdue = new Date(Date.now() - 60_000);
    await rawQuery(store.sql, 'update actions set next_attempt_at = $2 where id = $1', [other, overdue]);
    const late = await scheduler().promoteEntering(store, {
      slots: 3,
      slot: 1,
      overdueBefore: new Date(Date.now() - 5_000),
    });
    expect(late.nextDue?.getTime()).toBe(overdue.getTime());
  });

  it('a worker named by its member lock reads the live members in the promote statement and takes its slot’s share', async () => {
    await clear();
    // Three workers' member locks (each the backend pid of a LISTEN connection), as compose/worker.ts holds them.
    const workers = await Promise.all([0, 1, 2].map(() => openNotifications(database.url, { member: true })));
    try {
      const members = workers.map((w) => w.member()!).sort((a, b) => a - b);
      const ids = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          newAction(new Date(Date.now() + 20_000 + i * 1_000), 'scheduled', inSlot(i % 3)),
        ),
      );
      const second = { member: members[1]!, overdueBefore: new Date(0) };
      const scan = await scheduler().promoteEntering(store, second);
      expect(scan.members).toEqual(members);
      for (const id of ids)
        expect(await statusOf(id)).toBe(ownerSlot(id, 3) === 1 ? 'resolved' : 'scheduled');
      // A worker whose lock is gone (its connection closed) owns nothing, and the others see two members.
      await workers[2]!.close();
      const third = { member: members[2]!, overdueBefore: new Date(0) };
      // The backend releases its locks as it exits, a moment after the connection closed.
      await expect
        .poll(async () => (await scheduler().promoteEntering(store, third)).members)
        .toEqual(members.slice(0, 2));
      const gone = await scheduler().promoteEntering(store, third);
      expect(gone.nextDue).toBeNull();
      for (const id of ids)
        expect(await statusOf(id)).toBe(ownerSlot(id, 3) === 1 ? 'resolved' : 'scheduled');
    } finally {
      await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
    }
  });

  it('a row locked by another transaction is left for the next scan, not waited for', async () => {
    await clear();
    const id = await newAction(new Date(Date.now() + RESOLVE_WINDOW_MS / 2));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query('select 1 from actions where id = $1 for update', [id]);
      await scheduler().promoteEntering(store, everyone);
      expect(await statusOf(id)).toBe('scheduled');
      await client.query('rollback');
    } finally {
      await client.end();
    }
    await scheduler().promoteEntering(store, everyone);
    expect(await statusOf(id)).toBe('resolved');
  });

  it('cancelled and executed actions are not due', async () => {
    await clear();
    const id = await newAction(new Date(Date.now() + 3_600_000));
    await rawQuery(
      store.sql,
      `update actions set status = 'executed', next_attempt_at = now() + interval '10 seconds' where id = $1`,
      [id],
    );
    expect((await scheduler().promoteEntering(store, everyone)).nextDue).toBeNull();
    expect(await statusOf(id)).toBe('executed');
  });

  async function dueOf(id: string): Promise<Date> {
    const [row] = await rawQuery<{ next_attempt_at: Date }>(
      store.sql,
      'select next_attempt_at from actions where id = $1',
      [id],
    );
    return new Date(row!.next_attempt_at);
  }

  it('a prepared statement still answers after another process changed the table it returns', async () => {
    // One connection, so the statement prepared by the first read is the one the later reads meet.
    const single = new Database(await openOrm({ databaseUrl: database.url, poolSize: 1 }));
    try {
      await rawQuery(single.sql, 'create table prepared_probe (id int primary key)');
      await rawQuery(single.sql, 'insert into prepared_probe values (1)');
      // Statements with parameters are the ones sent as named prepared statements.
      const read = () => rawQuery(single.sql, 'select * from prepared_probe where id = $1', [1]);
      const readInTransaction = () =>
        single.transaction((tx) => rawQuery(tx, 'select * from prepared_probe where id = $1', [1]));
      expect(await read()).toEqual([{ id: 1 }]);
      expect(await readInTransaction()).toEqual([{ id: 1 }]);
      // A migration from another process: the prepared `select *` now returns a different row type.
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      await other.query('alter table prepared_probe add column label text');
      await other.end();
      // The error has aborted that transaction: the caller sees it once; the connection stays usable after.
      await expect(readInTransaction()).rejects.toMatchObject({ code: '0A000' });
      for (let i = 0; i < 3; i++) {
        expect(await readInTransaction()).toEqual([{ id: 1, label: null }]);
        expect(await read()).toEqual([{ id: 1, label: null }]);
      }
    } finally {
      await single.close();
    }
  });
});
