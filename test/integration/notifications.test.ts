import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openNotifications, reconnectDelayMs } from '../../server/src/persistence/notifications.js';
import { openTestDatabase } from '../support/in-process.js';
import { eventually } from '../support/wait.js';

// The process's one LISTEN connection (persistence/notifications.ts) on a real PostgreSQL: it fans out by channel,
// and when its backend is killed it reconnects with back-off, listens again and tells its subscribers.
describe('notifications: one LISTEN connection', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;

  beforeAll(async () => {
    t = await openTestDatabase('notifications');
  });
  afterAll(async () => {
    await t?.close();
  });

  const notify = (channel: string, payload: string) =>
    sql`select pg_notify(${channel}, ${payload})`.execute(t.database.sql);

  it('fans out by channel, and comes back after its connection is killed', async () => {
    const heard: string[] = [];
    let reconnections = 0;
    const lost: string[] = [];
    const n = await openNotifications(t.url, {
      minDelayMs: 20,
      maxDelayMs: 200,
      lost: (err) => lost.push(err.message),
    });
    try {
      await n.subscribe('sched_test_a', { payload: (p) => heard.push(`a:${p}`) });
      await n.subscribe('sched_test_b', {
        payload: (p) => heard.push(`b:${p}`),
        reconnected: () => {
          reconnections += 1;
        },
      });
      await notify('sched_test_a', '1');
      await notify('sched_test_b', '2');
      await notify('sched_test_other', '3');
      await eventually(async () => heard.length === 2);
      expect(heard.sort()).toEqual(['a:1', 'b:2']);

      // One backend listens for the whole process, whatever the number of channels.
      const backends = async () =>
        (
          await sql<{ pid: number }>`select pid from pg_stat_activity
            where application_name = 'sched-worker-listen' and datname = current_database()`.execute(
            t.database.sql,
          )
        ).rows;
      expect(await backends()).toHaveLength(1);

      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = 'sched-worker-listen' and datname = current_database()`.execute(
        t.database.sql,
      );
      await eventually(async () => reconnections === 1, 10_000);
      expect(lost).toHaveLength(1);
      heard.length = 0;
      await notify('sched_test_a', '4');
      await notify('sched_test_b', '5');
      await eventually(async () => heard.length === 2);
      expect(heard.sort()).toEqual(['a:4', 'b:5']);
      expect(await backends()).toHaveLength(1);
    } finally {
      await n.close();
    }
  });

  it('waits exponentially longer between attempts, capped, with jitter in the upper half', () => {
    const opts = { minDelayMs: 100, maxDelayMs: 1_000 };
    expect(reconnectDelayMs(0, { ...opts, random: () => 1 })).toBe(100);
    expect(reconnectDelayMs(0, { ...opts, random: () => 0 })).toBe(50);
    expect(reconnectDelayMs(3, { ...opts, random: () => 1 })).toBe(800);
    expect(reconnectDelayMs(4, { ...opts, random: () => 1 })).toBe(1_000);
    expect(reconnectDelayMs(40, { ...opts, random: () => 0 })).toBe(500);
  });
});
