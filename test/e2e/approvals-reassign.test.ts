import { createClient, SchedApiError, type SchedClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';
import { eventually } from '../support/receiver.js';
import { api, runCli, type TestServer } from '../support/server.js';

// Reassigning a gate recipient end to end, through the real SMTP sink: the old link dies with a page that says so,
// the new address gets a working link, quorum and required semantics follow, and the history is kept.
describe('reassigning an approval recipient', () => {
  let svc: ApprovalServer;
  let server: TestServer;
  let smtp: ApprovalServer['smtp'];
  let key: string;
  let sched: SchedClient;
  const call = (method: string, path: string, body?: unknown) => svc.call(method, path, body);
  const create = (gate: Record<string, unknown>, wait = '1s') =>
    call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Payout',
      schedule: { wait },
      gate: { message: 'Approve the payout?', ...gate },
    });
  const get = (id: string) => svc.get(id);
  const until = (id: string, status: string) => svc.until(id, status);
  const answer = (link: string, decision: string, comment?: string) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision, ...(comment ? { comment } : {}) }),
    });
  const linkOf = async (to: string, n = 1) => linkIn((await smtp.waitFor(to, n))[n - 1]!.text);
  const reassign = (id: string, recipientId: string, body: unknown) =>
    call('POST', `/v1/actions/${id}/recipients/${recipientId}/reassign`, body);
  const recipientOf = (action: any, email: string) => action.recipients.find((r: any) => r.email === email);

  beforeAll(async () => {
    svc = await startApprovalServer('reassign', { timeScale: 3600 });
    ({ server, smtp, key } = svc);
    sched = createClient({ baseUrl: server.url, apiKey: key });
  });
  afterAll(() => svc?.stop());

  it('kills the old link (a page saying it was reassigned), sends the new address a working one, keeps the history; a required recipient stays required', async () => {
    const res = await create({
      recipients: ['ana@example.com', 'bo@example.com', 'cy@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: ['cy@example.com'],
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    const [ana, cy] = [await linkOf('ana@example.com'), await linkOf('cy@example.com')];
    await until(id, 'awaiting_response');
    expect((await answer(ana, 'confirm')).status).toBe(200);

    const cyId = recipientOf(await get(id), 'cy@example.com').id;
    const moved = await reassign(id, cyId, { to: 'dee@example.com', reason: 'Cy is on leave' });
    expect(moved.status).toBe(200);
    const after = moved.body.data;
    expect(recipientOf(after, 'cy@example.com')).toMatchObject({
      id: cyId,
      status: 'reassigned',
      reassigned_from: null,
    });
    const dee = recipientOf(after, 'dee@example.com');
    expect(dee).toMatchObject({
      status: 'pending',
      role: 'recipient',
      reassigned_from: cyId,
      channels: ['email'],
    });
    // Required whatever the count: the one who took over from a required recipient is required too.
    expect(after.gate.required_recipients).toEqual(['cy@example.com', 'dee@example.com']);
    expect(after.reminder_events.map((e: any) => [e.event_type, e.notes])).toContainEqual([
      'reassigned',
      'reassigned from cy@example.com to dee@example.com: Cy is on leave',
    ]);

    // What waits on whom: the new recipient, no longer the old one.
    const pendingOf = async (who: string) =>
      (await call('GET', `/v1/approvals?recipient=${who}`)).body.data.map((a: any) => a.id);
    expect(await pendingOf('dee@example.com')).toEqual([id]);
    expect(await pendingOf('cy@example.com')).toEqual([]);

    // The old link: a clear page (410), and a JSON answer is refused the same way.
    const page = await fetch(cy);
    expect(page.status).toBe(410);
    const html = await page.text();
    expect(html).toContain('This request was reassigned');
    expect(html).toContain('Payout');
    const refused = await answer(cy, 'decline');
    expect(refused.status).toBe(410);
    expect(await refused.json()).toMatchObject({ message: 'this request was reassigned to someone else' });

    // The new address receives its own link, which works; its decline (a required recipient's) fails the gate.
    const deeLink = await linkOf('dee@example.com');
    expect(deeLink).not.toBe(cy);
    const deePage = await fetch(deeLink);
    expect(deePage.status).toBe(200);
    expect(await deePage.text()).toContain('1 of 2 approvals received.');
    const timeline = await eventually(async () => {
      const a = await get(id);
      return a.reminder_events.some((e: any) => e.notes === 'request to dee@example.com via email')
        ? a
        : null;
    });
    expect(timeline.status).toBe('awaiting_response');
    const declined = await answer(deeLink, 'decline', 'not this quarter');
    expect(await declined.json()).toMatchObject({ action_status: 'failed' });
    const failed = await get(id);
    expect(failed.last_error).toContain('required recipient dee@example.com');
    // Nothing more went to the one handed over: one mail only.
    expect(smtp.mails.filter((m) => m.to.includes('cy@example.com'))).toHaveLength(1);

    // The audit log: who reassigned whom, and why (no token in it).
    const audit = await call('GET', `/v1/audit-events?resource_id=${id}&action=approval.reassigned`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      actor: { type: 'api_key' },
      resource: { type: 'action', id },
      details: {
        recipient_id: cyId,
        to_recipient_id: dee.id,
        required: true,
        reason: 'Cy is on leave',
      },
    });
    expect(JSON.stringify(audit.body)).not.toContain(cy.split('/r/')[1]);
    // Recipients by id: their addresses are personal data, and the log cannot be edited.
    expect(JSON.stringify(audit.body)).not.toMatch(/cy@example\.com|dee@example\.com/);
  });

  it('a recipient reassigned before the first send never gets a message; all_required counts who stands on the gate', async () => {
    // Due in an hour, past the minute ahead that the scheduler resolves, so the gate is still `scheduled` when the
    // reassignment lands however slow the machine; then brought to a second from now.
    const res = await create(
      { recipients: ['early1@example.com', 'early2@example.com'], confirmation_mode: 'all_required' },
      '1h',
    );
    const id = res.body.data.id;
    const early1 = recipientOf(res.body.data, 'early1@example.com').id;
    const moved = await reassign(id, early1, { to: 'late@example.com' });
    expect(moved.status).toBe(200);
    expect(moved.body.data.status).toBe('scheduled');
    expect((await call('POST', `/v1/actions/${id}/reschedule`, { schedule: { wait: '1s' } })).status).toBe(
      200,
    );
    const [late, two] = [await linkOf('late@example.com'), await linkOf('early2@example.com')];
    await until(id, 'awaiting_response');
    expect(smtp.mails.filter((m) => m.to.includes('early1@example.com'))).toHaveLength(0);
    expect(smtp.mails.filter((m) => m.to.includes('late@example.com'))).toHaveLength(1);
    // The reassigned one no longer counts: both who stand on the gate confirm, and it is approved.
    expect((await answer(late, 'confirm')).status).toBe(200);
    expect((await get(id)).status).toBe('awaiting_response');
    expect((await answer(two, 'confirm')).status).toBe(200);
    await until(id, 'executed');
  });

  it('409 once the recipient answered, for a webhook action and a finished gate; 404 for an unknown recipient or another account; 422 for a bad `to`', async () => {
    const res = await create({
      recipients: ['x1@example.com', 'x2@example.com', 'x3@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      exclude_requester: 'req@example.com',
    });
    const id = res.body.data.id;
    const x1 = await linkOf('x1@example.com');
    await until(id, 'awaiting_response');
    const [r1, r2] = [
      recipientOf(await get(id), 'x1@example.com').id,
      recipientOf(await get(id), 'x2@example.com').id,
    ];
    expect((await answer(x1, 'confirm')).status).toBe(200);

    const answered = await reassign(id, r1, { to: 'y@example.com' });
    expect(answered.status).toBe(409);
    expect(answered.body).toMatchObject({ code: 'conflict' });
    expect(answered.body.message).toContain('already answered');

    const unknown = await reassign(id, '00000000-0000-4000-8000-000000000000', { to: 'y@example.com' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'not_found', message: 'recipient not found' });
    // 422: unresolvable, already on the gate, the excluded requester, missing.
    const bad = await reassign(id, r2, { to: 'not an address' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.to).toBeDefined();
    expect((await reassign(id, r2, { to: 'X1@example.com' })).body.errors.to[0]).toContain(
      'already a recipient',
    );
    expect((await reassign(id, r2, { to: 'req@example.com' })).body.errors.to[0]).toContain('requester');
    expect((await reassign(id, r2, {})).status).toBe(422);
    // An id that is not a UUID is no recipient at all (as everywhere in the API).
    expect(
      (await call('POST', `/v1/actions/${id}/recipients/nope/reassign`, { to: 'y@example.com' })).status,
    ).toBe(404);

    // Another account: its key sees neither the action nor the recipient.
    const other = JSON.parse(
      (await runCli(['accounts', 'create', '--name', 'other', '--plan', 'business', '--json'], server.env))
        .stdout,
    ).api_key;
    const foreign = await api(server, other, 'POST', `/v1/actions/${id}/recipients/${r2}/reassign`, {
      to: 'y@example.com',
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 'not_found', message: 'action not found' });

    // A recipient handed over already: 409 (it is no longer on the gate).
    expect((await reassign(id, r2, { to: 'z@example.com' })).status).toBe(200);
    expect((await reassign(id, r2, { to: 'w@example.com' })).status).toBe(409);

    // A finished gate, and a webhook action.
    expect((await call('DELETE', `/v1/actions/${id}`)).status).toBe(200);
    expect((await reassign(id, r1, { to: 'y@example.com' })).status).toBe(409);
    const hook = await call('POST', '/v1/actions', {
      schedule: { wait: '1h' },
      request: { url: 'https://example.com/hook' },
    });
    const webhook = await reassign(hook.body.data.id, r2, { to: 'y@example.com' });
    expect(webhook.status).toBe(409);
    expect(webhook.body.message).toContain('not an approval');
  });

  it('the SDK and the CLI reassign, and `actions get` shows the recipient ids', async () => {
    const res = await create({ recipients: ['s1@example.com', 's2@example.com'] });
    const id = res.body.data.id;
    await linkOf('s1@example.com');
    await until(id, 'awaiting_response');
    const s1 = recipientOf(await get(id), 's1@example.com').id;
    const action = await sched.reassign(id, s1, { to: 's3@example.com', reason: 'by the SDK' });
    const s3 = recipientOf(action, 's3@example.com');
    expect(s3.reassigned_from).toBe(s1);
    await expect(sched.reassign(id, s1, { to: 's4@example.com' })).rejects.toSatisfy(
      (e: unknown) => e instanceof SchedApiError && e.status === 409,
    );
    expect(await linkOf('s3@example.com')).toContain('/r/');

    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const shown = await runCli(['actions', 'get', id], env);
    expect(shown.stdout).toContain(s3.id);
    const cli = await runCli(
      ['approvals', 'reassign', id, s3.id, '--to', 's5@example.com', '--reason', 'CLI'],
      env,
    );
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`reassigned ${s3.id} to s5@example.com`);
    const json = await runCli(
      [
        'approvals',
        'reassign',
        id,
        recipientOf(await get(id), 's2@example.com').id,
        '--to',
        's6@example.com',
        '--json',
      ],
      env,
    );
    expect(JSON.parse(json.stdout).data.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ['s1@example.com', 'reassigned'],
      ['s2@example.com', 'reassigned'],
      ['s3@example.com', 'reassigned'],
      ['s5@example.com', 'pending'],
      ['s6@example.com', 'pending'],
    ]);
    const usage = await runCli(['approvals', 'reassign', id, s3.id], env);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toContain('--to');
    expect(await linkOf('s6@example.com')).toContain('/r/');
  });
});
