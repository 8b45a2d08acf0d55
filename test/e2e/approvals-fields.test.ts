import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { api, runCli } from '../support/server.js';

// Typed answers (`gate.fields`) and standing grants (`gate.grant`) end to end: real SMTP sink, real receivers.
describe('typed answers and standing grants', () => {
  let svc: ApprovalServer;
  const approval = (to: string, gate: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    svc.call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Refund',
      schedule: { wait: '1s' },
      gate: { message: 'Refund the customer?', recipients: [to], ...gate },
      ...extra,
    });
  const answerJson = (link: string, body: unknown) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
  const amount = {
    name: 'amount',
    label: 'Amount (EUR)',
    type: 'integer',
    required: true,
    default: 120,
    min: 1,
  };

  beforeAll(async () => {
    // A minute's scale: a grant of 1 h lives a minute, a gate's request goes out within a second.
    svc = await startApprovalServer('fields', { timeScale: 60 });
  });
  afterAll(() => svc?.stop());

  it('the page shows the defaults; a form confirm with 90 reaches the view, the callback and the request body', async () => {
    const res = await approval(
      'payer@example.com',
      {
        fields: [
          amount,
          { name: 'urgent', type: 'boolean', default: false },
          { name: 'reason', type: 'enum', options: ['late', 'broken'], default: 'late' },
        ],
      },
      {
        request: {
          url: `${svc.rx.url}/refund`,
          body: { amount: '{{values.amount}}', memo: 'refund {{values.amount}} EUR' },
        },
        callback_url: `${svc.rx.url}/cb-refund`,
      },
    );
    expect(res.status).toBe(201);
    expect(res.body.data.gate.fields[0]).toMatchObject({ name: 'amount', type: 'integer', default: 120 });
    const id = res.body.data.id;
    const link = await svc.linkOf('payer@example.com');
    await svc.until(id, 'awaiting_response');
    const page = await (await fetch(link)).text();
    expect(page).toMatch(/<input[^>]*name="values\.amount"[^>]*value="120"/);
    expect(page).toContain('Amount (EUR)');

    // A bad value is a 422 naming it, and nothing changes.
    const bad = await answerJson(link, { decision: 'confirm', values: { amount: 'lots', nope: 1 } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).errors).toEqual({
      'values.amount': ['must be an integer'],
      'values.nope': ['is not a field of this request'],
    });
    expect((await svc.get(id)).recipients[0].status).toBe('pending');

    // The page's own form post: urlencoded, the checkbox's hidden "false" then its "true".
    const form = new URLSearchParams([
      ['values.amount', '90'],
      ['values.urgent', 'false'],
      ['values.urgent', 'true'],
      ['values.reason', 'broken'],
      ['decision', 'confirm'],
    ]);
    const posted = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(posted.status).toBe(200);
    const done = await svc.until(id, 'executed');
    expect(done.recipients[0].values).toEqual({ amount: 90, urgent: true, reason: 'broken' });
    const [cb] = await svc.rx.waitFor('/cb-refund');
    expect(cb!.json.payload).toMatchObject({ decision: 'confirm', values: { amount: 90, urgent: true } });
    const [hook] = await svc.rx.waitFor('/refund');
    expect(hook!.json).toEqual({ amount: 90, memo: 'refund 90 EUR' });
  });

  it('a decline needs no required value; a create with a bad field is a 422 with its path', async () => {
    const id = (await approval('decliner@example.com', { fields: [{ ...amount, default: undefined }] })).body
      .data.id;
    const link = await svc.linkOf('decliner@example.com');
    await svc.until(id, 'awaiting_response');
    const missing = await answerJson(link, { decision: 'confirm' });
    expect(((await missing.json()) as any).errors).toEqual({ 'values.amount': ['is required'] });
    expect((await answerJson(link, { decision: 'decline' })).status).toBe(200);
    expect((await svc.until(id, 'failed')).recipients[0].values).toEqual({});

    const invalid = await approval('x@example.com', {
      fields: [
        { ...amount, default: 0 },
        { name: 'tier', type: 'enum' },
        { name: 'amount', type: 'string', min: 3 },
      ],
    });
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors).sort()).toEqual([
      'gate.fields.1.options',
      'gate.fields.2.min',
      'gate.fields.2.name',
    ]);
    const badDefault = await approval('x@example.com', { fields: [{ ...amount, default: 0 }] });
    expect(badDefault.body.errors).toEqual({ 'gate.fields.0.default': ['must be at least 1'] });
  });

  it('a chain reads the typed answer of its gated step as {{steps.N.response.values.<name>}}', async () => {
    const chain = await svc.call('POST', '/v1/chains', {
      name: 'refund chain',
      steps: [
        {
          name: 'ask',
          type: 'gated',
          gate: { message: 'Refund?', recipients: ['chain-approver@example.com'], fields: [amount] },
        },
        {
          name: 'pay',
          type: 'http_call',
          url: `${svc.rx.url}/chain-pay`,
          body: { amount: '{{steps.0.response.values.amount}}' },
        },
      ],
    });
    expect(chain.status).toBe(201);
    const link = await svc.linkOf('chain-approver@example.com');
    expect((await answerJson(link, { decision: 'confirm', values: { amount: 75 } })).status).toBe(200);
    const [pay] = await svc.rx.waitFor('/chain-pay');
    expect(pay!.json).toEqual({ amount: 75 });
  });

  it('a grant confirms the next request with its key at once, without mail, until it is revoked', async () => {
    const grant = { key: 'refund:customer-42', max_ttl: '1h' };
    const first = (
      await approval(
        'boss@example.com',
        { grant, fields: [amount] },
        { callback_url: `${svc.rx.url}/cb-grant` },
      )
    ).body.data.id;
    const link = await svc.linkOf('boss@example.com');
    await svc.until(first, 'awaiting_response');
    const page = await (await fetch(link)).text();
    expect(page).toContain('name="grant_ttl"');
    const tooLong = await answerJson(link, { decision: 'confirm', grant_ttl: '2h' });
    expect(((await tooLong.json()) as any).errors).toEqual({ grant_ttl: ['must be at most 1h'] });
    expect((await answerJson(link, { decision: 'confirm', grant_ttl: '1h' })).status).toBe(200);
    await svc.until(first, 'executed');

    const listed = await svc.call('GET', '/v1/grants');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    const g = listed.body.data[0];
    expect(g).toMatchObject({
      key: grant.key,
      action_id: first,
      given_by: 'boss@example.com',
      revoked_at: null,
    });

    // Same key: confirmed without asking, naming the grant and who gave it.
    const second = (
      await approval(
        'boss@example.com',
        { grant, fields: [amount] },
        { callback_url: `${svc.rx.url}/cb-grant` },
      )
    ).body.data.id;
    const granted = await svc.until(second, 'executed');
    expect(granted.gate.granted_by).toBe(g.id);
    const toBoss = () => svc.smtp.mails.filter((m) => m.to.includes('boss@example.com')).length;
    expect(toBoss()).toBe(1);
    expect(granted.reminder_events.map((e: any) => e.event_type)).toEqual(['confirmed']);
    expect(granted.reminder_events[0].notes).toContain(`standing grant ${g.id}`);
    expect(granted.reminder_events[0].notes).toContain('boss@example.com');
    const callbacks = await svc.rx.waitFor('/cb-grant', 2);
    expect(callbacks.find((c) => c.json.action_id === second)!.json.payload).toMatchObject({
      decision: 'confirm',
      grant_id: g.id,
      respondent: 'boss@example.com',
      values: { amount: 120 },
    });

    // Another key, or another account with the same key, is asked as usual.
    const otherKey = (await approval('boss@example.com', { grant: { ...grant, key: 'refund:customer-43' } }))
      .body.data.id;
    const otherAccountKey = JSON.parse(
      (
        await runCli(
          ['accounts', 'create', '--name', 'other', '--plan', 'business', '--json'],
          svc.server.env,
        )
      ).stdout,
    ).api_key;
    const foreign = await api(svc.server, otherAccountKey, 'POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Refund?', recipients: ['boss@example.com'], grant },
    });
    await svc.until(otherKey, 'awaiting_response');
    await svc.smtp.waitFor('boss@example.com', 3);
    expect(toBoss()).toBe(3);
    expect(
      (await api(svc.server, otherAccountKey, 'GET', `/v1/actions/${foreign.body.data.id}`)).body.data.status,
    ).not.toBe('executed');
    expect((await api(svc.server, otherAccountKey, 'GET', '/v1/grants')).body.data).toEqual([]);
    expect((await api(svc.server, otherAccountKey, 'DELETE', `/v1/grants/${g.id}`)).status).toBe(404);

    // The CLI lists it; the SDK revokes it: audited, gone from the list, and the next request sends mail again.
    const env = { ...svc.server.env, SCHED_API_URL: svc.server.url, SCHED_API_KEY: svc.key };
    const cliList = await runCli(['grants', 'list', '--json'], env);
    expect(JSON.parse(cliList.stdout).data.map((x: any) => x.id)).toEqual([g.id]);
    const revoked = await createClient({ baseUrl: svc.server.url, apiKey: svc.key }).grants.revoke(g.id);
    expect(revoked.revoked_at).not.toBeNull();
    const again = await runCli(['grants', 'revoke', g.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('not_found');
    expect((await svc.call('DELETE', `/v1/grants/${g.id}`)).status).toBe(404);
    expect((await svc.call('GET', '/v1/grants')).body.data).toEqual([]);
    const audit = await svc.call('GET', '/v1/audit-events?action=grant.revoke');
    expect(audit.body.data.map((e: any) => e.resource.id)).toContain(g.id);
    const third = (await approval('boss@example.com', { grant })).body.data.id;
    await svc.until(third, 'awaiting_response');
    await svc.smtp.waitFor('boss@example.com', 4);
  });
});
