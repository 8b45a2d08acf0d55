import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../server/src/app/accounts.js';
import { AccountService } from '../../server/src/app/accounts.js';
import {
  NotificationChannelService,
  TeamMemberService,
} from '../../server/src/app/directory/chat-and-team.js';
import { AuditService, recordAuditEvents } from '../../server/src/app/audit.js';
import { primaryReads } from '../../server/src/app/reads.js';
import { ContactService } from '../../server/src/app/directory/contacts.js';
import { DomainService } from '../../server/src/app/domains/service.js';
import { TemplateService } from '../../server/src/app/templates/service.js';
import {
  auditEventOfColumns,
  auditHash,
  canonicalJson,
  canonicalParts,
  GENESIS_HASH,
} from '../../server/src/domain/audit/chain.js';
import type { PendingAuditEvent } from '../../server/src/persistence/audit-events.js';
import { Database, migrateUp, openOrm } from '../../server/src/persistence/database.js';
import { createTestDatabase } from '../support/database.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';

/**
 * The audit log's guarantees on a real database, in-process: an event commits with its change or not at all, a day
 * of mixed and concurrent operations leaves one unbroken chain per account, and a row changed behind the service's
 * back is found by its seq.
 */
describe('audit log in-process', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let now = new Date('2026-05-04T00:00:00Z');
  const clock = () => now;
  let accounts: AccountService;
  let contacts: ContactService;
  let members: TeamMemberService;
  let channels: NotificationChannelService;
  let templates: TemplateService;
  let audit: AuditService;
  const principal = (accountId: string): Principal => ({
    accountId,
    plan: 'business',
    rateLimitFactor: 1,
    keyId: 'k',
    scopes: ['read', 'write', 'admin'],
  });
  const count = async (table: string, accountId: string) =>
    Number(
      (
        await rawQuery<{ n: string }>(
          t.database.sql,
          `select count(*) as n from ${table} where account_id = $1`,
          [accountId],
        )
      )[0]!.n,
    );

  beforeAll(async () => {
    t = await openTestDatabase('audit_inprocess');
    accounts = new AccountService(t.database, clock);
    contacts = new ContactService(t.database);
    members = new TeamMemberService(t.database);
    channels = new NotificationChannelService(t.database, { allowPrivateDestinations: false });
    templates = new TemplateService({
      store: t.database,
      clock,
      publicUrl: () => 'https://sched.example',
      allowPrivateDestinations: false,
    });
    audit = new AuditService(t.database, clock, primaryReads(t.database));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('an event commits with its change or not at all: when the append fails, the change is rolled back', async () => {
    const accountId = await t.newAccount();
    const kept = await contacts.create(accountId, { name: 'Kept', email: 'kept@example.com' });
    // Every append refused while this trigger stands, as a failing write of the event would be.
    await rawQuery(
      t.database.sql,
      `create function refuse_audit() returns trigger as $$ begin raise exception 'audit refused'; end $$ language plpgsql`,
    );
    await rawQuery(
      t.database.sql,
      'create trigger refuse_audit before insert on audit_pending for each row execute function refuse_audit()',
    );
    try {
      const before = {
        contacts: await count('contacts', accountId),
        api_keys: await count('api_keys', accountId),
        team_members: await count('team_members', accountId),
        notification_channels: await count('notification_channels', accountId),
        templates: await count('templates', accountId),
      };
      const refused: (() => Promise<unknown>)[] = [
        () => contacts.create(accountId, { name: 'Lost', email: 'lost@example.com' }),
        () => contacts.update(accountId, kept.id, { name: 'Renamed' }),
        () => contacts.delete(accountId, kept.id),
        () => accounts.createAccountKey(accountId, { name: 'lost', scopes: ['read'] }),
        () => members.create(accountId, { name: 'Lost', email: 'lost@example.com', push_subscriptions: [] }),
        () =>
          channels.create(accountId, 'business', {
            name: 'lost',
            type: 'slack',
            webhook_url: 'https://hooks.slack.com/services/T/B/lost',
          }),
        () =>
          templates.create(principal(accountId), {
            name: 'lost',
            mode: 'webhook',
            request_config: { url: 'https://example.com/hook', method: 'POST' },
          } as never),
        () => accounts.updateAccount(accountId, { plan: 'free' }),
      ];
      for (const call of refused) await expect(call()).rejects.toThrow(/audit refused/);
      expect({
        contacts: await count('contacts', accountId),
        api_keys: await count('api_keys', accountId),
        team_members: await count('team_members', accountId),
        notification_channels: await count('notification_channels', accountId),
        templates: await count('templates', accountId),
      }).toEqual(before);
      expect(await contacts.get(accountId, kept.id)).toMatchObject({ name: 'Kept' });
      expect((await accounts.getAccount(accountId)).plan).toBe('business');
    } finally {
      await rawQuery(t.database.sql, 'drop trigger refuse_audit on audit_pending');
      await rawQuery(t.database.sql, 'drop function refuse_audit()');
    }
    expect(await audit.verify(accountId)).toMatchObject({ ok: true, checked: 1 });
  });

  it('the database chains the very text verify recomputes: awkward keys, strings, numbers, nesting and nulls', async () => {
    const accountId = await t.newAccount();
    const at = new Date('2026-05-04T12:34:56.789Z');
    const awkward = {
      // Keys that need escapes, sort differently by UTF-16 code unit than by code point, or are not normalised.
      'quote"key': 1,
      'back\\slash': 2,
      'tab\tnew\nline\r': 3,
      'ctl\u0001\u001f': 4,
      'line\u2028para\u2029': 5,
      '': 'the empty key',
      é: 'precomposed',
      'e\u0301': 'combining',
      '\u{1F600}': 'astral key (sorts before U+FF61 by code unit)',
      '\uFF61': 'BMP key above the surrogates',
      '"seq":0': '"seq":0,"user_agent":"x"',
      seq: 0,
      gone: undefined,
      when: new Date('2026-01-02T03:04:05.006Z'),
      text: 'Zoë “q” 🚀 中文 \u00a0\ufeff </script> \\u0041',
      numbers: [
        0,
        -0,
        1,
        -1,
        1.5,
        0.1,
        0.1 + 0.2,
        1e21,
        1e-7,
        5e-324,
        1.7976931348623157e308,
        2 ** 53 + 2,
        -123456789.125,
        100,
      ],
      nulls: null,
      arrays: [null, [], [[null]], {}, ''],
      nested: { z: [1, { b: null, a: [] }, {}], a: { deep: { deeper: ['x', null, true, false] } } },
    };
    const events: PendingAuditEvent[] = [
      {
        accountId,
        at,
        action: 'contact.update',
        actor: { type: 'recipient', id: 'r"1\\', email: 'zoë+"q"@example.com' },
        resource: { type: 'contact', id: '"seq":0' },
        channel: 'email',
        ip: '::ffff:127.0.0.1',
        user_agent: 'agent "seq":0, ünïcödé 🚀 \\ \u2028',
        request_id: 'req-"1"',
        details: awkward,
      },
      {
        accountId,
        at,
        action: 'account.update',
        actor: { type: 'system', id: 'sched' },
        resource: { type: 'account', id: accountId },
        details: {},
      },
      // A user agent cut at its column's length right after the first half of a surrogate pair.
      {
        accountId,
        at,
        action: 'account.update',
        actor: { type: 'api_key', id: 'k' },
        resource: { type: 'account', id: accountId },
        user_agent: `${'a'.repeat(511)}🚀`,
        details: { n: 1 },
      },
      // Lone halves of surrogate pairs, which PostgreSQL's JSON refuses: written as U+FFFD.
      {
        accountId,
        at,
        action: 'contact.create',
        actor: { type: 'api_key', id: 'k' },
        resource: { type: 'contact', id: 'c\udc00' },
        details: { name: 'cut 🚀 mid-character \ud83d', 'key \ude00': ['\udbff'] },
      },
    ];
    await recordAuditEvents(t.database.sql, events);
    // The database seals (audit_seal), Node recomputes every hash from the stored columns.
    expect(await audit.verify(accountId)).toMatchObject({ ok: true, checked: events.length });
    const served = (await audit.list(accountId, { limit: 100 })).data;
    expect(served).toHaveLength(events.length);
    let prev = served[0]!.prev_hash;
    for (const [i, e] of served.entries()) {
      const { prev_hash, hash, ...body } = e;
      expect(prev_hash).toBe(prev);
      // What the database hashed is the canonical JSON of the event as written, before any column held it.
      const written = events[i]!;
      expect(canonicalJson(body.details)).toBe(
        canonicalJson(written.details).replace(/\\ud[89a-f][0-9a-f]{2}/g, '\ufffd'),
      );
      expect(hash).toBe(auditHash(prev_hash, body));
      prev = hash;
    }
    expect(served[0]).toMatchObject({
      actor: { type: 'recipient', id: 'r"1\\', email: 'zoë+"q"@example.com' },
      resource: { type: 'contact', id: '"seq":0' },
      user_agent: 'agent "seq":0, ünïcödé 🚀 \\ \u2028',
      details: { 'quote"key': 1, 'e\u0301': 'combining', numbers: expect.arrayContaining([1e21, 5e-324]) },
    });
    expect(served[3]).toMatchObject({
      resource: { id: 'c\ufffd' },
      details: { name: 'cut 🚀 mid-character \ufffd', 'key \ufffd': ['\ufffd'] },
    });
  });

  it('events left pending by the build that chained them in Node are chained after the upgrade, and verify', async () => {
    const scratch = await createTestDatabase('audit_upgrade', { empty: true });
    const database = new Database(await openOrm({ databaseUrl: scratch.url, poolSize: 2 }));
    try {
      await database.orm.migrator.up({ to: 'Migration20261126190734_AuditPending' });
      const accountId = randomUUID();
      await rawQuery(
        database.sql,
        `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'upgrade', 'business', now(), now())`,
        [accountId],
      );
      await rawQuery(
        database.sql,
        `insert into audit_pending (account_id, at, action, actor_type, actor_id, actor_email, resource_type,
           resource_id, channel, ip, user_agent, request_id, details)
         values ($1, $2, 'contact.update', 'api_key', 'k', null, 'contact', 'c1', null, '127.0.0.1', 'agent “ü”', null, $3),
                ($1, $2, 'contact.delete', 'recipient', 'r', 'a@example.com', 'contact', 'c1', 'email', null, null, 'req', '{}')`,
        [
          accountId,
          new Date('2026-05-04T01:02:03.456Z'),
          JSON.stringify({ name: 'Zoë "q" 🚀', n: [1e21, null, 0.1] }),
        ],
      );
      await migrateUp(database.orm);
      const upgraded = new AuditService(database, clock, primaryReads(database));
      expect(await upgraded.verify(accountId)).toMatchObject({ ok: true, checked: 2 });
      expect((await upgraded.list(accountId, { limit: 10 })).data).toMatchObject([
        { seq: 1, action: 'contact.update', user_agent: 'agent “ü”', details: { name: 'Zoë "q" 🚀' } },
        { seq: 2, action: 'contact.delete', actor: { type: 'recipient', id: 'r', email: 'a@example.com' } },
      ]);
    } finally {
      await database.close();
      await scratch.drop();
    }
  });

  it('events a build wrote pending with their columns beside their canonical text are chained from the text after the upgrade', async () => {
    const scratch = await createTestDatabase('audit_pending_once', { empty: true });
    const database = new Database(await openOrm({ databaseUrl: scratch.url, poolSize: 2 }));
    try {
      await database.orm.migrator.up({ to: 'Migration20261128230000_FailedInboxCount' });
      const accountId = randomUUID();
      await rawQuery(
        database.sql,
        `insert into accounts (id, name, plan, created_at, updated_at) values ($1, 'pending', 'business', now(), now())`,
        [accountId],
      );
      const columns = {
        id: randomUUID(),
        at: '2026-05-04T01:02:03.456Z',
        action: 'contact.update',
        actor_type: 'api_key' as const,
        actor_id: 'k',
        actor_email: null,
        resource_type: 'contact',
        resource_id: 'c1',
        channel: null,
        ip: '127.0.0.1',
        user_agent: 'agent “ü”',
        request_id: 'req-1',
        details: { name: 'Zoë "q" 🚀', n: [1e21, null, 0.1, -1.5], nested: { b: true, a: '' } },
      };
      const { head, tail } = canonicalParts(auditEventOfColumns(columns));
      await rawQuery(
        database.sql,
        `insert into audit_pending (account_id, id, at, action, actor_type, actor_id, actor_email, resource_type,
           resource_id, channel, ip, user_agent, request_id, details, canon_head, canon_tail)
         values ($1, $2, $3, $4, $5, $6, null, $7, $8, null, $9, $10, $11, $12, $13, $14)`,
        [
          accountId,
          columns.id,
          columns.at,
          columns.action,
          columns.actor_type,
          columns.actor_id,
          columns.resource_type,
          columns.resource_id,
          columns.ip,
          columns.user_agent,
          columns.request_id,
          JSON.stringify(columns.details),
          head,
          tail,
        ],
      );
      await migrateUp(database.orm);
      const pendingColumns = await rawQuery<{ column_name: string }>(
        database.sql,
        `select column_name from information_schema.columns where table_name = 'audit_pending' order by column_name`,
      );
      expect(pendingColumns.map((c) => c.column_name)).toEqual([
        'account_id',
        'canon_head',
        'canon_tail',
        'n',
      ]);
      const upgraded = new AuditService(database, clock, primaryReads(database));
      expect(await upgraded.verify(accountId)).toMatchObject({ ok: true, checked: 1 });
      const [event] = (await upgraded.list(accountId, { limit: 10 })).data;
      expect(event).toEqual({
        ...auditEventOfColumns(columns),
        seq: 1,
        prev_hash: expect.any(String),
        hash: auditHash(GENESIS_HASH, { ...auditEventOfColumns(columns), seq: 1 }),
      });
      // And back: the columns return, the earlier seal with them, and the chain still verifies. (Back through the
      // migrations after it first.)
      for (;;) {
        const [last] = (await database.orm.migrator.getExecuted()).slice(-1);
        await database.orm.migrator.down();
        if (last?.name === 'Migration20261129020000_AuditPendingOnce') break;
      }
      const restored = await rawQuery<{ column_name: string }>(
        database.sql,
        `select column_name from information_schema.columns where table_name = 'audit_pending'`,
      );
      expect(restored.map((c) => c.column_name)).toEqual(
        expect.arrayContaining(['details', 'canon_head', 'id']),
      );
      expect(await upgraded.verify(accountId)).toMatchObject({ ok: true, checked: 1 });
    } finally {
      await database.close();
      await scratch.drop();
    }
  });

  it('a day of operations, ten at a time on two accounts: one unbroken chain each; a tampered row is found by its seq', async () => {
    const [a, b] = [await t.newAccount(), await t.newAccount()];
    const domains = new DomainService({
      store: t.database,
      clock,
      limits: { perDay: 10, perMonth: 100 },
      checks: { schedule: async () => undefined },
      // The TXT record is found at once: the background check verifies the domain.
      probes: { dns: async () => null, file: async () => 'no file' },
    });
    const day = async (accountId: string, hour: number) => {
      const c = await contacts.create(accountId, {
        name: `Zoë “C${hour}” 🚀 \\ "q"`,
        email: `c${hour}@example.com`,
      });
      const tpl = await templates.create(principal(accountId), {
        name: `T${hour}`,
        mode: 'webhook',
        request_config: { url: 'https://example.com/hook', method: 'POST' },
      } as never);
      const key = await accounts.createAccountKey(accountId, { name: `k${hour}`, scopes: ['read'] });
      // Ten changes of one account at once: the appends queue on the account's head, none forks the chain.
      await Promise.all([
        contacts.update(accountId, c.id, { phone: '+15550000000' }),
        templates.update(principal(accountId), tpl.id, { name: `T${hour}b` } as never),
        templates.toggleActive(accountId, tpl.id),
        accounts.rotateAccountKey(accountId, key.id, { grace_period: '1h' }),
        members.create(accountId, {
          name: `M${hour}`,
          email: `m${hour}@example.com`,
          push_subscriptions: [],
        }),
        channels.create(accountId, 'business', {
          name: `ch${hour}`,
          type: 'teams',
          webhook_url: `https://example.webhook.office.com/h${hour}`,
        }),
        templates.regenerateToken(accountId, tpl.id),
        domains.verify(accountId, `d${hour}.example.com`),
        contacts.create(accountId, { name: `D${hour}`, phone: '+15550000001' }),
        accounts.updateAccount(accountId, { name: `account ${hour}` }),
      ]);
      await domains.check(accountId, `d${hour}.example.com`);
      await contacts.delete(accountId, c.id);
      await templates.delete(accountId, tpl.id);
    };
    for (let hour = 0; hour < 24; hour++) {
      now = new Date(Date.UTC(2026, 4, 4, hour, 30));
      await Promise.all([day(a, hour), day(b, hour)]);
    }
    // Written as pending with their changes; a read of the log chains them first (the worker does every second).
    expect(await count('audit_pending', a)).toBe(24 * 16);
    for (const account of [a, b]) {
      expect(await audit.verify(account)).toMatchObject({ ok: true, checked: 24 * 16 });
      expect(await count('audit_events', account)).toBe(24 * 16);
      expect(await count('audit_pending', account)).toBe(0);
    }
    const verified = await audit.list(a, { action: 'domain.verify', limit: 100 });
    expect(verified.data).toHaveLength(24);
    expect(verified.data[0]).toMatchObject({ actor: { type: 'system' }, details: { method: 'dns' } });

    // The table owner, trigger disabled, rewrites one event's details: verify reports that row's seq.
    const [row] = await rawQuery<{ seq: number }>(
      t.database.sql,
      `select seq from audit_events where account_id = $1 and action = 'api_key.rotate' order by seq offset 7 limit 1`,
      [a],
    );
    await t.database.transaction(async (db) => {
      await rawQuery(db, 'alter table audit_events disable trigger audit_events_append_only');
      await rawQuery(
        db,
        `update audit_events set details = details || '{"grace_period":"30d"}' where account_id = $1 and seq = $2`,
        [a, row!.seq],
      );
      await rawQuery(db, 'alter table audit_events enable trigger audit_events_append_only');
    });
    expect(await audit.verify(a)).toMatchObject({ ok: false, checked: row!.seq, broken_at: row!.seq });
    expect((await audit.verify(b)).ok).toBe(true);

    // The probe of the review: with the service's role, move the anchor past the tail, delete the tail (the
    // trigger lets a prefix go), put the anchor back. The head still names the deleted last event: verify says so.
    const before = await audit.verify(b);
    expect(before).toMatchObject({ ok: true });
    const headSeq = before.head_seq;
    expect(before.head_hash).toMatch(/^[0-9a-f]{64}$/);
    await t.database.transaction(async (db) => {
      const [h] = await rawQuery<{ anchor_seq: number; anchor_hash: string }>(
        db,
        'select anchor_seq, anchor_hash from audit_heads where account_id = $1',
        [b],
      );
      await rawQuery(db, `select set_config('sched.audit_retention', 'prefix', true)`);
      await rawQuery(db, 'update audit_heads set anchor_seq = $2 where account_id = $1', [b, headSeq]);
      await rawQuery(db, 'delete from audit_events where account_id = $1 and seq > $2', [b, headSeq - 3]);
      await rawQuery(db, 'update audit_heads set anchor_seq = $2, anchor_hash = $3 where account_id = $1', [
        b,
        h!.anchor_seq,
        h!.anchor_hash,
      ]);
    });
    expect(await audit.verify(b)).toEqual({
      ok: false,
      checked: before.checked - 3,
      broken_at: headSeq - 2,
      head_seq: headSeq,
      head_hash: before.head_hash,
    });
  });
});
