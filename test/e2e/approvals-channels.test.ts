import { createECDH, createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import ece from 'http_ece';
import nodemailer from 'nodemailer';
import pg from 'pg';
import webPush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { launchBrowser } from '../support/browser.js';
import { consolePages } from '../support/console.js';
import type { ReceivedRequest } from '../support/receiver.js';
import { repoRoot } from '../support/server.js';
import { eventually } from '../support/wait.js';

// Deciding where the message is, end to end on loopback: a Slack Web API stand-in that checks the bot token and
// signs its clicks as Slack does, a Power Automate Workflows-style receiver, replies sent by a real SMTP client
// (nodemailer) to the inbound port, and a push notification answered by the documented service worker.

const BOT_TOKEN = 'xoxb-1234-5678-abcdef';
const SIGNING_SECRET = 'slack-signing-secret-0123456789abcdef';
const REPLY_DOMAIN = 'replies.example.com';
const INBOUND_SECRET = 'inbound-hook-secret-0123456789';
const MEMBER = 'U0ADA1234';
const OTHER_MEMBER = 'U0GRACE99';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

/** A signed `block_actions` request, as Slack sends it to the interaction URL. */
function slackClick(
  payload: Record<string, unknown>,
  opts: { secret?: string; ageSeconds?: number } = {},
): { body: string; headers: Record<string, string> } {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = String(Math.floor(Date.now() / 1000) - (opts.ageSeconds ?? 0));
  const sig = `v0=${createHmac('sha256', opts.secret ?? SIGNING_SECRET)
    .update(`v0:${ts}:${body}`)
    .digest('hex')}`;
  return {
    body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': sig,
    },
  };
}

