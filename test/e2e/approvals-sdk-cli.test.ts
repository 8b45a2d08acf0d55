import { createClient, respond, SchedApiError, type SchedClient } from '@sched/sdk';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { statusOf } from '../support/wait.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { runCli, startServer, type TestServer } from '../support/server.js';

const parse = (stdout: string) => JSON.parse(stdout) as { data: any };

/** Each run of the binary that loads the server package costs about a second of CPU: room for a loaded machine. */
const CLI_TIMEOUT = { timeout: 60_000 };

// The server has SMTP (a real loopback SMTP server) but no Twilio: SMS messages land in the outbox, which
// `sched outbox list` reads. SCHED_TIME_SCALE=3600 makes the 1d gate timeout last 24 s.
describe('approvals through the SDK and the sched binary', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let server: TestServer;
  let sched: SchedClient;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    db = await createTestDatabase('approvals_sdk_cli');
    smtp = await startSmtpServer();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
        SCHED_TIME_SCALE: '3600',
      },
    });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    env = { ...server.env, SCHED_API_URL: server.url, SCHED_API_KEY: server.apiKey };
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await db?.drop();
  });

  it('SDK: approvals.create to two addresses; respond() through one link completes a first_response gate', async () => {
    const created = await sched.approvals.create({
      to: ['ada@example.com', 'bob@example.com'],
      message: 'Ship v2 to production?',
      schedule: { wait: '1s' },
      name: 'sdk approval',
      buttons: ['Ship it', 'Hold'],
    });
    expect(created.skipped).toBe(false);
    const id = created.action.id;
    expect(created.action).toMatchObject({ mode: 'approval', status: 'scheduled', name: 'sdk approval' });
    expect(created.action.gate).toMatchObject({
      confirmation_mode: 'first_response',
      buttons: ['Ship it', 'Hold'],
    });

    const [[ada], [bob]] = await Promise.all([
      smtp.waitFor('ada@example.com'),
      smtp.waitFor('bob@example.com'),
    ]);
    expect(ada!.subject).toContain('sdk approval');
    await statusOf(sched, id, 'awaiting_response');

    // Refusals are typed errors: a bad value names its field, an unknown link is a 404.
    const bad = await respond(linkIn(ada!.text), { decision: 'snooze', snoozeFor: 'soon' }).catch((e) => e);
    expect(bad).toBeInstanceOf(SchedApiError);
    expect(bad).toMatchObject({ status: 422, errors: { snooze_for: [expect.any(String)] } });
    const unknown = await respond(`${server.url}/r/not-a-token`, { decision: 'confirm' }).catch((e) => e);
    expect(unknown).toMatchObject({ name: 'SchedApiError', status: 404 });

    const result = await respond(linkIn(ada!.text), { decision: 'confirm', comment: 'LGTM' });
    expect(result).toMatchObject({
      action_id: id,
      decision: 'confirm',
      recipient_status: 'confirmed',
      action_status: 'executed',
      snoozed_until: null,
    });

    const done = await statusOf(sched, id, 'executed');
    const byEmail = Object.fromEntries(done.recipients.map((r) => [r.email, r]));
    expect(byEmail['ada@example.com']).toMatchObject({ status: 'confirmed', response_comment: 'LGTM' });
    expect(byEmail['ada@example.com']!.responded_at).not.toBeNull();
    expect(byEmail['bob@example.com']).toMatchObject({ status: 'pending', responded_at: null });
    // One `sent` per recipient, then the answer.
    expect(done.reminder_events.map((e) => e.event_type)).toEqual(['sent', 'sent', 'confirmed']);
    expect(done.reminder_events[2]).toMatchObject({ actor_email: 'ada@example.com', notes: 'LGTM' });

    // The action is finished: the other recipient's link is spent, through the client method too.
    const late = await sched.respond(linkIn(bob!.text), { decision: 'decline' }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(SchedApiError);
    expect((late as SchedApiError).status).toBe(410);
  });

  it(
    'CLI: approvals create by email and SMS; the SMS waits in `outbox list`; `actions get` shows recipients and timeline',
    CLI_TIMEOUT,
    async () => {
      const created = await runCli(
        [
          'approvals',
          'create',
          '--to',
          'cli@example.com',
          '--to',
          '+15551234567',
          '--message',
          'Deploy from the CLI?',
          '--in',
          '1s',
          '--timeout',
          '1d',
          '--json',
        ],
        env,
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const action = parse(created.stdout).data;
      expect(action).toMatchObject({ mode: 'approval', status: 'scheduled' });
      expect(action.gate).toMatchObject({ timeout: '1d', channels: ['email', 'sms'] });
      expect(
        action.recipients.map((r: { email: string; channels: string[] }) => [r.email, r.channels]),
      ).toEqual([
        ['cli@example.com', ['email']],
        ['+15551234567', ['sms']],
      ]);

      await smtp.waitFor('cli@example.com');
      await statusOf(sched, action.id, 'awaiting_response');

      const listed = await runCli(['outbox', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      const sms = parse(listed.stdout).data.find((m: { action_id: string }) => m.action_id === action.id);
      expect(sms).toMatchObject({ channel: 'sms', destination: '+15551234567' });
      expect(sms.response_link).toMatch(/\/r\/[A-Za-z0-9_-]+$/);
      expect(sms.rendered).toContain('Deploy from the CLI?');
      expect(sms.rendered).toContain(sms.response_link);

      // The operator passes the SMS on by hand; the phone's owner declines through its link.
      const answer = await respond(sms.response_link, { decision: 'decline', comment: 'not on a Friday' });
      expect(answer).toMatchObject({ recipient_status: 'declined', action_status: 'failed' });

      const [shown, table] = await Promise.all([
        runCli(['actions', 'get', action.id], env),
        runCli(['outbox', 'list', '--action', action.id, '--limit', '5'], env),
      ]);
      expect(shown.code).toBe(0);
      const [, recipients, timeline] = shown.stdout.split(/\n(?:recipients|timeline):\n/);
      expect(shown.stdout).toMatch(/^status\s+failed$/m);
      expect(shown.stdout).toMatch(/^timeout\s+1d \(then cancel\)$/m);
      // Each recipient's id first: what `sched approvals reassign` takes.
      expect(recipients).toMatch(
        /^\s+ID\s+EMAIL\s+DISPLAY_NAME\s+ROLE\s+CHANNELS\s+STATUS\s+RESPONDED_AT\s+COMMENT$/m,
      );
      const ids = action.recipients.map((r: { id: string }) => r.id);
      expect(recipients).toMatch(
        new RegExp(
          `^\\s+${ids[0]}\\s+cli@example\\.com\\s+cli\\s+recipient\\s+email\\s+pending\\s+-\\s+-$`,
          'm',
        ),
      );
      expect(recipients).toMatch(
        /^\s+[0-9a-f-]{36}\s+\+15551234567\s+.*\s+sms\s+declined\s+\d{4}-\S+Z\s+not on a Friday$/m,
      );
      expect(timeline).toMatch(/^\s+TIME\s+EVENT\s+ACTOR\s+VIA\s+NOTES$/m);
      expect(timeline).toMatch(/^\s+\S+Z\s+sent\s+system\s+-\s+request to cli@example\.com via email$/m);
      expect(timeline).toMatch(/^\s+\S+Z\s+sent\s+system\s+-\s+request to \+15551234567 via sms$/m);
      expect(timeline).toMatch(/^\s+\S+Z\s+declined\s+\+15551234567\s+page\s+not on a Friday$/m);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^CREATED_AT\s+CHANNEL\s+DESTINATION\s+ACTION_ID\s+RESPONSE_LINK$/m);
      expect(table.stdout).toContain(`sms      +15551234567  ${action.id}  ${sms.response_link}`);
    },
  );

  it('CLI: channels and team members round trip', CLI_TIMEOUT, async () => {
    const webhook = 'https://hooks.slack.com/services/T000/B000/secret-part';
    const [channel, member] = await Promise.all([
      runCli(
        ['channels', 'create', '--name', 'ops', '--type', 'slack', '--webhook-url', webhook, '--json'],
        env,
      ),
      runCli(
        [
          'team-members',
          'create',
          '--name',
          'Ada',
          '--email',
          'ada@example.com',
          '--phone',
          '+15551234567',
          '--json',
        ],
        env,
      ),
    ]);
    expect(channel.code).toBe(0);
    expect(member.code).toBe(0);
    const ch = parse(channel.stdout).data;
    const tm = parse(member.stdout).data;
    expect(ch).toMatchObject({ name: 'ops', type: 'slack', webhook_url: webhook });
    expect(tm).toMatchObject({ name: 'Ada', email: 'ada@example.com', phone: '+15551234567' });

    const [channels, members, renamed] = await Promise.all([
      runCli(['channels', 'list'], env),
      runCli(['team-members', 'list', '--json'], env),
      runCli(['team-members', 'update', tm.id, '--phone', '', '--name', 'Ada L.', '--json'], env),
    ]);
    // The table shows where a webhook goes, never its secret path.
    expect(channels.stdout).toMatch(
      new RegExp(`^${ch.id}\\s+ops\\s+slack\\s+https://hooks\\.slack\\.com/…`, 'm'),
    );
    expect(channels.stdout).not.toContain('secret-part');
    expect(parse(members.stdout).data.map((m: { id: string }) => m.id)).toContain(tm.id);
    expect(parse(renamed.stdout).data).toMatchObject({
      name: 'Ada L.',
      phone: null,
      email: 'ada@example.com',
    });

    // Slack app mode names a channel id instead of a webhook; a retired Teams connector URL is flagged.
    const app = await runCli(
      [
        'channels',
        'create',
        '--name',
        'deploys',
        '--type',
        'slack',
        '--slack-channel-id',
        'C0DEPLOY12',
        '--json',
      ],
      env,
    );
    expect(parse(app.stdout).data).toMatchObject({
      webhook_url: null,
      slack_channel_id: 'C0DEPLOY12',
      warnings: [],
    });
    const legacy = await runCli(
      [
        'channels',
        'create',
        '--name',
        'legacy',
        '--type',
        'teams',
        '--webhook-url',
        'https://contoso.webhook.office.com/webhookb2/a/IncomingWebhook/b/c',
        '--json',
      ],
      env,
    );
    const legacyId = parse(legacy.stdout).data.id as string;
    expect(parse(legacy.stdout).data.warnings[0]).toMatch(/retired/);
    const listed = await runCli(['channels', 'list'], env);
    expect(listed.stdout).toMatch(
      new RegExp(`^${legacyId}\\s+legacy\\s+teams\\s+\\S+\\s+\\S+\\s+connector retired$`, 'm'),
    );
    expect(listed.stdout).toMatch(/^\S+\s+deploys\s+slack\s+slack app C0DEPLOY12/m);
    for (const extra of [parse(app.stdout).data.id, legacyId])
      expect((await runCli(['channels', 'delete', extra], env)).code).toBe(0);

    const [dropChannel, dropMember] = await Promise.all([
      runCli(['channels', 'delete', ch.id], env),
      runCli(['team-members', 'delete', tm.id], env),
    ]);
    expect(dropChannel).toMatchObject({ code: 0, stdout: `deleted ${ch.id}\n` });
    expect(dropMember).toMatchObject({ code: 0, stdout: `deleted ${tm.id}\n` });
    expect(await sched.channels.list()).toEqual([]);
    const gone = await runCli(['team-members', 'get', tm.id], env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('(HTTP 404)');
  });

  it('CLI: every flag reaches the API and the summary is readable', CLI_TIMEOUT, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sched-attach-'));
    const file = join(dir, 'plan.pdf');
    writeFileSync(file, Buffer.from('%PDF-1.4 a tiny plan'));
    const created = await runCli(
      [
        'approvals',
        'create',
        '--to',
        'ops@example.com',
        '--to',
        'dev@example.com',
        '--message',
        'Release on Monday?',
        '--preset',
        '1w',
        '--mode',
        'all_required',
        '--on-timeout',
        'expire',
        '--max-snoozes',
        '0',
        '--buttons',
        'Release,Hold',
        '--channel',
        'email',
        '--escalate-to',
        'boss@example.com',
        '--escalate-after',
        '2',
        '--attach',
        file,
        '--then-url',
        'https://ci.example.com/release',
        '--then-body',
        '{"ref":"v2"}',
        '--name',
        'release v2',
      ],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const id = /^scheduled approval (\S+)$/m.exec(created.stdout)?.[1];
    expect(created.stdout).toMatch(/^ {2}scheduled_for\s+\S+ \(in 7d\)$/m);
    expect(created.stdout).toMatch(/^ {2}timeout\s+7d \(then expire\)$/m);
    expect(created.stdout).toMatch(/^ {2}escalation\s+boss@example\.com after 2h$/m);
    expect(created.stdout).toMatch(/^ {2}then\s+POST https:\/\/ci\.example\.com\/release$/m);
    expect(created.stdout).toContain(
      '  recipients:\n    ops@example.com (email)\n    dev@example.com (email)',
    );

    const action = await sched.actions.get(id!);
    expect(action).toMatchObject({ name: 'release v2', status: 'scheduled' });
    expect(action.gate).toMatchObject({
      confirmation_mode: 'all_required',
      on_timeout: 'expire',
      max_snoozes: 0,
      buttons: ['Release', 'Hold'],
      channels: ['email'],
      escalation: { contacts: ['boss@example.com'], after_hours: 2 },
      attachments: [{ name: 'plan.pdf', content_type: 'application/pdf', size: 20 }],
    });
    expect(action.request).toMatchObject({ url: 'https://ci.example.com/release', body: { ref: 'v2' } });
    await sched.actions.cancel(id!);
  });

  it('CLI: usage errors exit 2 before anything is sent', CLI_TIMEOUT, async () => {
    const create = ['approvals', 'create', '--message', 'm'];
    const cases: [string[], RegExp][] = [
      [[...create, '--in', '1h'], /required option '--to <recipient>' not specified/],
      [[...create, '--to', 'a@example.com'], /say when to ask: --in/],
      [[...create, '--to', 'a@example.com', '--in', '1h', '--buttons', 'Yes'], /--buttons takes two labels/],
      [[...create, '--to', 'a@example.com', '--in', '1h', '--on-timeout', 'never'], /Allowed choices are/],
      [[...create, '--to', 'a@example.com', '--in', '1h', '--channel', 'fax'], /--channel must be one of/],
      [[...create, '--to', 'a@example.com', '--in', '1h', '--attach', '/nonexistent/x.pdf'], /cannot read/],
      [['channels', 'create', '--name', 'x', '--type', 'email', '--webhook-url', 'https://x'], /Allowed/],
      [['team-members', 'create', '--name', 'Nobody'], /give --email or --phone/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, env)));
    results.forEach((result, i) => {
      expect({ args: cases[i]![0], code: result.code }).toEqual({ args: cases[i]![0], code: 2 });
      expect(result.stderr).toMatch(cases[i]![1]);
    });
    // Options a contract schema checks are refused as the API would refuse them: validation_failed, exit 1.
    const limit = await runCli(['outbox', 'list', '--limit', '0'], env);
    expect(limit.code).toBe(1);
    expect(limit.stderr).toMatch(/^error \[validation_failed\]: limit: /);
    // Only the approvals of the tests above exist.
    expect((await sched.actions.list({ mode: 'approval' })).meta.total).toBe(3);
  });
});
