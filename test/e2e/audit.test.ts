import pg from 'pg';
import { hashApiKey } from '../../server/src/domain/auth/api-key.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';
import { api, runCli, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// The audit log end to end: events written with the changes they record, a hash chain verify recomputes, and a row
// changed behind the service's back found by its seq.
describe('audit log', () => {
  let svc: ApprovalServer;
  let db: ApprovalServer['db'];
  let server: TestServer;
  let smtp: ApprovalServer['smtp'];
  let rx: ApprovalServer['rx'];
  let key: string;

  beforeAll(async () => {
    svc = await startApprovalServer('audit', { timeScale: 3600 });
    ({ db, server, smtp, rx, key } = svc);
  });
  afterAll(() => svc?.stop());

  it('records creates, cancels and decisions with their actor; verify finds a tampered row by its seq', async () => {
    // A plain create (the group-committed path) and one with an idempotency key (the transactional path).
    const plain = await svc.call('POST', '/v1/actions', {
      name: 'plain',
      schedule: { wait: '1h' },
      request: { url: `${rx.url}/plain` },
    });
    expect(plain.status).toBe(201);
    const keyed = await svc.call('POST', '/v1/actions', {
      name: 'keyed',
      schedule: { wait: '1h' },
      idempotency_key: 'audit-1',
      request: { url: `${rx.url}/keyed` },
    });
    expect(keyed.status).toBe(201);
    expect((await svc.call('DELETE', `/v1/actions/${keyed.body.data.id}`)).status).toBe(200);
    expect(
      (
        await svc.call('POST', `/v1/actions/${plain.body.data.id}/pause`, {
          indefinite: true,
          note: 'freeze',
        })
      ).status,
    ).toBe(200);
    expect((await svc.call('POST', `/v1/actions/${plain.body.data.id}/resume`, {})).status).toBe(200);

    const approval = await svc.call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Sign off',
      schedule: { wait: '1s' },
      gate: { message: 'Approve?', recipients: ['ada@example.com'] },
    });
    expect(approval.status).toBe(201);
    // The mail can arrive before the round's send is recorded; an answer then waits for it (at most 10 s).
    await svc.until(approval.body.data.id, 'awaiting_response');
    const [mail] = await smtp.waitFor('ada@example.com');
    const link = linkIn(mail!.text);
    const token = link.split('/r/')[1]!;
    const answered = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'user-agent': 'audit-test' },
      body: JSON.stringify({ decision: 'confirm', comment: 'looks right' }),
    });
    expect(answered.status).toBe(200);

    const all = await svc.call('GET', '/v1/audit-events?limit=100');
    expect(all.status).toBe(200);
    const everything = all.body.data as any[];
    expect(everything.map((e) => e.seq)).toEqual(everything.map((_, i) => i + 1));
    // The account and its first key were made by the service's first start (the chain's first two events).
    expect(everything.slice(0, 2).map((e) => [e.action, e.actor.type, e.resource.type])).toEqual([
      ['account.create', 'system', 'account'],
      ['api_key.create', 'system', 'api_key'],
    ]);
    expect(everything[0].prev_hash).toBe('0'.repeat(64));
    const events = everything.slice(2);
    expect(events.map((e) => e.action)).toEqual([
      'action.create',
      'action.create',
      'action.cancel',
      'action.pause',
      'action.resume',
      'action.create',
      'approval.confirm',
    ]);
    expect(events[0]).toMatchObject({
      seq: 3,
      actor: { type: 'api_key' },
      resource: { type: 'action', id: plain.body.data.id },
      prev_hash: everything[1].hash,
    });
    expect(events[0].request_id).toBeTruthy();
    expect(events[1].prev_hash).toBe(events[0].hash);
    expect(events[3]).toMatchObject({ details: { note: 'freeze', from_status: 'scheduled' } });
    expect(events[6]).toMatchObject({
      actor: { type: 'recipient', id: expect.any(String) },
      resource: { type: 'action', id: approval.body.data.id },
      channel: 'page',
      user_agent: 'audit-test',
      details: { decision: 'confirm', comment: 'looks right' },
    });
    // The response token is never part of the record, nor the recipient's address (personal data).
    expect(JSON.stringify(events)).not.toContain(token);
    expect(JSON.stringify(events)).not.toContain('ada@example.com');

    // Filters: a `*` pattern, a resource, an actor type; keyset pages.
    const decisions = await svc.call('GET', '/v1/audit-events?action=approval.*');
    expect(decisions.body.data.map((e: any) => e.action)).toEqual(['approval.confirm']);
    const ofKeyed = await svc.call('GET', `/v1/audit-events?resource_id=${keyed.body.data.id}`);
    expect(ofKeyed.body.data.map((e: any) => e.action)).toEqual(['action.create', 'action.cancel']);
    expect((await svc.call('GET', '/v1/audit-events?actor_type=recipient')).body.data).toHaveLength(1);
    const first = await svc.call('GET', '/v1/audit-events?limit=2&after=2');
    expect(first.body.meta.next_after).toBe(4);
    const second = await svc.call('GET', '/v1/audit-events?limit=2&after=4');
    expect(second.body.data.map((e: any) => e.seq)).toEqual([5, 6]);
    expect((await svc.call('GET', '/v1/audit-events?from=not-a-time')).status).toBe(422);

    // Export, streamed: NDJSON lines and CSV rows match the list.
    const ndjson = await fetch(`${server.url}/v1/audit-events/export?format=ndjson`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(ndjson.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await ndjson.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual(everything);
    const csv = await fetch(`${server.url}/v1/audit-events/export?format=csv&action=action.*`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const rows = (await csv.text()).trim().split('\r\n');
    expect(rows[0]).toBe(
      'seq,id,at,action,actor,resource,channel,ip,user_agent,request_id,details,prev_hash,hash',
    );
    expect(rows).toHaveLength(7);
    expect(
      (
        await fetch(`${server.url}/v1/audit-events/export?format=xml`, {
          headers: { authorization: `Bearer ${key}` },
        })
      ).status,
    ).toBe(422);
    expect((await fetch(`${server.url}/v1/audit-events/export`)).status).toBe(401);

    expect((await svc.call('GET', '/v1/audit-events/verify')).body).toMatchObject({
      data: { ok: true, checked: 9, head_seq: 9 },
    });

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // Append-only: the service's own role cannot rewrite or remove an event.
      await expect(client.query(`update audit_events set details = '{}' where seq = 5`)).rejects.toThrow(
        /append-only/,
      );
      await expect(client.query('delete from audit_events where seq = 1')).rejects.toThrow(/append-only/);
      // Nor with retention's setting: only a prefix up to the chain's anchor may go (none was dropped yet).
      await client.query('begin');
      await client.query("select set_config('sched.audit_retention', 'prefix', true)");
      await expect(client.query('delete from audit_events where seq = 1')).rejects.toThrow(/append-only/);
      await client.query('rollback');
      // The table owner, trigger disabled, changes one row's details: verify names that row.
      await client.query('begin');
      await client.query('alter table audit_events disable trigger audit_events_append_only');
      await client.query(`update audit_events set details = '{"from_status":"failed"}' where seq = 5`);
      await client.query('alter table audit_events enable trigger audit_events_append_only');
      await client.query('commit');
    } finally {
      await client.end();
    }
    expect((await svc.call('GET', '/v1/audit-events/verify')).body).toMatchObject({
      data: { ok: false, checked: 5, broken_at: 5 },
    });
  });

  it('records template create, update and delete (the trigger token only by its prefix), each in its transaction', async () => {
    const created = await svc.call('POST', '/v1/templates', {
      name: 'Audited',
      mode: 'webhook',
      request_config: { url: `${rx.url}/t`, method: 'POST' },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expect((await svc.call('PUT', `/v1/templates/${id}`, { name: 'Audited 2' })).status).toBe(200);
    expect((await svc.call('DELETE', `/v1/templates/${id}`)).status).toBe(204);
    const events = (await svc.call('GET', `/v1/audit-events?resource_id=${id}`)).body.data;
    expect(events.map((e: any) => e.action)).toEqual([
      'template.create',
      'template.update',
      'template.delete',
    ]);
    expect(events[1].details).toEqual({ fields: ['name'] });
    expect(JSON.stringify(events)).not.toContain(created.body.data.trigger_token);
    expect((await svc.call('GET', '/v1/audit-events?action=template.*')).body.data).toHaveLength(3);
  });

  it('records the creates of a batch and of a replay, each under its own action, with the caller as actor', async () => {
    // Two plain items (the batch writer's one statement) and a keyed one (the create core's transaction path).
    const batch = await svc.call('POST', '/v1/actions/batch', {
      actions: [
        { name: 'batch plain 1', schedule: { wait: '1h' }, request: { url: `${rx.url}/b1` } },
        {
          name: 'batch keyed',
          schedule: { wait: '1h' },
          idempotency_key: 'audit-batch',
          request: { url: `${rx.url}/b2` },
        },
        { name: 'batch plain 2', schedule: { wait: '1h' }, request: { url: `${rx.url}/b3` } },
      ],
    });
    expect(batch.status).toBe(201);
    const ids = (batch.body.data as any[]).map((r) => r.id as string);
    expect(ids).toHaveLength(3);
    const of = async (id: string) =>
      (await svc.call('GET', `/v1/audit-events?resource_id=${id}`)).body.data as any[];
    for (const [i, id] of ids.entries()) {
      const events = await of(id);
      expect(events.map((e) => e.action)).toEqual(['action.create']);
      expect(events[0]).toMatchObject({
        actor: { type: 'api_key' },
        resource: { type: 'action', id },
        details: { name: (batch.body.data as any[])[i].name, mode: 'webhook', method: 'POST' },
      });
    }
    // A replay is a create too: the new action's event, beside the original's create and cancel.
    expect((await svc.call('DELETE', `/v1/actions/${ids[0]}`)).status).toBe(200);
    const replay = await svc.call('POST', `/v1/actions/${ids[0]}/replay`, {});
    expect(replay.status).toBe(201);
    const replayId = replay.body.data.id as string;
    expect(replayId).not.toBe(ids[0]);
    expect((await of(replayId)).map((e) => [e.action, e.actor.type, e.details.url])).toEqual([
      ['action.create', 'api_key', `${rx.url}/b1`],
    ]);
    expect((await of(ids[0]!)).map((e) => e.action)).toEqual(['action.create', 'action.cancel']);
  });

  it('records every state change of keys, contacts, team members, channels, domains, destinations, chains, bulk operations and templates; no secret appears', async () => {
    const call = (method: string, path: string, body?: unknown) => svc.call(method, path, body);
    const ok = async (p: Promise<{ status: number; body: any }>, status = 200) => {
      const res = await p;
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      return res.body?.data;
    };
    // API keys: create, rotate, revoke. Their secrets and the secrets' hashes must never be recorded.
    const made = await ok(call('POST', '/v1/api-keys', { name: 'ci', scopes: ['read'] }), 201);
    const rotated = await call('POST', `/v1/api-keys/${made.id}/rotate`, { grace_period: '0s' });
    expect(rotated.status).toBe(201);
    await ok(call('DELETE', `/v1/api-keys/${rotated.body.data.id}`), 204);
    // Contacts, team members, notification channels: create, update, delete.
    const contact = await ok(
      call('POST', '/v1/contacts', { name: 'Ada', email: 'ada.audit@example.com' }),
      201,
    );
    await ok(call('PUT', `/v1/contacts/${contact.id}`, { phone: '+15551230000' }));
    await ok(call('DELETE', `/v1/contacts/${contact.id}`), 204);
    const push = {
      endpoint: 'https://push.example.com/send/endpoint-secret-4711',
      keys: { p256dh: 'BPushP256dhKeyMaterial0123456789', auth: 'push-auth-secret-42' },
    };
    const member = await ok(
      call('POST', '/v1/team-members', {
        name: 'Grace',
        email: 'grace.audit@example.com',
        push_subscriptions: [push],
      }),
      201,
    );
    await ok(call('PUT', `/v1/team-members/${member.id}`, { name: 'Grace H.' }));
    await ok(call('DELETE', `/v1/team-members/${member.id}`), 204);
    const webhookUrl = 'https://hooks.slack.com/services/T0AUDIT/B0AUDIT/slack-webhook-secret-77';
    const channel = await ok(
      call('POST', '/v1/channels', { name: 'ops', type: 'slack', webhook_url: webhookUrl }),
      201,
    );
    await ok(call('PUT', `/v1/channels/${channel.id}`, { name: 'ops-2' }));
    await ok(call('DELETE', `/v1/channels/${channel.id}`), 204);
    // Domains and destinations.
    await ok(call('POST', '/v1/domains/audit.example.org/verify'));
    await ok(call('DELETE', '/v1/domains/audit.example.org'), 204);
    await ok(call('PUT', '/v1/destinations/audit.example.net', { flow: { rate: 5, period: '1s' } }));
    await ok(call('POST', '/v1/destinations/audit.example.net/pause', { note: 'maintenance' }));
    await ok(call('POST', '/v1/destinations/audit.example.net/resume', {}));
    // Chains: one runs to completion (a 1 s delay), one is cancelled. The signing secret is never recorded.
    const chainSecret = 'chain-signing-secret-0123456789';
    const done = await ok(
      call('POST', '/v1/chains', {
        name: 'audited',
        webhook_secret: chainSecret,
        steps: [
          { name: 'pause', type: 'delay', delay: '1s' },
          { name: 'again', type: 'delay', delay: '1s' },
        ],
      }),
      201,
    );
    const cancelled = await ok(
      call('POST', '/v1/chains', {
        name: 'stopped',
        steps: [
          { name: 'long', type: 'delay', delay: '1h' },
          { name: 'never', type: 'delay', delay: '1h' },
        ],
      }),
      201,
    );
    await ok(call('DELETE', `/v1/chains/${cancelled.id}`));
    // A bulk operation; template token regeneration and activation.
    await ok(
      call('POST', '/v1/bulk-operations', {
        operation: 'cancel',
        filter: { destination_host: 'nothing.example' },
        dry_run: false,
      }),
      202,
    );
    const template = await ok(
      call('POST', '/v1/templates', {
        name: 'Keys',
        mode: 'webhook',
        request_config: { url: `${rx.url}/k` },
      }),
      201,
    );
    const regenerated = await ok(call('POST', `/v1/templates/${template.id}/regenerate-token`));
    await ok(call('POST', `/v1/templates/${template.id}/toggle-active`));
    await ok(call('POST', `/v1/templates/${template.id}/toggle-active`));
    // A public trigger acts as its template.
    const fired = await fetch(regenerated.trigger_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'a-form' },
      body: '{}',
    });
    expect(fired.status).toBe(201);
    const firedId = ((await fired.json()) as any).data.id;
    expect((await call('GET', `/v1/audit-events?resource_id=${firedId}`)).body.data).toEqual([
      expect.objectContaining({
        action: 'action.create',
        actor: { type: 'template_trigger', id: template.id },
        user_agent: 'a-form',
      }),
    ]);

    const of = async (resourceId: string) =>
      (await call('GET', `/v1/audit-events?resource_id=${encodeURIComponent(resourceId)}`)).body
        .data as any[];
    const actions = async (resourceId: string) => (await of(resourceId)).map((e) => e.action);
    expect(await actions(made.id)).toEqual(['api_key.create', 'api_key.rotate']);
    expect((await of(made.id))[1].details).toMatchObject({
      next_key_id: rotated.body.data.id,
      grace_period: '0s',
    });
    expect(await actions(rotated.body.data.id)).toEqual(['api_key.revoke']);
    expect(await actions(contact.id)).toEqual(['contact.create', 'contact.update', 'contact.delete']);
    expect((await of(contact.id))[1].details).toEqual({ name: 'Ada', fields: ['phone'] });
    expect(await actions(member.id)).toEqual([
      'team_member.create',
      'team_member.update',
      'team_member.delete',
    ]);
    expect(await actions(channel.id)).toEqual(['channel.create', 'channel.update', 'channel.delete']);
    expect(await actions('audit.example.org')).toEqual(['domain.add', 'domain.delete']);
    expect(await actions('https://audit.example.net')).toEqual([
      'destination.update',
      'destination.pause',
      'destination.resume',
    ]);
    const chainEvents = await eventually(async () => {
      const events = await of(done.id);
      return events.some((e) => e.action === 'chain.complete') ? events : null;
    });
    expect(chainEvents.map((e) => [e.action, e.actor.type, e.details.index ?? null])).toEqual([
      ['chain.create', 'api_key', null],
      ['chain.step.start', 'api_key', 0],
      ['chain.step.settle', 'system', 0],
      ['chain.step.start', 'system', 1],
      ['chain.step.settle', 'system', 1],
      ['chain.complete', 'system', null],
    ]);
    expect(chainEvents[0].details).toMatchObject({ name: 'audited', signed: true });
    expect(await actions(cancelled.id)).toEqual(['chain.create', 'chain.step.start', 'chain.cancel']);
    expect((await call('GET', '/v1/audit-events?action=bulk_operation.*')).body.data).toHaveLength(1);
    expect(await actions(template.id)).toEqual([
      'template.create',
      'template.regenerate_token',
      'template.deactivate',
      'template.activate',
    ]);

    // The admin verbs (through the database) record the operator as the actor.
    const created = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'audited', '--plan', 'business', '--json'], server.env))
        .stdout,
    );
    const accountId = created.account.id;
    expect((await runCli(['accounts', 'update', accountId, '--plan', 'pro'], server.env)).code).toBe(0);
    const adminKey = JSON.parse(
      (await runCli(['admin', 'keys', 'create', '--account', accountId, '--json'], server.env)).stdout,
    );
    expect((await runCli(['admin', 'keys', 'revoke', adminKey.key.id], server.env)).code).toBe(0);
    const theirs = (await api(server, created.api_key, 'GET', '/v1/audit-events')).body.data as any[];
    expect(theirs.map((e) => [e.action, e.actor.type, e.actor.id])).toEqual([
      ['account.create', 'system', 'operator'],
      ['api_key.create', 'system', 'operator'],
      ['account.update', 'system', 'operator'],
      ['api_key.create', 'system', 'operator'],
      ['api_key.revoke', 'system', 'operator'],
    ]);
    expect(theirs[2].details).toEqual({ plan: { from: 'business', to: 'pro' } });
    expect((await api(server, created.api_key, 'GET', '/v1/audit-events/verify')).body.data.ok).toBe(true);

    // No secret anywhere in either account's log: API keys and their hashes, webhook URLs, push credentials, the
    // chain's signing secret, trigger tokens. Nor the contacts' and members' addresses.
    const everything =
      JSON.stringify((await call('GET', '/v1/audit-events?limit=1000')).body) + JSON.stringify(theirs);
    for (const secret of [
      made.key,
      rotated.body.data.key,
      key,
      created.api_key,
      adminKey.api_key,
      webhookUrl,
      'slack-webhook-secret-77',
      push.endpoint,
      push.keys.p256dh,
      push.keys.auth,
      chainSecret,
      template.trigger_token,
      regenerated.trigger_token,
      'ada.audit@example.com',
      '+15551230000',
      'grace.audit@example.com',
    ]) {
      expect(everything).not.toContain(secret);
      if (secret.startsWith('sk_')) expect(everything).not.toContain(hashApiKey(secret));
    }
    // Four `sched` processes and a chain's two delays: longer than the default on a loaded machine.
  }, 120_000);

  it('records creates unless an account turns them off: on by default, an admin key changes it, the change is recorded', async () => {
    // A new account: creates are recorded, as every other change is.
    const created = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'data events', '--plan', 'business', '--json'],
          server.env,
        )
      ).stdout,
    );
    const theirs = created.api_key as string;
    const call = (method: string, path: string, body?: unknown, k = theirs) =>
      api(server, k, method, path, body);
    expect((await call('GET', '/v1/audit-events/settings')).body).toEqual({ data: { action_create: true } });
    const create = async (name: string) => {
      const made = await call('POST', '/v1/actions', {
        name,
        schedule: { wait: '1h' },
        request: { url: `${rx.url}/${name}` },
      });
      expect(made.status).toBe(201);
      return made.body.data.id as string;
    };
    const batchOf = async (name: string) => {
      const made = await call('POST', '/v1/actions/batch', {
        actions: [{ name, schedule: { wait: '1h' }, request: { url: `${rx.url}/${name}` } }],
      });
      expect(made.status).toBe(201);
      return made.body.data[0].id as string;
    };
    const eventsOf = async (id: string) =>
      ((await call('GET', `/v1/audit-events?resource_id=${id}`)).body.data as any[]).map((e) => e.action);
    expect(await eventsOf(await create('recorded'))).toEqual(['action.create']);
    expect(await eventsOf(await batchOf('batch-recorded'))).toEqual(['action.create']);

    // A read key may look but not change it; a bad value is a 422 naming the field, and changes nothing.
    const read = await call('POST', '/v1/api-keys', { name: 'dashboard', scopes: ['read'] });
    expect((await call('GET', '/v1/audit-events/settings', undefined, read.body.data.key)).status).toBe(200);
    const refused = await call(
      'PATCH',
      '/v1/audit-events/settings',
      { action_create: false },
      read.body.data.key,
    );
    expect(refused.status).toBe(403);
    const bad = await call('PATCH', '/v1/audit-events/settings', { action_create: 'no' });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      code: 'validation_failed',
      errors: { action_create: expect.any(Array) },
    });
    expect((await call('GET', '/v1/audit-events/settings')).body.data.action_create).toBe(true);

    // Turned off through the CLI: the next creates are not recorded, by any path (a batch too); other changes are.
    const off = await runCli(['audit', 'settings', '--action-create', 'off', '--json'], {
      ...server.env,
      SCHED_API_KEY: theirs,
      SCHED_API_URL: server.url,
    });
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toEqual({ data: { action_create: false } });
    const unrecorded = await create('unrecorded');
    expect((await call('DELETE', `/v1/actions/${unrecorded}`)).status).toBe(200);
    expect(await eventsOf(unrecorded)).toEqual(['action.cancel']);
    expect(await eventsOf(await batchOf('batch-unrecorded'))).toEqual([]);

    // On again: recorded again; both changes are in the log; the chain holds throughout.
    expect((await call('PATCH', '/v1/audit-events/settings', { action_create: true })).body.data).toEqual({
      action_create: true,
    });
    expect(await eventsOf(await create('after'))).toEqual(['action.create']);
    const changes = (await call('GET', '/v1/audit-events?action=account.update')).body.data as any[];
    expect(changes.map((e) => [e.actor.type, e.details])).toEqual(
      expect.arrayContaining([
        ['api_key', { audit_action_create: { from: true, to: false } }],
        ['api_key', { audit_action_create: { from: false, to: true } }],
      ]),
    );
    expect(changes).toHaveLength(2);
    const verified = await runCli(['audit', 'verify', '--json'], {
      ...server.env,
      SCHED_API_KEY: theirs,
      SCHED_API_URL: server.url,
    });
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout).data).toMatchObject({ ok: true });
  }, 60_000);
});