describe('answers where the message is', () => {
  let svc: ApprovalServer;
  let smtpPort: number;
  let db: pg.Client;
  const vapid = webPush.generateVAPIDKeys();
  const browserKey = createECDH('prime256v1');
  browserKey.generateKeys();
  const authSecret = randomBytes(16);

  /** Actions answered by each test, and how the console says where the answer came from. */
  const answered: Record<string, string> = {};
  const call = (method: string, path: string, body?: unknown) => svc.call(method, path, body);
  const eventsOf = async (id: string) => (await svc.get(id)).reminder_events as any[];
  const auditOf = async (id: string) =>
    (await call('GET', `/v1/audit-events?resource_id=${id}`)).body.data as any[];
  const interact = (click: { body: string; headers: Record<string, string> }) =>
    fetch(`${svc.server.url}/integrations/slack/interactions`, {
      method: 'POST',
      headers: click.headers,
      body: click.body,
    });

  beforeAll(async () => {
    smtpPort = await freePort();
    svc = await startApprovalServer('channels', {
      timeScale: 3600,
      env: (rx) => ({
        SCHED_SLACK_BOT_TOKEN: BOT_TOKEN,
        SCHED_SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SCHED_SLACK_API_URL: `${rx.url}/slack-api`,
        SCHED_INBOUND_SMTP_PORT: String(smtpPort),
        SCHED_INBOUND_EMAIL_DOMAIN: REPLY_DOMAIN,
        SCHED_INBOUND_EMAIL_SECRET: INBOUND_SECRET,
        SCHED_VAPID_PUBLIC_KEY: vapid.publicKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'mailto:ops@example.com',
      }),
    });
    // The Slack Web API as its documentation describes it: a Bearer bot token, JSON bodies, `ok` answers.
    const slack = (answer: (req: ReceivedRequest) => Record<string, unknown>) => (req: ReceivedRequest) => ({
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(
        req.headers.authorization === `Bearer ${BOT_TOKEN}`
          ? answer(req)
          : { ok: false, error: 'invalid_auth' },
      ),
    });
    svc.rx.on(
      '/slack-api/conversations.open',
      slack((req) => ({ ok: true, channel: { id: `D${req.json.users}` } })),
    );
    let ts = 1_700_000_000;
    svc.rx.on(
      '/slack-api/chat.postMessage',
      slack((req) => ({ ok: true, channel: req.json.channel, ts: `${++ts}.000100`, message: req.json })),
    );
    svc.rx.on(
      '/slack-api/chat.update',
      slack((req) => ({ ok: true, channel: req.json.channel, ts: req.json.ts })),
    );
    svc.rx.on(
      '/slack-api/chat.postEphemeral',
      slack(() => ({ ok: true, message_ts: '1.2' })),
    );
    svc.rx.on(
      '/slack-api/users.info',
      slack((req) => ({ ok: true, user: { id: req.json.user, name: 'ada', real_name: 'Ada Lovelace' } })),
    );
    db = new pg.Client({ connectionString: svc.db.url });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await svc?.stop();
  });

  it('Slack app mode: a DM with buttons; a signed click by the recipient confirms and updates the message', async () => {
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Deploy 5.1',
      schedule: { wait: '1s' },
      gate: { message: 'Ship 5.1?', recipients: [`slack:${MEMBER}`] },
    });
    expect(res.status).toBe(201);
    const [opened] = await svc.rx.waitFor('/slack-api/conversations.open');
    expect(opened!.json).toEqual({ users: MEMBER });
    const [posted] = await svc.rx.waitFor('/slack-api/chat.postMessage');
    expect(posted!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(posted!.json.channel).toBe(`D${MEMBER}`);
    const actions = posted!.json.blocks.find((b: { type: string }) => b.type === 'actions');
    const [confirm, decline] = actions.elements;
    expect(confirm).toMatchObject({ action_id: 'sched_confirm', style: 'primary' });
    expect(decline).toMatchObject({ action_id: 'sched_decline', style: 'danger' });
    expect(confirm.url).toBeUndefined();
    const reference = confirm.value as string;
    // The button's reference is no page link: it opens nothing.
    expect((await fetch(`${svc.server.url}/r/${reference}`)).status).toBe(404);
    const id = res.body.data.id as string;
    await svc.until(id, 'awaiting_response');

    const payload = {
      type: 'block_actions',
      user: { id: MEMBER, username: 'ada' },
      channel: { id: `D${MEMBER}` },
      container: { type: 'message', channel_id: `D${MEMBER}`, message_ts: '1700000001.000100' },
      message: { ts: '1700000001.000100', text: posted!.json.text, blocks: posted!.json.blocks },
      actions: [{ action_id: 'sched_confirm', block_id: 'sched_approval', value: reference, type: 'button' }],
    };
    // Wrongly signed, six minutes old, or unsigned: 401, and nothing changes.
    expect((await interact(slackClick(payload, { secret: 'not-the-secret' }))).status).toBe(401);
    expect((await interact(slackClick(payload, { ageSeconds: 360 }))).status).toBe(401);
    const unsigned = slackClick(payload);
    delete unsigned.headers['x-slack-signature'];
    expect((await interact(unsigned)).status).toBe(401);
    // Another member's click on the DM's buttons changes nothing; they are told so, alone.
    expect((await interact(slackClick({ ...payload, user: { id: OTHER_MEMBER } }))).status).toBe(200);
    const [ephemeral] = await svc.rx.waitFor('/slack-api/chat.postEphemeral');
    expect(ephemeral!.json).toMatchObject({ channel: `D${MEMBER}`, user: OTHER_MEMBER });
    expect((await svc.get(id)).status).toBe('awaiting_response');
    expect(svc.rx.to('/slack-api/chat.update')).toHaveLength(0);

    expect((await interact(slackClick(payload))).status).toBe(200);
    const done = await svc.until(id, 'executed');
    answered[id] = 'in Slack';
    expect(done.recipients[0]).toMatchObject({ status: 'confirmed', email: `slack:${MEMBER}` });
    const [update] = await svc.rx.waitFor('/slack-api/chat.update');
    expect(update!.headers.authorization).toBe(`Bearer ${BOT_TOKEN}`);
    expect(update!.json).toMatchObject({ channel: `D${MEMBER}`, ts: '1700000001.000100' });
    expect(update!.json.blocks.some((b: { type: string }) => b.type === 'actions')).toBe(false);
    const outcome = update!.json.blocks.at(-1).text.text as string;
    expect(outcome).toContain(`Approved by <@${MEMBER}>`);
    expect(outcome).toContain('Ada Lovelace');
    expect(outcome).toMatch(/<!date\^\d+\^/);
    expect(svc.rx.to('/slack-api/users.info')[0]!.json).toEqual({ user: MEMBER });

    const confirmed = (await eventsOf(id)).find((e) => e.event_type === 'confirmed');
    expect(confirmed).toMatchObject({ channel: 'slack', actor_email: `slack:${MEMBER}` });
    const audit = await auditOf(id);
    expect(audit.find((e) => e.action === 'approval.confirm')).toMatchObject({
      channel: 'slack',
      details: { slack_member: MEMBER, decision: 'confirm' },
    });
    expect(audit.find((e) => e.action === 'approval.answer_refused')).toMatchObject({
      channel: 'slack',
      details: { slack_member: OTHER_MEMBER },
    });

    // A click after the decision: "already decided", to the member alone; nothing changes.
    expect((await interact(slackClick(payload))).status).toBe(200);
    const later = await svc.rx.waitFor('/slack-api/chat.postEphemeral', 2);
    expect(later[1]!.json.text).toMatch(/already decided/);
    expect(svc.rx.to('/slack-api/chat.update')).toHaveLength(1);
  });

  it('Slack app mode: a channel message answered only by the gate`s slack_responders', async () => {
    const ch = await call('POST', '/v1/channels', {
      name: 'deploys',
      type: 'slack',
      slack_channel_id: 'C0DEPLOYS1',
    });
    expect(ch.status).toBe(201);
    expect(ch.body.data).toMatchObject({ webhook_url: null, slack_channel_id: 'C0DEPLOYS1', warnings: [] });
    const bad = await call('POST', '/v1/channels', {
      name: 'x',
      type: 'slack',
      slack_channel_id: 'C0DEPLOYS1',
      webhook_url: `${svc.rx.url}/slack`,
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['webhook_url']);
    const refused = await call('POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1h' },
      gate: { message: 'm', recipients: [`channel:${ch.body.data.id}`], slack_responders: ['someone'] },
    });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(['gate.slack_responders.0']);

    const before = svc.rx.to('/slack-api/chat.postMessage').length;
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Rotate keys?',
        recipients: [`channel:${ch.body.data.id}`],
        slack_responders: [MEMBER],
      },
    });
    expect(res.body.data.gate.slack_responders).toEqual([MEMBER]);
    const posted = (await svc.rx.waitFor('/slack-api/chat.postMessage', before + 1))[before]!;
    expect(posted.json.channel).toBe('C0DEPLOYS1');
    // A channel's message carries no page link: anyone in the channel could open it.
    expect(JSON.stringify(posted.json)).not.toMatch(/\/r\//);
    const decline = posted.json.blocks.find((b: { type: string }) => b.type === 'actions').elements[1];
    const id = res.body.data.id as string;
    await svc.until(id, 'awaiting_response');
    const payload = (member: string) => ({
      type: 'block_actions',
      user: { id: member },
      container: { type: 'message', channel_id: 'C0DEPLOYS1', message_ts: '42.1' },
      message: { ts: '42.1', text: posted.json.text, blocks: posted.json.blocks },
      actions: [{ action_id: 'sched_decline', value: decline.value }],
    });
    expect((await interact(slackClick(payload(OTHER_MEMBER)))).status).toBe(200);
    await eventually(async () =>
      svc.rx
        .to('/slack-api/chat.postEphemeral')
        .some((r) => r.json.user === OTHER_MEMBER && r.json.channel === 'C0DEPLOYS1'),
    );
    expect((await svc.get(id)).status).toBe('awaiting_response');
    expect((await interact(slackClick(payload(MEMBER)))).status).toBe(200);
    await svc.until(id, 'failed');
    const declined = (await eventsOf(id)).find((e) => e.event_type === 'declined');
    expect(declined).toMatchObject({ channel: 'slack' });
    const update = await eventually(async () =>
      svc.rx.to('/slack-api/chat.update').find((r) => r.json.ts === '42.1'),
    );
    expect(update.json.blocks.at(-1).text.text).toContain(`Declined by <@${MEMBER}>`);
  });

  it('Teams on Workflows: the adaptive card with two working links; a connector URL warns', async () => {
    const workflows = await call('POST', '/v1/channels', {
      name: 'eng',
      type: 'teams',
      webhook_url: `${svc.rx.url}/workflows/abc/triggers/manual/paths/invoke?api-version=2016-06-01&sig=xyz`,
    });
    expect(workflows.status).toBe(201);
    expect(workflows.body.data.warnings).toEqual([]);
    svc.rx.on('/workflows/abc/triggers/manual/paths/invoke', { status: 202 });
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: {
        message: 'Teams ok?',
        recipients: [`channel:${workflows.body.data.id}`],
        buttons: ['Yes', 'No'],
      },
    });
    const [card] = await svc.rx.waitFor('/workflows/abc/triggers/manual/paths/invoke');
    expect(card!.json.type).toBe('message');
    expect(card!.json.attachments).toHaveLength(1);
    expect(card!.json.attachments[0].contentType).toBe('application/vnd.microsoft.card.adaptive');
    const actions = card!.json.attachments[0].content.actions as {
      type: string;
      title: string;
      url: string;
    }[];
    expect(actions.map((a) => [a.type, a.title])).toEqual([
      ['Action.OpenUrl', 'Yes'],
      ['Action.OpenUrl', 'No'],
    ]);
    for (const a of actions) {
      const page = await fetch(a.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Teams ok?');
    }
    const confirmed = await fetch(actions[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    expect(confirmed.status).toBe(200);
    await svc.until(res.body.data.id, 'executed');
    answered[res.body.data.id] = 'on the page';
    expect((await eventsOf(res.body.data.id)).find((e) => e.event_type === 'confirmed')?.channel).toBe(
      'page',
    );

    const connector = await call('POST', '/v1/channels', {
      name: 'legacy',
      type: 'teams',
      webhook_url: 'https://contoso.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d',
    });
    expect(connector.status).toBe(201);
    expect(connector.body.data.warnings[0]).toMatch(/retired/);
    expect((await call('GET', `/v1/channels/${connector.body.data.id}`)).body.data.warnings).toHaveLength(1);
  });

  it('approve by replying: a reply from the recipient confirms; another sender or a dead token does nothing but is recorded', async () => {
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Invoice 77',
      schedule: { wait: '1s' },
      gate: {
        message: 'Pay invoice 77?',
        recipients: ['ada@example.com', 'grace@example.com'],
        confirmation_mode: 'all_required',
      },
    });
    const id = res.body.data.id as string;
    const [mail] = await svc.smtp.waitFor('ada@example.com');
    expect(mail!.text).toContain('reply to this email');
    const replyTo = await replyAddressOf('ada@example.com', 'Invoice 77');
    expect(replyTo).toMatch(new RegExp(`^reply\\+[0-9a-f]{48}@${REPLY_DOMAIN.replace(/\./g, '\\.')}$`));
    const graceReplyTo = await replyAddressOf('grace@example.com', 'Invoice 77');
    expect(graceReplyTo).not.toBe(replyTo);
    await svc.until(id, 'awaiting_response');

    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    const send = (from: string, to: string, text: string) =>
      transport.sendMail({ from, to, subject: 'Re: Approval needed: Invoice 77', text });
    const reply = 'Approve - looks fine\n\nOn Sat, sched wrote:\n> Pay invoice 77?\n';

    // From another address: recorded, answered with why, nothing changes.
    await send('mallory@example.com', replyTo, reply);
    const [notice] = await svc.smtp.waitFor('mallory@example.com');
    expect(notice!.subject).toMatch(/^Not applied/);
    expect(notice!.text).toContain('did not come from the address');
    // To a token that does not exist: the same.
    await send('ada@example.com', `reply+${'0'.repeat(48)}@${REPLY_DOMAIN}`, reply);
    const [deadNotice] = await svc.smtp.waitFor('ada@example.com', 2);
    expect(deadNotice).toBeTruthy();
    const notices = await svc.smtp.waitFor('ada@example.com', 2);
    expect(notices.some((m) => m.text.includes('unknown or expired reply address'))).toBe(true);
    expect((await svc.get(id)).recipients.map((r: { status: string }) => r.status)).toEqual([
      'pending',
      'pending',
    ]);
    const recorded = await db.query(
      `select sender, action_id, reason from inbound_replies where channel = 'email_reply' order by created_at`,
    );
    expect(recorded.rows).toEqual([
      { sender: 'mallory@example.com', action_id: id, reason: expect.stringContaining('did not come from') },
      { sender: 'ada@example.com', action_id: null, reason: expect.stringContaining('unknown or expired') },
    ]);
    expect((await auditOf(id)).find((e) => e.action === 'approval.answer_refused')).toMatchObject({
      channel: 'email_reply',
      details: { reason: expect.stringContaining('did not come from') },
    });
    // The log is append-only: a sender's address stays out of it.
    expect(JSON.stringify(await auditOf(id))).not.toContain('mallory@example.com');
    // An address of another domain is refused at RCPT TO: sched is no relay.
    await expect(send('ada@example.com', 'someone@elsewhere.example', reply)).rejects.toThrow(/550/);

    // From the recipient's address, with a real SMTP client: confirms with the comment.
    await send('Ada <ada@example.com>', replyTo, reply);
    await eventually(async () => (await svc.get(id)).recipients[0].status === 'confirmed');
    const a = await svc.get(id);
    expect(a.recipients[0]).toMatchObject({ status: 'confirmed', response_comment: 'looks fine' });
    answered[id] = 'by email reply';
    const event = (await eventsOf(id)).find((e) => e.event_type === 'confirmed');
    expect(event).toMatchObject({
      channel: 'email_reply',
      actor_email: 'ada@example.com',
      notes: 'looks fine',
    });
    expect((await auditOf(id)).find((e) => e.action === 'approval.confirm')).toMatchObject({
      channel: 'email_reply',
      details: { comment: 'looks fine' },
    });

    // The provider hook takes the same mail as raw MIME, behind its shared secret.
    const mime = [
      'From: grace@example.com',
      `To: ${graceReplyTo}`,
      'Subject: Re: Approval needed: Invoice 77',
      'Message-ID: <hook-1@example.com>',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'no - wrong amount',
      '',
    ].join('\r\n');
    const hook = (auth: string) =>
      fetch(`${svc.server.url}/integrations/email/inbound`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'message/rfc822' },
        body: mime,
      });
    expect((await hook('Bearer wrong-secret-0123456789')).status).toBe(401);
    expect((await svc.get(id)).recipients[1].status).toBe('pending');
    const accepted = await hook(`Bearer ${INBOUND_SECRET}`);
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toEqual({ applied: true });
    await svc.until(id, 'failed');
    expect((await svc.get(id)).recipients[1]).toMatchObject({
      status: 'declined',
      response_comment: 'wrong amount',
    });
    transport.close();
  });

  it('push with buttons: the service worker answers Confirm through the JSON answer without opening the page', async () => {
    svc.rx.on('/push', { status: 201 });
    const member = await call('POST', '/v1/team-members', {
      name: 'Pat',
      push_subscriptions: [
        {
          endpoint: `${svc.rx.url}/push`,
          keys: {
            p256dh: browserKey.getPublicKey().toString('base64url'),
            auth: authSecret.toString('base64url'),
          },
        },
      ],
    });
    const res = await call('POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Push ok?', recipients: [member.body.data.id], buttons: ['Go', 'Stop'] },
    });
    const id = res.body.data.id as string;
    const [p] = await svc.rx.waitFor('/push');
    const payload = JSON.parse(
      ece
        .decrypt(p!.raw, {
          version: 'aes128gcm',
          privateKey: browserKey,
          authSecret: authSecret.toString('base64url'),
        })
        .toString('utf8'),
    );
    expect(payload.actions).toEqual([
      { action: 'confirm', title: 'Go' },
      { action: 'decline', title: 'Stop' },
    ]);
    expect(payload.answerUrl).toBe(payload.url);
    await svc.until(id, 'awaiting_response');

    // The documented service worker, run against a stand-in of the browser's worker scope.
    const shown: { title: string; options: any }[] = [];
    const opened: string[] = [];
    const listeners = new Map<string, (event: any) => void>();
    const scope = {
      addEventListener: (type: string, fn: (event: any) => void) => listeners.set(type, fn),
      registration: {
        showNotification: async (title: string, options: any) => {
          shown.push({ title, options });
        },
      },
      clients: { openWindow: async (url: string) => opened.push(url) },
    };
    const code = readFileSync(join(repoRoot, 'docs', 'push-service-worker.js'), 'utf8');
    new Function('self', 'fetch', code)(scope, fetch);
    const waits: Promise<unknown>[] = [];
    listeners.get('push')!({
      data: { json: () => payload },
      waitUntil: (w: Promise<unknown>) => waits.push(w),
    });
    await Promise.all(waits);
    expect(shown[0]!.options.actions).toEqual(payload.actions);
    let closed = false;
    listeners.get('notificationclick')!({
      action: 'confirm',
      notification: { data: shown[0]!.options.data, close: () => (closed = true) },
      waitUntil: (w: Promise<unknown>) => waits.push(w),
    });
    await Promise.all(waits);
    expect(closed).toBe(true);
    expect(opened).toEqual([]);
    expect(shown.at(-1)!.title).toMatch(/^Approved/);
    await svc.until(id, 'executed');
    answered[id] = 'from a push notification';
    expect((await eventsOf(id)).find((e) => e.event_type === 'confirmed')).toMatchObject({ channel: 'push' });
    expect((await auditOf(id)).find((e) => e.action === 'approval.confirm')?.channel).toBe('push');

    // Once decided, a button opens the page (which says so) instead of answering.
    listeners.get('notificationclick')!({
      action: 'decline',
      notification: { data: shown[0]!.options.data, close: () => {} },
      waitUntil: (w: Promise<unknown>) => waits.push(w),
    });
    await Promise.all(waits);
    expect(opened).toEqual([payload.url]);
  });

  it('the console names where each answer came from', async (ctx) => {
    const browser = await launchBrowser();
    if (!browser) return ctx.skip();
    const pages = consolePages(browser);
    try {
      const page = await pages.open();
      await pages.signIn(page, svc.server.url, svc.key);
      for (const [id, label] of Object.entries(answered)) {
        await page.goto(`${svc.server.url}/console/actions/${id}`);
        await page.getByRole('list', { name: 'Reminder events' }).getByText(label).first().waitFor();
      }
      expect(pages.csp.flat()).toEqual([]);
    } finally {
      await pages.close();
      await browser.close();
    }
  });

  /** The Reply-To address of the mail to `to` whose subject names `title`, read from the raw message. */
  async function replyAddressOf(to: string, title: string): Promise<string> {
    const mail = await eventually(async () =>
      svc.smtp.mails.find((m) => m.to.includes(to) && m.subject.includes(title)),
    );
    if (!mail.replyTo) throw new Error(`no Reply-To in the mail to ${to}`);
    return mail.replyTo;
  }
});
