import { createECDH, createHmac, randomBytes } from 'node:crypto';
import ece from 'http_ece';
import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { createTestDatabase } from '../support/database.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { sendUntilRefused } from '../support/rate-limit.js';
import { eventually } from '../support/receiver.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

// Approvals end to end with real protocol peers on loopback. SCHED_TIME_SCALE=3600 makes an hour of gate timeout,
// snooze or escalation last one second.
describe('approval actions', () => {
  let svc: ApprovalServer;
  let server: TestServer;
  let smtp: ApprovalServer['smtp'];
  let rx: ApprovalServer['rx'];
  let key: string;
  const create = (body: Record<string, unknown>) => api(server, key, 'POST', '/v1/actions', body);
  const answer = (link: string, body: Record<string, string>, accept = 'application/json') =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    });
  const form = (link: string, body: Record<string, string>) =>
    fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(body).toString(),
    });

  const vapid = webPush.generateVAPIDKeys();
  // A browser's push subscription: its own P-256 key pair and auth secret, pointing at a loopback push service.
  const browserKey = createECDH('prime256v1');
  browserKey.generateKeys();
  const authSecret = randomBytes(16);

  beforeAll(async () => {
    svc = await startApprovalServer('approvals', {
      timeScale: 3600,
      env: (receiver) => ({
        SCHED_TWILIO_ACCOUNT_SID: 'AC0123',
        SCHED_TWILIO_AUTH_TOKEN: 'twilio-token',
        SCHED_TWILIO_FROM: '+15550000000',
        SCHED_TWILIO_API_URL: `${receiver.url}/twilio`,
        SCHED_VAPID_PUBLIC_KEY: vapid.publicKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'mailto:ops@example.com',
      }),
    });
    ({ server, smtp, rx, key } = svc);
  });
  afterAll(() => svc?.stop());

  it('first_response by email: page, confirm, callback, and the post-approval request signed', async () => {
    const secret = 'approval-secret-0123456789';
    const res = await create({
      mode: 'approval',
      name: 'Deploy v2',
      schedule: { wait: '1s' },
      gate: {
        message: 'Ship <v2> to production?',
        recipients: ['ada@example.com'],
        buttons: ['Ship it', 'Hold'],
      },
      request: { url: `${rx.url}/deploy`, body: { version: 2 } },
      webhook_secret: secret,
      callback_url: `${rx.url}/cb-deploy`,
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ mode: 'approval', status: 'scheduled' });
    expect(res.body.data.gate).toMatchObject({
      confirmation_mode: 'first_response',
      max_snoozes: 5,
      timeout: '7d',
      on_timeout: 'cancel',
      channels: ['email'],
      buttons: ['Ship it', 'Hold'],
    });
    expect(res.body.data.recipients).toEqual([
      expect.objectContaining({
        email: 'ada@example.com',
        status: 'pending',
        display_name: 'ada',
        responded_at: null,
      }),
    ]);

    const [mail] = await smtp.waitFor('ada@example.com');
    expect(mail!.from).toBe('approvals@example.com');
    expect(mail!.subject).toContain('Deploy v2');
    expect(mail!.text).toContain('Ship <v2> to production?');
    expect(mail!.html).toContain('Ship &lt;v2&gt; to production?');
    const link = linkIn(mail!.text);
    const waiting = await svc.until(res.body.data.id, 'awaiting_response');
    expect(waiting.reminder_events.map((e: { event_type: string }) => e.event_type)).toEqual(['sent']);

    // GET never changes anything, however often a scanner opens it.
    for (let i = 0; i < 3; i++) {
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      // Escaped by the page renderer (a `>` opens nothing once every `<` is `&lt;`).
      expect(html).toContain('Ship &lt;v2> to production?');
      expect(html).not.toContain('<v2>');
      expect(html).toContain('Ship it');
    }
    expect((await svc.get(res.body.data.id)).status).toBe('awaiting_response');

    const posted = await form(link, { decision: 'confirm', comment: 'LGTM', snooze_for: '1h' });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('content-type')).toContain('text/html');
    const done = await svc.until(res.body.data.id, 'executed');
    expect(done.recipients[0]).toMatchObject({ status: 'confirmed', response_comment: 'LGTM' });
    expect(done.recipients[0].responded_at).not.toBeNull();
    expect(done.reminder_events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'sent',
      'confirmed',
    ]);
    expect(done.reminder_events[1]).toMatchObject({ actor_email: 'ada@example.com', notes: 'LGTM' });

    const [cb] = await rx.waitFor('/cb-deploy');
    expect(cb!.json).toMatchObject({
      event: 'reminder.responded',
      action_id: res.body.data.id,
      payload: {
        status: 'executed',
        response: 'confirmed',
        decision: 'confirm',
        respondent: 'ada@example.com',
      },
    });
    const [hook] = await rx.waitFor('/deploy');
    expect(hook!.json).toEqual({ version: 2 });
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+),v2=[0-9a-f]+$/.exec(
      String(hook!.headers['x-service-signature']),
    )!;
    expect(createHmac('sha256', secret).update(`${t}.${hook!.body}`).digest('hex')).toBe(v1);
    expect(done.gate.post_approval_action_id).toBeTypeOf('string');
    await svc.until(done.gate.post_approval_action_id, 'executed');

    // A second answer through the same link is refused: the recipient has answered and the action is done.
    const again = await answer(link, { decision: 'decline' });
    expect(again.status).toBe(410);
    expect((await fetch(link)).status).toBe(410);
  });

  it('all_required waits for every recipient; a decline fails the action', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Two keys',
        recipients: ['k1@example.com', 'k2@example.com'],
        confirmation_mode: 'all_required',
      },
    });
    const [m1] = await smtp.waitFor('k1@example.com');
    const [m2] = await smtp.waitFor('k2@example.com');
    await svc.until(res.body.data.id, 'awaiting_response');
    const first = await answer(linkIn(m1!.text), { decision: 'confirm' });
    expect(first.status).toBe(200);
    expect((await first.json()) as any).toMatchObject({
      decision: 'confirm',
      recipient_status: 'confirmed',
      action_status: 'awaiting_response',
    });
    expect((await svc.get(res.body.data.id)).status).toBe('awaiting_response');
    const second = await answer(linkIn(m2!.text), { decision: 'confirm' });
    expect(((await second.json()) as any).action_status).toBe('executed');

    const d = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'No?', recipients: ['no@example.com', 'yes@example.com'] },
    });
    const [dm] = await smtp.waitFor('no@example.com');
    await svc.until(d.body.data.id, 'awaiting_response');
    const declined = await answer(linkIn(dm!.text), { decision: 'decline', comment: 'too risky' });
    expect(((await declined.json()) as any).action_status).toBe('failed');
    const failed = await svc.get(d.body.data.id);
    expect(failed.recipients.find((r: { email: string }) => r.email === 'no@example.com')).toMatchObject({
      status: 'declined',
      response_comment: 'too risky',
    });
    const [ym] = await smtp.waitFor('yes@example.com');
    expect((await answer(linkIn(ym!.text), { decision: 'confirm' })).status).toBe(410);
  });

  it('retrying a declined approval asks again: new links, a fresh timeout, the request only after a confirm', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Again?', recipients: ['again@example.com'], timeout: '24h' },
      request: { url: `${rx.url}/after-retry` },
    });
    const id = res.body.data.id;
    const [first] = await smtp.waitFor('again@example.com');
    const link1 = linkIn(first!.text);
    const round1 = await svc.until(id, 'awaiting_response');
    expect(((await (await answer(link1, { decision: 'decline' })).json()) as any).action_status).toBe(
      'failed',
    );

    const retried = await api(server, key, 'POST', `/v1/actions/${id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body.data).toMatchObject({ status: 'resolved', manual_retry_count: 1 });
    const mails = await smtp.waitFor('again@example.com', 2);
    expect(mails[1]!.subject).not.toMatch(/reminder/i);
    const link2 = linkIn(mails[1]!.text);
    expect(link2).not.toBe(link1);
    const round2 = await svc.until(id, 'awaiting_response');
    expect(round2.recipients).toEqual([expect.objectContaining({ status: 'pending', responded_at: null })]);
    // The timeout counts from the new round: 24 h, scaled to 24 s.
    expect(Date.parse(round2.gate.sent_at)).toBeGreaterThan(Date.parse(round1.gate.sent_at));
    expect(Date.parse(round2.gate.expires_at) - Date.parse(round2.gate.sent_at)).toBe(24_000);

    // The old link is dead; nothing ran yet.
    expect((await fetch(link1)).status).toBe(404);
    expect((await answer(link1, { decision: 'confirm' })).status).toBe(404);
    expect(rx.to('/after-retry')).toHaveLength(0);

    expect(((await (await answer(link2, { decision: 'confirm' })).json()) as any).action_status).toBe(
      'executed',
    );
    await rx.waitFor('/after-retry');
    const done = await svc.get(id);
    expect(done.reminder_events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'sent',
      'declined',
      'sent',
      'confirmed',
    ]);
  });

  it('snooze up to max_snoozes: the message is sent again after the snooze period', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Later?', recipients: ['sleepy@example.com'], max_snoozes: 1 },
    });
    const [m] = await smtp.waitFor('sleepy@example.com');
    await svc.until(res.body.data.id, 'awaiting_response');
    const snoozed = await answer(linkIn(m!.text), { decision: 'snooze', snooze_for: '1h' });
    expect(snoozed.status).toBe(200);
    const body = (await snoozed.json()) as any;
    expect(body).toMatchObject({ recipient_status: 'snoozed', action_status: 'scheduled' });
    expect((await svc.get(res.body.data.id)).recipients[0].status).toBe('snoozed');
    // 1 h / 3600 = 1 s later, the reminder.
    const mails = await smtp.waitFor('sleepy@example.com', 2);
    expect(mails[1]!.subject).toMatch(/reminder/i);
    const again = await svc.until(res.body.data.id, 'awaiting_response');
    expect(again.gate.snooze_count).toBe(1);
    const link2 = linkIn(mails[1]!.text);
    const refused = await answer(link2, { decision: 'snooze' });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as any).errors.decision[0]).toContain('no snoozes left');
    // The page hides snoozing once none are left.
    expect(await (await fetch(link2)).text()).not.toContain('name="snooze_for"');
    expect((await answer(link2, { decision: 'confirm' })).status).toBe(200);
    const done = await svc.until(res.body.data.id, 'executed');
    expect(done.reminder_events.map((e: { event_type: string }) => e.event_type)).toEqual([
      'sent',
      'snoozed',
      'sent',
      'confirmed',
    ]);
  });

  it.each([
    ['cancel', 'cancelled'],
    ['expire', 'expired'],
    ['approve', 'executed'],
  ])(
    'on_timeout %s → %s, with an action.expired callback, and the links stop working',
    async (onTimeout, status) => {
      const res = await create({
        mode: 'approval',
        schedule: { wait: '1s' },
        gate: {
          message: `timeout ${onTimeout}`,
          recipients: [`t-${onTimeout}@example.com`],
          timeout: '2h',
          on_timeout: onTimeout,
        },
        request: { url: `${rx.url}/after-${onTimeout}` },
        callback_url: `${rx.url}/cb-timeout-${onTimeout}`,
      });
      const [m] = await smtp.waitFor(`t-${onTimeout}@example.com`);
      const done = await svc.until(res.body.data.id, status);
      expect(done.reminder_events.map((e: { event_type: string }) => e.event_type)).toEqual([
        'sent',
        'expired',
      ]);
      const [cb] = await rx.waitFor(`/cb-timeout-${onTimeout}`);
      expect(cb!.json).toMatchObject({
        event: 'action.expired',
        payload: { status, on_timeout: onTimeout, pending_recipients: [`t-${onTimeout}@example.com`] },
      });
      expect((await fetch(linkIn(m!.text))).status).toBe(410);
      if (onTimeout === 'approve') await rx.waitFor(`/after-${onTimeout}`);
      else expect(rx.to(`/after-${onTimeout}`)).toHaveLength(0);
    },
  );

  it('escalates to the escalation contacts when nobody answers in time (nested and flat forms)', async () => {
    const nested = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Anyone?',
        recipients: ['quiet@example.com'],
        escalation: { contacts: ['boss@example.com'], after_hours: 1 },
      },
    });
    const [boss] = await smtp.waitFor('boss@example.com');
    expect(boss!.subject).toMatch(/escalat/i);
    const escalated = await eventually(async () => {
      const a = await svc.get(nested.body.data.id);
      return a.reminder_events.some((e: { event_type: string }) => e.event_type === 'escalated') ? a : null;
    });
    expect(escalated.gate.escalated_at).not.toBeNull();
    expect(escalated.recipients.map((r: { email: string; role: string }) => [r.email, r.role])).toEqual([
      ['quiet@example.com', 'recipient'],
      ['boss@example.com', 'escalation'],
    ]);
    expect((await answer(linkIn(boss!.text), { decision: 'confirm' })).status).toBe(200);
    await svc.until(nested.body.data.id, 'executed');

    const flat = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Flat',
        recipients: ['quiet2@example.com'],
        escalation_contacts: ['email:boss2@example.com'],
        escalation_after_hours: 0.5,
      },
    });
    await smtp.waitFor('boss2@example.com');
    expect((await svc.get(flat.body.data.id)).gate.escalation).toEqual({
      contacts: ['email:boss2@example.com'],
      after_hours: 0.5,
    });
  });

  it('a cancelled approval kills its links', async () => {
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Cancel me', recipients: ['c@example.com'] },
    });
    const [m] = await smtp.waitFor('c@example.com');
    await svc.until(res.body.data.id, 'awaiting_response');
    expect((await api(server, key, 'DELETE', `/v1/actions/${res.body.data.id}`)).status).toBe(200);
    const link = linkIn(m!.text);
    expect((await fetch(link)).status).toBe(410);
    expect((await answer(link, { decision: 'confirm' })).status).toBe(410);
    expect((await fetch(`${link}x`)).status).toBe(404);
  });

  it('SMS through the Twilio API, with the recipient picked from a contact reference', async () => {
    rx.on('/twilio/2010-04-01/Accounts/AC0123/Messages.json', {
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"sid":"SM123"}',
    });
    const contact = await api(server, key, 'POST', '/v1/contacts', { name: 'Grace', phone: '+15557654321' });
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Text me', recipients: [`contact:${contact.body.data.id}:phone`] },
    });
    const [sms] = await rx.waitFor('/twilio/2010-04-01/Accounts/AC0123/Messages.json');
    expect(sms!.headers.authorization).toBe(`Basic ${Buffer.from('AC0123:twilio-token').toString('base64')}`);
    const params = new URLSearchParams(sms!.body);
    expect(params.get('To')).toBe('+15557654321');
    expect(params.get('From')).toBe('+15550000000');
    const link = linkIn(params.get('Body')!);
    const a = await svc.until(res.body.data.id, 'awaiting_response');
    expect(a.recipients[0]).toMatchObject({
      email: '+15557654321',
      display_name: 'Grace',
      channels: ['sms'],
    });
    expect((await answer(link, { decision: 'confirm' })).status).toBe(200);
    const quota = (await api(server, key, 'GET', '/v1/quota')).body.data;
    expect(quota.sms.used).toBeGreaterThanOrEqual(1);
    expect(quota.emails.used).toBeGreaterThanOrEqual(1);
  });

  it('Slack and Teams channels (Business) and Web Push to a team member', async () => {
    const slack = await api(server, key, 'POST', '/v1/channels', {
      name: 'ops',
      type: 'slack',
      webhook_url: `${rx.url}/slack`,
    });
    expect(slack.status).toBe(201);
    const teams = await api(server, key, 'POST', '/v1/channels', {
      name: 'eng',
      type: 'teams',
      webhook_url: `${rx.url}/teams`,
    });
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Chat ok?',
        recipients: [`channel:${slack.body.data.id}`, `channel:${teams.body.data.id}`],
      },
    });
    const [s] = await rx.waitFor('/slack');
    expect(s!.json.blocks.some((b: { type: string }) => b.type === 'actions')).toBe(true);
    const [t] = await rx.waitFor('/teams');
    expect(t!.json.attachments[0].content.type).toBe('AdaptiveCard');
    const a = await svc.until(res.body.data.id, 'awaiting_response');
    expect(a.gate.channels.sort()).toEqual(['slack', 'teams']);
    expect(a.recipients.map((r: { email: string }) => r.email)).toEqual(['ops', 'eng']);

    // A read-only key sees where a webhook points, not the webhook (a read key never sees credentials).
    const accounts = await runCli(['accounts', 'list', '--json'], server.env);
    const accountId = JSON.parse(accounts.stdout).data[0].id as string;
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    const readKey = JSON.parse(created.stdout).api_key as string;
    const origin = new URL(rx.url).origin;
    const listed = await api(server, readKey, 'GET', '/v1/channels');
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((c: { webhook_url: string }) => c.webhook_url)).toEqual([
      `${origin}/***`,
      `${origin}/***`,
    ]);
    expect(
      (await api(server, readKey, 'GET', `/v1/channels/${slack.body.data.id}`)).body.data.webhook_url,
    ).toBe(`${origin}/***`);
    expect((await api(server, key, 'GET', `/v1/channels/${slack.body.data.id}`)).body.data.webhook_url).toBe(
      `${rx.url}/slack`,
    );

    // Stored request header values are the destination's credentials: a read-only key sees only their names.
    const hook = await api(server, key, 'POST', '/v1/actions', {
      request: {
        url: `${rx.url}/hook`,
        headers: { Authorization: 'Bearer downstream-secret', 'X-Trace': 'on' },
      },
      schedule: { wait: '1h' },
    });
    expect(hook.status).toBe(201);
    const readView = (await api(server, readKey, 'GET', `/v1/actions/${hook.body.data.id}`)).body.data;
    expect(readView.request.headers).toEqual({ Authorization: '***', 'X-Trace': '***' });
    const writeView = (await api(server, key, 'GET', `/v1/actions/${hook.body.data.id}`)).body.data;
    expect(writeView.request.headers.Authorization).toBe('Bearer downstream-secret');

    rx.on('/push', { status: 201 });
    const member = await api(server, key, 'POST', '/v1/team-members', {
      name: 'Pat',
      push_subscriptions: [
        {
          endpoint: `${rx.url}/push`,
          keys: {
            p256dh: browserKey.getPublicKey().toString('base64url'),
            auth: authSecret.toString('base64url'),
          },
        },
      ],
    });
    expect(member.status).toBe(201);
    const masked = (await api(server, readKey, 'GET', `/v1/team-members/${member.body.data.id}`)).body.data;
    expect(masked.push_subscriptions).toEqual([
      { endpoint: `${origin}/***`, keys: { p256dh: '***', auth: '***' } },
    ]);
    expect(
      (await api(server, readKey, 'GET', '/v1/team-members')).body.data[0].push_subscriptions[0].keys.auth,
    ).toBe('***');
    expect((await api(server, key, 'GET', '/v1/team-members')).body.data[0].push_subscriptions).toEqual(
      member.body.data.push_subscriptions,
    );
    const pushed = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Push ok?', recipients: [member.body.data.id] },
    });
    const [p] = await rx.waitFor('/push');
    expect(p!.headers['content-encoding']).toBe('aes128gcm');
    expect(String(p!.headers.authorization)).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    const raw = p!.raw;
    expect(raw.includes(Buffer.from('Push ok?'))).toBe(false);
    const plain = ece.decrypt(raw, {
      version: 'aes128gcm',
      privateKey: browserKey,
      dh: undefined,
      authSecret: authSecret.toString('base64url'),
    });
    const payload = JSON.parse(plain.toString('utf8'));
    expect(payload).toMatchObject({ body: 'Push ok?', actionId: pushed.body.data.id });
    expect(payload.url).toMatch(/\/r\/[\w-]+$/);
  });

  it('validates gates with 422 and field paths', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'gate'],
      [{ gate: { recipients: ['a@example.com'] } }, 'gate.message'],
      [{ gate: { message: 'x'.repeat(5001), recipients: ['a@example.com'] } }, 'gate.message'],
      [{ gate: { message: 'm', recipients: [] } }, 'gate.recipients'],
      [{ gate: { message: 'm', recipients: ['not a recipient'] } }, 'gate.recipients.0'],
      [
        { gate: { message: 'm', recipients: ['contact:00000000-0000-4000-8000-000000000000:email'] } },
        'gate.recipients.0',
      ],
      [{ gate: { message: 'm', recipients: ['a@example.com'], channels: ['fax'] } }, 'gate.channels.0'],
      [{ gate: { message: 'm', recipients: ['+15551234567'], channels: ['email'] } }, 'gate.recipients.0'],
      [{ gate: { message: 'm', recipients: ['a@example.com'], max_snoozes: 11 } }, 'gate.max_snoozes'],
      [{ gate: { message: 'm', recipients: ['a@example.com'], timeout: 'forever' } }, 'gate.timeout'],
      [{ gate: { message: 'm', recipients: ['a@example.com'], on_timeout: 'explode' } }, 'gate.on_timeout'],
      [{ gate: { message: 'm', recipients: ['a@example.com'], buttons: ['only one'] } }, 'gate.buttons'],
      [
        {
          gate: {
            message: 'm',
            recipients: ['a@example.com'],
            escalation: { contacts: ['b@example.com'], after_hours: 0.1 },
          },
        },
        'gate.escalation.after_hours',
      ],
      [
        { gate: { message: 'm', recipients: ['a@example.com'], attachments: [{ name: 'x' }] } },
        'gate.attachments.0',
      ],
      [{ gate: { message: 'm', recipients: ['a@example.com'] }, request: { url: 'ftp://x' } }, 'request.url'],
    ];
    for (const [extra, field] of cases) {
      const res = await create({ mode: 'approval', schedule: { wait: '1h' }, ...extra });
      expect(res.status, JSON.stringify(extra)).toBe(422);
      expect(Object.keys(res.body.errors), JSON.stringify(res.body.errors)).toContain(field);
    }
  });

  it('offers attachments by email and on the page', async () => {
    const content = Buffer.from('%PDF-1.4 fake report').toString('base64');
    const res = await create({
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'See the report',
        recipients: ['files@example.com'],
        attachments: [
          { name: 'report.pdf', content_type: 'application/pdf', content },
          { name: 'spec', url: 'https://example.com/spec.pdf' },
        ],
      },
    });
    const [m] = await smtp.waitFor('files@example.com');
    expect(m!.attachments).toEqual([
      expect.objectContaining({ filename: 'report.pdf', contentType: 'application/pdf' }),
    ]);
    expect(m!.attachments[0]!.content.toString()).toBe('%PDF-1.4 fake report');
    const page = await (await fetch(linkIn(m!.text))).text();
    expect(page).toContain('report.pdf');
    expect(page).toContain('https://example.com/spec.pdf');
    const href = /href="([^"]*attachments[^"]*)"/.exec(page)![1]!;
    const file = await fetch(new URL(href, linkIn(m!.text)));
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await file.arrayBuffer()).toString()).toBe('%PDF-1.4 fake report');
    const a = await svc.get(res.body.data.id);
    expect(a.gate.attachments).toEqual([
      expect.objectContaining({ name: 'report.pdf', content_type: 'application/pdf', size: 20, url: null }),
      expect.objectContaining({ name: 'spec', url: 'https://example.com/spec.pdf', size: null }),
    ]);
  });
});

describe('response links are rate limited per link (10 a minute)', () => {
  it('answers 429 with Retry-After on the 11th request to one link within a minute', async () => {
    const db = await createTestDatabase('linklimit');
    const smtp = await startSmtpServer();
    const server = await startServer({ databaseUrl: db.url, env: { SCHED_SMTP_URL: smtp.url } });
    try {
      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        mode: 'approval',
        schedule: { wait: '1s' },
        gate: { message: 'Limit me', recipients: ['limit@example.com'] },
      });
      expect(res.status).toBe(201);
      const [mail] = await smtp.waitFor('limit@example.com');
      const link = linkIn(mail!.text);
      // The requests of the window the first refusal fell in (a run may straddle a minute boundary).
      const counted = await sendUntilRefused(() => fetch(link));
      expect(counted.map((r) => r.status)).toEqual([...Array(10).fill(200), 429]);
      const last = counted.at(-1)!;
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last.headers.get('x-ratelimit-limit')).toBe('10');
    } finally {
      await server.stop();
      await smtp.close();
      await db.drop();
    }
  });
});
