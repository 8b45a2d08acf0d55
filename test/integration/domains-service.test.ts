import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationThresholdError, destinationGuard } from '../../server/src/app/domains/guard.js';
import { DomainService } from '../../server/src/app/domains/service.js';
import { ValidationError } from '../../server/src/app/errors.js';
import { openTestDatabase } from '../support/in-process.js';

/** The use cases on a real database with a fake clock, fake probes and a recording job queue. */
describe('domains in-process: thresholds by day and month, background checks', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId: string;
  let now = new Date('2026-03-30T10:00:00Z');
  const clock = () => now;
  const scheduled: { domain: string; at: Date }[] = [];
  const probes = { dns: null as string | null, file: 'file missing' as string | null, calls: 0 };
  let service: DomainService;

  beforeAll(async () => {
    t = await openTestDatabase('domainsvc');
    accountId = await t.newAccount();
    service = new DomainService({
      store: t.database,
      clock,
      limits: { perDay: 10, perMonth: 100 },
      checks: { schedule: async (_db, _a, domain, at) => void scheduled.push({ domain, at }) },
      probes: {
        dns: async () => {
          probes.calls += 1;
          return probes.dns;
        },
        file: async () => probes.file,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts per UTC day and per UTC month, refusing past either, and a rollback gives the count back', async () => {
    const guard = destinationGuard({ perDay: 2, perMonth: 3 });
    const count = (at: string) =>
      t.database.transaction((db) => guard(db, accountId, 'https://m.example.com/x', new Date(at)));
    await count('2026-03-30T23:00:00Z');
    await count('2026-03-30T23:59:59Z');
    await expect(count('2026-03-30T23:59:59Z')).rejects.toBeInstanceOf(ValidationError);
    await count('2026-03-31T00:00:00Z'); // a new day: 1 today, 3 this month
    const refused = await count('2026-03-31T01:00:00Z').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).errors['request.url']![0]).toMatch(
      /limit of 2 actions a day or 3 a month/,
    );
    await count('2026-04-01T00:00:00Z'); // a new month
    // A create rolled back after counting leaves the count as it was.
    await expect(
      t.database.transaction(async (db) => {
        await guard(db, accountId, 'https://m.example.com/x', new Date('2026-04-01T01:00:00Z'));
        throw new Error('the create failed later');
      }),
    ).rejects.toThrow('the create failed later');
    await count('2026-04-01T02:00:00Z');
    await expect(count('2026-04-01T03:00:00Z')).rejects.toBeInstanceOf(ValidationError);
    // IP literals are not counted at all.
    for (let i = 0; i < 5; i++)
      await t.database.transaction((db) => guard(db, accountId, 'http://10.1.2.3/x', new Date()));
  });

  it('a host and its registrable domain count together: a refusal of the domain gives the host its count back', async () => {
    const guard = destinationGuard({ perDay: 2, perMonth: 100 });
    const at = new Date('2026-05-04T10:00:00Z');
    const usage = async (domain: string) =>
      (
        await t.database.sql
          .selectFrom('domains')
          .select('day_count')
          .where('account_id', '=', accountId)
          .where('domain', '=', domain)
          .executeTakeFirst()
      )?.day_count ?? 0;
    for (const host of ['a.pair.co.uk', 'b.pair.co.uk'])
      expect(await t.database.transaction((db) => guard(db, accountId, `https://${host}/x`, at))).toBe(true);
    // The caller goes on in its transaction after the refusal (as a chain step or a blocked send does).
    const refused = await t.database.transaction(async (db) =>
      guard(db, accountId, 'https://c.pair.co.uk/x', at).catch((e: unknown) => e),
    );
    expect(refused).toBeInstanceOf(DestinationThresholdError);
    expect(await usage('pair.co.uk')).toBe(2);
    expect(await usage('c.pair.co.uk')).toBe(0);
  });

  it('checks a pending domain in the background with backoff, and stops once verified', async () => {
    const d = 'bg.example.com';
    await service.verify(accountId, d);
    expect(scheduled.at(-1)).toEqual({ domain: d, at: new Date(now.getTime() + 60_000) });

    // A job that fires early (or was superseded) does nothing.
    await service.backgroundCheck(accountId, d);
    expect(probes.calls).toBe(0);

    now = new Date(now.getTime() + 60_000);
    probes.dns = 'no TXT record on bg.example.com';
    await service.backgroundCheck(accountId, d);
    expect(probes.calls).toBe(1);
    expect(scheduled.at(-1)).toEqual({ domain: d, at: new Date(now.getTime() + 5 * 60_000) });
    const pending = await service.get(accountId, d);
    expect(pending).toMatchObject({
      status: 'pending',
      last_errors: { dns: 'no TXT record on bg.example.com', file: 'file missing' },
    });

    now = new Date(now.getTime() + 5 * 60_000);
    probes.dns = null;
    const before = scheduled.length;
    await service.backgroundCheck(accountId, d);
    expect(scheduled.length).toBe(before);
    expect(await service.get(accountId, d)).toMatchObject({
      status: 'verified',
      method: 'dns',
      next_check_at: null,
      last_errors: null,
    });
    // Verified: the token stays, and checking again changes nothing.
    const again = await service.verify(accountId, d);
    expect(again.verification_token).toBe((await service.get(accountId, d)).verification_token);
    expect(scheduled.length).toBe(before);
  });

  it('stops the background checks 24 hours after verification started', async () => {
    const d = 'late.example.com';
    probes.dns = 'no TXT record';
    const started = now;
    await service.verify(accountId, d);
    now = new Date(started.getTime() + 24 * 3600_000 + 1);
    // The check at the end of the window runs once, records why, and plans nothing more.
    await t.database.sql.updateTable('domains').set({ next_check_at: now }).where('domain', '=', d).execute();
    const before = scheduled.length;
    await service.backgroundCheck(accountId, d);
    expect(scheduled.length).toBe(before);
    expect(await service.get(accountId, d)).toMatchObject({ status: 'pending', next_check_at: null });
  });
  it('verifying a registrable domain leaves its subdomains limited; verifying a host frees that host only', async () => {
    const guard = destinationGuard({ perDay: 2, perMonth: 100 });
    const at = now;
    const send = (host: string) =>
      t.database.transaction((db) =>
        guard(db, accountId, `https://${host}/x`, at).then(
          (counted) => (counted ? 'counted' : 'free'),
          (e: unknown) => (e instanceof DestinationThresholdError ? 'refused' : Promise.reject(e)),
        ),
      );
    probes.dns = null;
    await service.verify(accountId, 'zone9.co.uk');
    await service.check(accountId, 'zone9.co.uk');
    expect((await service.get(accountId, 'zone9.co.uk')).status).toBe('verified');
    // The verified domain itself is free; a subdomain is a host of its own, with its own threshold.
    expect(await send('zone9.co.uk')).toBe('free');
    expect([await send('a.zone9.co.uk'), await send('a.zone9.co.uk'), await send('a.zone9.co.uk')]).toEqual([
      'counted',
      'counted',
      'refused',
    ]);
    await service.verify(accountId, 'a.zone9.co.uk');
    await service.check(accountId, 'a.zone9.co.uk');
    expect((await service.get(accountId, 'a.zone9.co.uk')).status).toBe('verified');
    expect(await send('a.zone9.co.uk')).toBe('free');
    // Another subdomain is not covered by its sibling's verification.
    expect(await send('b.zone9.co.uk')).toBe('counted');

    // Unverified zone: the registrable domain still counts every subdomain's sends (the abuse guard).
    expect([
      await send('a.flood9.co.uk'),
      await send('b.flood9.co.uk'),
      await send('c.flood9.co.uk'),
    ]).toEqual(['counted', 'counted', 'refused']);
  });

  it("a callback's host: checked without counting at create, counted and never refused at send", async () => {
    const guard = destinationGuard({ perDay: 1, perMonth: 100 });
    const at = now;
    const url = 'https://cb.callbacks9.test/hook';
    const peek = () =>
      guard(t.database.sql, accountId, url, at, { field: 'callback_url', peek: true }).then(
        () => 'room',
        (e: unknown) =>
          e instanceof DestinationThresholdError ? Object.keys(e.errors)[0] : Promise.reject(e),
      );
    expect(await peek()).toBe('room');
    expect(await peek()).toBe('room'); // a check counts nothing
    const sendCallback = () =>
      t.database.transaction((db) => guard(db, accountId, url, at, { always: true, unverified: true }));
    for (let i = 0; i < 3; i++) expect(await sendCallback()).toBe(true);
    expect((await service.get(accountId, 'cb.callbacks9.test')).usage.today).toBe(3);
    expect(await peek()).toBe('callback_url');
  });
});
