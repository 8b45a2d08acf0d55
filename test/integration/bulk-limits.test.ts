import { randomUUID } from 'node:crypto';
import { BulkOperationCreate, MAX_RUNNING_BULK_OPERATIONS } from '@sched/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/src/app/accounts.js';
import { BulkOperations } from '../../server/src/app/bulk/service.js';
import { ConflictError, RateLimitedError } from '../../server/src/app/errors.js';
import { RateLimiter } from '../../server/src/app/rate-limiter.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

// What a bulk operation may cost: a start can carry its dry run's count and is
// refused when the snapshot grew past it; an account runs at most three at once; a replay or retry start counts
// against the create limit. The queue here runs nothing, so started operations stay running.
describe('bulk operations: what a start may cost', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  let principal: Principal;
  let bulk: BulkOperations;
  const body = (b: Record<string, unknown>) => BulkOperationCreate.parse(b);
  const running = async () =>
    (
      await rawQuery<{ n: number }>(
        t.database.sql,
        `select count(*)::int as n from bulk_operations where account_id = $1 and status = 'running'`,
        [accountId],
      )
    )[0]!.n;
  const seed = (count: number, host: string) =>
    seedActions(t.url, { accountId, count, status: 'scheduled', url: `https://${host}/hook`, host });

  beforeAll(async () => {
    t = await openTestDatabase('bulk_limits');
    accountId = await t.newAccount();
    principal = {
      accountId,
      plan: 'business',
      rateLimitFactor: 1,
      keyId: randomUUID(),
      scopes: ['read', 'write'],
    };
    // A create limit of one an hour (100 x 0.01), so the second counted start is refused.
    bulk = new BulkOperations(t.database, { enqueue: async () => {} }, () => new Date(), {
      limiter: new RateLimiter(t.database),
      globalFactor: 0.01,
    });
  });
  afterAll(async () => t?.close());

  it("refuses a start whose snapshot matches more than the dry run's expected_matched; nothing starts", async () => {
    await seed(5, 'grow.example');
    const filter = { destination_host: 'grow.example' };
    const dry = await bulk.create(principal, body({ operation: 'cancel', filter }));
    expect(dry).toMatchObject({ kind: 'dry_run', data: { matched: 5 } });
    await seed(3, 'grow.example');
    const start = body({ operation: 'cancel', filter, dry_run: false, expected_matched: 5 });
    await expect(bulk.create(principal, start)).rejects.toThrow(ConflictError);
    await expect(bulk.create(principal, start)).rejects.toThrow(
      /matches 8 actions, more than expected_matched \(5\)/,
    );
    expect(await running()).toBe(0);
    const ok = await bulk.create(principal, { ...start, expected_matched: 8 });
    expect(ok).toMatchObject({ kind: 'started', data: { matched: 8, status: 'running' } });
    // The field belongs to a start.
    expect(BulkOperationCreate.safeParse({ operation: 'cancel', filter, expected_matched: 8 }).success).toBe(
      false,
    );
  });

  it(`lets an account run at most ${MAX_RUNNING_BULK_OPERATIONS} operations at once (409 past it)`, async () => {
    await seed(2, 'cap.example');
    const start = body({ operation: 'cancel', filter: { destination_host: 'cap.example' }, dry_run: false });
    while ((await running()) < MAX_RUNNING_BULK_OPERATIONS) await bulk.create(principal, start);
    const refused = bulk.create(principal, start);
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(bulk.create(principal, start)).rejects.toThrow(
      /3 bulk operations of this account are running/,
    );
    expect(await running()).toBe(MAX_RUNNING_BULK_OPERATIONS);
    // Two starts at once cannot both take the last place.
    const [first] = await bulk.list(accountId, { page: 1, per_page: 1 }).then((p) => p.data);
    await bulk.stop(accountId, first!.id);
    const both = await Promise.allSettled([bulk.create(principal, start), bulk.create(principal, start)]);
    expect(both.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('counts a replay or retry start against the create limit; its dry run is free', async () => {
    const ops = await bulk.list(accountId, { page: 1, per_page: 100, status: 'running' });
    for (const op of ops.data) await bulk.stop(accountId, op.id);
    await seedActions(t.url, {
      accountId,
      count: 2,
      status: 'failed',
      url: 'https://r.example/h',
      host: 'r.example',
    });
    const replay = { operation: 'replay', filter: { destination_host: 'r.example' } };
    for (let i = 0; i < 3; i += 1) await bulk.create(principal, body(replay));
    expect(await bulk.create(principal, body({ ...replay, dry_run: false }))).toMatchObject({
      kind: 'started',
    });
    await expect(
      bulk.create(principal, body({ ...replay, operation: 'retry', dry_run: false })),
    ).rejects.toThrow(RateLimitedError);
    // Other operations are not creates.
    expect(
      await bulk.create(
        principal,
        body({ operation: 'cancel', filter: { destination_host: 'r.example' }, dry_run: false }),
      ),
    ).toMatchObject({ kind: 'started' });
  });
});
