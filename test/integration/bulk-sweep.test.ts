import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  orphanedBulkOperations,
  startBulkOperation,
  stopBulkOperation,
  takeBulkLease,
} from '../../server/src/persistence/bulk-operations.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

// The bulk sweep's read (jobs/bulk-operations.ts): the running operations nobody holds, which the sweep runs, and
// whether any operation runs at all; while none does, nothing can be orphaned and the sweep backs off.
describe('the bulk sweep reads orphans and whether any operation runs', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;

  beforeAll(async () => {
    t = await openTestDatabase('bulk_sweep');
    accountId = await t.newAccount();
    await seedActions(t.url, {
      accountId,
      count: 3,
      status: 'scheduled',
      url: 'https://s.example/h',
      host: 's.example',
    });
  });
  afterAll(async () => t?.close());

  it('none running, one unheld, held, its lease run out, stopped', async () => {
    const now = new Date();
    const read = (at: Date) => orphanedBulkOperations(t.database.sql, at);
    expect(await read(now)).toEqual({ orphaned: [], running: false });
    const op = await t.database.transaction((db) =>
      startBulkOperation(
        db,
        {
          id: crypto.randomUUID(),
          accountId,
          operation: 'cancel',
          filter: { destination_host: 's.example' },
          options: null,
          note: null,
          now,
        },
        { filter: { destinationHost: 's.example' } },
      ),
    );
    // Started, its job not yet taken: nobody holds it.
    expect(await read(now)).toEqual({ orphaned: [op.id], running: true });
    // Held by a live lease: not orphaned, but running (the sweep keeps its pace).
    await takeBulkLease(t.database.sql, op.id, { now, until: new Date(now.getTime() + 10_000) });
    expect(await read(now)).toEqual({ orphaned: [], running: true });
    // Its holder died and the lease ran out: orphaned again.
    expect(await read(new Date(now.getTime() + 11_000))).toEqual({ orphaned: [op.id], running: true });
    await stopBulkOperation(t.database.sql, accountId, op.id, now);
    expect(await read(now)).toEqual({ orphaned: [], running: false });
  });
});
