import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { workAhead } from '../support/jobs.js';
import { linkIn } from '../support/peers.js';
import { eventually } from '../support/receiver.js';
import { api, runCli, type TestServer } from '../support/server.js';

// Quorum gates end to end through the real SMTP sink: N of M, required recipients, the excluded requester.
describe('quorum approvals', () => {
  let svc: ApprovalServer;
  let db: ApprovalServer['db'];
  let server: TestServer;
  let smtp: ApprovalServer['smtp'];
  let key: string;
  const create = (gate: Record<string, unknown>) =>
    api(server, key, 'POST', '/v1/actions', {
      mode: 'approval',
      name: 'Quorum',
      schedule: { wait: '1s' },
      gate: { message: 'Approve the payout?', ...gate },
    });
  const answer = (link: string, decision: string) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision }),
    });

  beforeAll(async () => {
    svc = await startApprovalServer('quorum', { timeScale: 3600 });
    ({ db, server, smtp, key } = svc);
  });
  afterAll(() => svc?.stop());

  it('2 of 3: one confirmation waits and the page says one more is needed; the second approves', async () => {
    const res = await create({
      recipients: ['q1@example.com', 'q2@example.com', 'q3@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.gate).toMatchObject({
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: [],
      exclude_requester: null,
    });
    const id = res.body.data.id;
    const [l1, l2] = [await svc.linkOf('q1@example.com'), await svc.linkOf('q2@example.com')];
    await svc.linkOf('q3@example.com');
    await svc.until(id, 'awaiting_response');

    const first = await answer(l1, 'confirm');
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ action_status: 'awaiting_response', approvals_needed: 1 });
    const waiting = await svc.get(id);
    expect(waiting.status).toBe('awaiting_response');
    expect(waiting.recipients.map((r: any) => [r.email, r.status])).toEqual([
      ['q1@example.com', 'confirmed'],
      ['q2@example.com', 'pending'],
      ['q3@example.com', 'pending'],
    ]);
    const page = await (await fetch(l2)).text();
    expect(page).toContain('1 of 2 approvals received. 1 more approval is needed.');

    const second = await answer(l2, 'confirm');
    expect(await second.json()).toMatchObject({ approvals_needed: null });
    await svc.until(id, 'executed');
  });

  it('sched approvals create reaches the quorum and every other gate field', async () => {
    const out = await runCli(
      [
        'approvals',
        'create',
        '--to',
        'c1@example.com',
        '--to',
        'c2@example.com',
        '--to',
        'c3@example.com',
        '--message',
        'Ship it?',
        '--in',
        '1h',
        '--min-approvals',
        '2',
        '--require',
        'c1@example.com',
        '--exclude-requester',
        'c3@example.com',
        '--remind-every',
        '1h',
        '--remind-max',
        '2',
        '--comment',
        'required_on_decline',
        '--json',
      ],
      { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key },
    );
    expect(out.code, out.stderr).toBe(0);
    const id = JSON.parse(out.stdout).data.id as string;
    expect((await svc.get(id)).gate).toMatchObject({
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: ['c1@example.com'],
      exclude_requester: 'c3@example.com',
      reminders: { every: '1h', max: 2 },
      comment: 'required_on_decline',
    });
  });

  it('a decline that leaves the quorum reachable waits; a required recipient declining fails it at once', async () => {
    const res = await create({
      recipients: ['r1@example.com', 'r2@example.com', 'boss@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: ['boss@example.com'],
    });
    expect(res.status).toBe(201);
    const id = res.body.data.id;
    const r1 = await svc.linkOf('r1@example.com');
    const boss = await svc.linkOf('boss@example.com');
    await svc.until(id, 'awaiting_response');
    expect((await answer(r1, 'decline')).status).toBe(200);
    expect((await svc.get(id)).status).toBe('awaiting_response');
    const declined = await answer(boss, 'decline');
    expect(await declined.json()).toMatchObject({ action_status: 'failed' });
    const failed = await svc.get(id);
    expect(failed.status).toBe('failed');
    expect(failed.last_error).toContain('required recipient boss@example.com');
  });

  it('declines once too few recipients are left to reach the quorum', async () => {
    const res = await create({
      recipients: ['u1@example.com', 'u2@example.com', 'u3@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
    });
    const id = res.body.data.id;
    const [u1, u2] = [await svc.linkOf('u1@example.com'), await svc.linkOf('u2@example.com')];
    await svc.until(id, 'awaiting_response');
    await answer(u1, 'decline');
    expect((await svc.get(id)).status).toBe('awaiting_response');
    await answer(u2, 'decline');
    expect((await svc.get(id)).status).toBe('failed');
  });

  it("the requester's link answers a clear page; a requester needed for the quorum is refused at create", async () => {
    const refused = await create({
      recipients: ['me@example.com', 'x@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      exclude_requester: 'me@example.com',
    });
    expect(refused.status).toBe(422);
    expect(refused.body.errors['gate.exclude_requester']).toBeDefined();

    const res = await create({
      recipients: ['req@example.com', 'y1@example.com', 'y2@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      exclude_requester: 'req@example.com',
    });
    expect(res.status).toBe(201);
    const mine = await svc.linkOf('req@example.com');
    await svc.until(res.body.data.id, 'awaiting_response');
    const page = await fetch(mine);
    expect(page.status).toBe(403);
    expect(await page.text()).toContain('You cannot approve your own request');
    expect((await answer(mine, 'confirm')).status).toBe(403);
    expect((await svc.get(res.body.data.id)).status).toBe('awaiting_response');
  });

  it('refuses a quorum without min_approvals, one larger than the recipients, and an unknown required recipient', async () => {
    const missing = await create({
      recipients: ['a@example.com', 'b@example.com'],
      confirmation_mode: 'quorum',
    });
    expect(missing.status).toBe(422);
    expect(missing.body.errors['gate.min_approvals']).toBeDefined();
    const tooMany = await create({
      recipients: ['a@example.com', 'b@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 3,
    });
    expect(tooMany.body.errors['gate.min_approvals']).toBeDefined();
    const unknown = await create({
      recipients: ['a@example.com', 'b@example.com'],
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: ['c@example.com'],
    });
    expect(unknown.body.errors['gate.required_recipients.0']).toBeDefined();
  });

  it('comment policy: required_on_decline refuses a bare decline with 422 on comment; required marks the page', async () => {
    const res = await create({ recipients: ['c1@example.com'], comment: 'required_on_decline' });
    expect(res.status).toBe(201);
    expect(res.body.data.gate.comment).toBe('required_on_decline');
    const link = await svc.linkOf('c1@example.com');
    await svc.until(res.body.data.id, 'awaiting_response');
    expect(await (await fetch(link)).text()).toContain('(required to decline)');
    const bare = await answer(link, 'decline');
    expect(bare.status).toBe(422);
    expect(((await bare.json()) as any).errors.comment).toEqual(['a comment is required to decline']);
    expect((await svc.get(res.body.data.id)).status).toBe('awaiting_response');
    const withComment = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'decline', comment: 'not this quarter' }),
    });
    expect(withComment.status).toBe(200);

    const strict = await create({ recipients: ['c2@example.com'], comment: 'required' });
    const strictLink = await svc.linkOf('c2@example.com');
    await svc.until(strict.body.data.id, 'awaiting_response');
    const page = await (await fetch(strictLink)).text();
    expect(page).toMatch(/<textarea[^>]* required/);
    expect((await answer(strictLink, 'confirm')).status).toBe(422);
    expect(
      (await create({ recipients: ['c3@example.com'], comment: 'sometimes' })).body.errors['gate.comment'],
    ).toBeDefined();
  });

  it('reminders: every 2 h (2 s scaled), max 2: two more mails to the silent recipient, none to the one who answered; remind sends one now, 409 when nobody is pending', async () => {
    const res = await create({
      recipients: ['quick@example.com', 'silent@example.com'],
      confirmation_mode: 'all_required',
      reminders: { every: '2h', max: 2 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.gate.reminders).toEqual({ every: '2h', max: 2, channels: null });
    const id = res.body.data.id;
    const quick = await svc.linkOf('quick@example.com');
    await svc.linkOf('silent@example.com');
    await svc.until(id, 'awaiting_response');
    expect((await answer(quick, 'confirm')).status).toBe(200);

    const mails = await smtp.waitFor('silent@example.com', 3, 30_000);
    expect(mails).toHaveLength(3);
    // A reminder's link works like the first one.
    const reminded = linkIn(mails[2]!.text);
    expect((await fetch(reminded)).status).toBe(200);
    const after = await eventually(async () => {
      const a = await svc.get(id);
      return a.gate.reminders_sent === 2 ? a : null;
    });
    expect(
      after.reminder_events.filter((e: any) => /^reminder \d to silent@example.com$/.test(e.notes ?? '')),
    ).toHaveLength(2);
    // The second reminder was the last (max 2): no reminder timer is left, so no third can come, and none ever to the
    // one who answered.
    await eventually(async () => (await workAhead(db.url, [id], 'reminder')) === 0);
    expect(smtp.mails.filter((m) => m.to.includes('silent@example.com'))).toHaveLength(3);
    expect(smtp.mails.filter((m) => m.to.includes('quick@example.com'))).toHaveLength(1);

    const now = await api(server, key, 'POST', `/v1/actions/${id}/remind`);
    expect(now.status).toBe(200);
    await smtp.waitFor('silent@example.com', 4);
    expect(smtp.mails.filter((m) => m.to.includes('quick@example.com'))).toHaveLength(1);
    expect((await answer(reminded, 'confirm')).status).toBe(200);
    await svc.until(id, 'executed');
    const none = await api(server, key, 'POST', `/v1/actions/${id}/remind`);
    expect(none.status).toBe(409);
    const audit = await api(
      server,
      key,
      'GET',
      `/v1/audit-events?resource_id=${id}&action=approval.reminder`,
    );
    expect(audit.body.data.map((e: any) => e.details.manual)).toEqual([false, false, true]);
  }, 60_000);

  it('GET /v1/approvals lists what waits on whom, nearest timeout first, with recipient, overdue and channel filters', async () => {
    const later = await create({ recipients: ['p1@example.com', 'p9@example.com'], timeout: '7d' });
    const sooner = await create({ recipients: ['p1@example.com'], timeout: '3d' });
    const reminded = await create({
      recipients: ['p2@example.com'],
      timeout: '7d',
      reminders: { every: '1h', max: 1 },
    });
    for (const r of [later, sooner, reminded]) await svc.until(r.body.data.id, 'awaiting_response');
    const list = await api(server, key, 'GET', '/v1/approvals?recipient=P1@example.com');
    expect(list.status).toBe(200);
    expect(list.body.data.map((a: any) => a.id)).toEqual([sooner.body.data.id, later.body.data.id]);
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data[1]).toMatchObject({
      status: 'awaiting_response',
      overdue: false,
      recipients: [
        expect.objectContaining({ email: 'p1@example.com', status: 'pending', channels: ['email'] }),
        expect.objectContaining({ email: 'p9@example.com', status: 'pending' }),
      ],
    });
    expect(
      (await api(server, key, 'GET', '/v1/approvals?recipient=p1@example.com&channel=sms')).body.data,
    ).toEqual([]);
    const overdue = await eventually(async () => {
      const r = await api(server, key, 'GET', '/v1/approvals?overdue=true&recipient=p2@example.com');
      return r.body.data.length === 1 ? r.body.data : null;
    });
    expect(overdue[0]).toMatchObject({ id: reminded.body.data.id, overdue: true, reminders_sent: 1 });
    expect((await api(server, key, 'DELETE', `/v1/actions/${later.body.data.id}`)).status).toBe(200);
    const cancelled = await api(
      server,
      key,
      'GET',
      '/v1/approvals?status=cancelled&recipient=p1@example.com',
    );
    expect(cancelled.body.data.map((a: any) => a.id)).toEqual([later.body.data.id]);
    const open = await api(server, key, 'GET', '/v1/approvals?recipient=p1@example.com');
    expect(open.body.data.map((a: any) => a.id)).toEqual([sooner.body.data.id]);
    // The CLI: `sched approvals pending`, as a table and as JSON.
    const env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const table = await runCli(['approvals', 'pending', '--recipient', 'p1@example.com'], env);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(sooner.body.data.id);
    expect(table.stdout).toContain('p1@example.com');
    const json = await runCli(
      ['approvals', 'pending', '--overdue', '--recipient', 'p2@example.com', '--json'],
      env,
    );
    expect(JSON.parse(json.stdout).data.map((a: any) => a.id)).toEqual([reminded.body.data.id]);
    expect((await api(server, key, 'GET', '/v1/approvals?status=nope')).status).toBe(422);
  });
});
