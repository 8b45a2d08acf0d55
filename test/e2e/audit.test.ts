import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';
import type { TestServer } from '../support/server.js';

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
    const events = all.body.data as any[];
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
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
      actor: { type: 'api_key' },
      resource: { type: 'action', id: plain.body.data.id },
      prev_hash: '0'.repeat(64),
    });
    expect(events[0].request_id).toBeTruthy();
    expect(events[1].prev_hash).toBe(events[0].hash);
    expect(events[3]).toMatchObject({ details: { note: 'freeze', from_status: 'scheduled' } });
    expect(events[6]).toMatchObject({
      actor: { type: 'recipient', email: 'ada@example.com' },
      resource: { type: 'action', id: approval.body.data.id },
      channel: 'email',
      user_agent: 'audit-test',
      details: { decision: 'confirm', comment: 'looks right' },
    });
    // The response token is never part of the record.
    expect(JSON.stringify(events)).not.toContain(token);

    // Filters: a `*` pattern, a resource, an actor type; keyset pages.
    const decisions = await svc.call('GET', '/v1/audit-events?action=approval.*');
    expect(decisions.body.data.map((e: any) => e.action)).toEqual(['approval.confirm']);
    const ofKeyed = await svc.call('GET', `/v1/audit-events?resource_id=${keyed.body.data.id}`);
    expect(ofKeyed.body.data.map((e: any) => e.action)).toEqual(['action.create', 'action.cancel']);
    expect((await svc.call('GET', '/v1/audit-events?actor_type=recipient')).body.data).toHaveLength(1);
    const first = await svc.call('GET', '/v1/audit-events?limit=2');
    expect(first.body.meta.next_after).toBe(2);
    const second = await svc.call('GET', '/v1/audit-events?limit=2&after=2');
    expect(second.body.data.map((e: any) => e.seq)).toEqual([3, 4]);
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
    expect(lines).toEqual(events);
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

    expect((await svc.call('GET', '/v1/audit-events/verify')).body).toEqual({
      data: { ok: true, checked: 7 },
    });

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // Append-only: the service's own role cannot rewrite or remove an event.
      await expect(client.query(`update audit_events set details = '{}' where seq = 3`)).rejects.toThrow(
        /append-only/,
      );
      await expect(client.query('delete from audit_events where seq = 1')).rejects.toThrow(/append-only/);
      // The table owner, trigger disabled, changes one row's details: verify names that row.
      await client.query('begin');
      await client.query('alter table audit_events disable trigger audit_events_append_only');
      await client.query(`update audit_events set details = '{"from_status":"failed"}' where seq = 3`);
      await client.query('alter table audit_events enable trigger audit_events_append_only');
      await client.query('commit');
    } finally {
      await client.end();
    }
    expect((await svc.call('GET', '/v1/audit-events/verify')).body).toEqual({
      data: { ok: false, checked: 3, broken_at: 3 },
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
});
