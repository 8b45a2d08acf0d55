import { type Action, buildApprovalBody } from '@sched/sdk';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../runtime.js';
import { describeAction } from '../actions/show.js';
import { deliveredAction } from '../fixtures.test-support.js';
import { approvalSummary, buildApprovalInput, type CreateApprovalOptions, contentTypeOf } from './show.js';
import { maskWebhookUrl } from '../channels/show.js';

const base: CreateApprovalOptions = { to: ['ada@example.com'], message: 'Ship v2?', in: '1h' };
const build = (extra: Partial<CreateApprovalOptions>, files: Record<string, Uint8Array> = {}) =>
  buildApprovalInput({ ...base, ...extra }, (path) => {
    const bytes = files[path];
    if (!bytes) throw new Error('ENOENT: no such file');
    return bytes;
  });
const usage = (extra: Partial<CreateApprovalOptions>) => {
  try {
    build(extra);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected a UsageError');
};

describe('buildApprovalInput', () => {
  it('turns the example of the issue into the API body', () => {
    const input = build({ to: ['a@x.com', '+15551234567'], message: 'Deploy?', timeout: '1d' });
    expect(buildApprovalBody(input)).toEqual({
      mode: 'approval',
      schedule: { wait: '1h' },
      gate: { message: 'Deploy?', recipients: ['a@x.com', '+15551234567'], timeout: '1d' },
    });
  });

  it('maps every flag', () => {
    const input = build(
      {
        in: undefined,
        at: '2030-01-31T09:00:00Z',
        timezone: 'Europe/Berlin',
        onTimeout: 'approve',
        mode: 'all_required',
        maxSnoozes: '0',
        buttons: ' Ship it , Hold ',
        channel: ['email', 'sms', 'email'],
        escalateTo: ['boss@example.com', '+15550001111'],
        escalateAfter: '1.5',
        attach: ['docs/Plan.PDF', 'blob'],
        thenUrl: 'https://ci.example.com/deploy',
        thenMethod: 'put',
        thenBody: '{"ref":"v2"}',
        secret: 'a-secret-of-16-chars',
        callbackUrl: 'https://example.com/cb',
        name: 'Deploy',
        description: 'v2',
        idempotencyKey: 'deploy-v2',
      },
      { 'docs/Plan.PDF': new Uint8Array([37, 80, 68, 70]), blob: new Uint8Array([0, 255]) },
    );
    expect(buildApprovalBody(input)).toEqual({
      mode: 'approval',
      scheduled_for: '2030-01-31T09:00:00Z',
      timezone: 'Europe/Berlin',
      gate: {
        message: 'Ship v2?',
        recipients: ['ada@example.com'],
        on_timeout: 'approve',
        confirmation_mode: 'all_required',
        max_snoozes: 0,
        buttons: ['Ship it', 'Hold'],
        channels: ['email', 'sms'],
        escalation: { contacts: ['boss@example.com', '+15550001111'], after_hours: 1.5 },
        attachments: [
          { name: 'Plan.PDF', content_type: 'application/pdf', content: 'JVBERg==' },
          { name: 'blob', content_type: 'application/octet-stream', content: 'AP8=' },
        ],
      },
      request: { url: 'https://ci.example.com/deploy', method: 'PUT', body: { ref: 'v2' } },
      webhook_secret: 'a-secret-of-16-chars',
      callback_url: 'https://example.com/cb',
      name: 'Deploy',
      description: 'v2',
      idempotency_key: 'deploy-v2',
    });
  });

  it('reaches every gate field: quorum, required recipients, requester, reminders, comment policy', () => {
    const input = build({
      to: ['q1@example.com', 'q2@example.com', 'q3@example.com'],
      minApprovals: '2',
      require: ['q1@example.com'],
      excludeRequester: 'me@example.com',
      remindEvery: '1h',
      remindMax: '2',
      remindChannel: ['email', 'email'],
      comment: 'required_on_decline',
    });
    expect(buildApprovalBody(input).gate).toMatchObject({
      confirmation_mode: 'quorum',
      min_approvals: 2,
      required_recipients: ['q1@example.com'],
      exclude_requester: 'me@example.com',
      reminders: { every: '1h', max: 2, channels: ['email'] },
      comment: 'required_on_decline',
    });
    expect(usage({ minApprovals: '1' })).toMatch(/^--min-approvals must be a whole number, at least 2/);
    expect(usage({ mode: 'all_required', minApprovals: '2' })).toBe(
      '--min-approvals and --require need --mode quorum',
    );
    expect(usage({ require: ['a@example.com'] })).toBe('--min-approvals and --require need --mode quorum');
    expect(usage({ remindMax: '2' })).toBe('--remind-max and --remind-channel need --remind-every');
    expect(usage({ remindEvery: '1h', remindMax: '11' })).toMatch(
      /^--remind-max must be a whole number from 1 to 10/,
    );
    expect(usage({ remindEvery: '1h', remindChannel: ['fax'] })).toMatch(/^--remind-channel must be one of/);
    expect(usage({ comment: 'sometimes' })).toMatch(/^--comment must be one of optional/);
  });

  it('takes a preset', () => {
    expect(build({ in: undefined, preset: 'tomorrow' }).schedule).toEqual({ preset: 'tomorrow' });
  });

  it('refuses flags that cannot make a valid approval, naming the flag', () => {
    expect(usage({ in: undefined })).toMatch(/say when to ask: --in/);
    expect(usage({ at: '2030-01-01T00:00:00Z' })).toBe('give only one of --in, --at');
    expect(usage({ in: '1 hour' })).toMatch(/^--in must be a whole number/);
    expect(usage({ in: undefined, at: 'tomorrow' })).toMatch(/^--at must be an ISO 8601 time/);
    expect(usage({ in: undefined, preset: 'soon' })).toMatch(/^--preset must be one of tomorrow/);
    expect(usage({ message: '  ' })).toBe('--message must not be empty');
    expect(usage({ to: [] })).toBe('give at least one --to');
    expect(usage({ timeout: '7 days' })).toMatch(/^--timeout must be a whole number/);
    expect(usage({ onTimeout: 'ignore' })).toBe(
      "--on-timeout must be one of cancel, expire, approve; got 'ignore'",
    );
    expect(usage({ mode: 'any' })).toMatch(/^--mode must be one of first_response, all_required/);
    expect(usage({ maxSnoozes: '11' })).toMatch(/^--max-snoozes must be a whole number from 0 to 10/);
    expect(usage({ maxSnoozes: '-1' })).toMatch(/^--max-snoozes/);
    expect(usage({ buttons: 'Yes' })).toMatch(/^--buttons takes two labels/);
    expect(usage({ buttons: 'Yes,No,Maybe' })).toMatch(/^--buttons takes two labels/);
    expect(usage({ buttons: 'Yes,' })).toMatch(/^--buttons takes two labels/);
    expect(usage({ channel: ['fax'] })).toBe(
      "--channel must be one of email, sms, teams, slack, push; got 'fax'",
    );
    expect(usage({ escalateTo: ['boss@example.com'] })).toMatch(/^--escalate-to needs --escalate-after/);
    expect(usage({ escalateAfter: '2' })).toBe('--escalate-after needs at least one --escalate-to');
    expect(usage({ escalateTo: ['b@example.com'], escalateAfter: '0.25' })).toMatch(/at least 0.5/);
    expect(usage({ escalateTo: ['b@example.com'], escalateAfter: 'two' })).toMatch(/at least 0.5/);
    expect(usage({ attach: ['missing.pdf'] })).toBe(
      '--attach: cannot read missing.pdf: ENOENT: no such file',
    );
    expect(usage({ thenBody: '{}' })).toBe('--then-body and --then-method need --then-url');
    expect(usage({ thenUrl: 'https://x.example', thenBody: '{a:1}' })).toMatch(
      /^--then-body is not valid JSON/,
    );
    expect(usage({ thenUrl: 'https://x.example', thenMethod: 'HEAD' })).toMatch(
      /^--then-method must be one of/,
    );
    expect(usage({ secret: 'a-secret-of-16-chars' })).toMatch(/^--secret signs the post-approval request/);
  });
});

describe('contentTypeOf', () => {
  it('goes by the extension, case-insensitively, with a binary default', () => {
    expect(contentTypeOf('a/b/report.PDF')).toBe('application/pdf');
    expect(contentTypeOf('photo.jpeg')).toBe('image/jpeg');
    expect(contentTypeOf('notes.txt')).toBe('text/plain');
    expect(contentTypeOf('Makefile')).toBe('application/octet-stream');
  });
});

const now = new Date('2030-01-01T12:00:00.000Z');
const id = '6f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e11';
const approval: Action = {
  ...deliveredAction,
  name: 'Deploy v2',
  mode: 'approval',
  scheduled_for: '2030-01-01T11:00:00.000Z',
  executed_at: '2030-01-01T11:30:00.000Z',
  dedup_keys: [],
  attempt_count: 0,
  max_attempts: 5,
  request: { url: 'https://ci.example.com/deploy', method: 'POST', headers: {} },
  signed: false,
  gate: {
    message: 'Ship v2\nto production?',
    channels: ['email', 'sms'],
    buttons: ['Approve', 'Reject'],
    confirmation_mode: 'first_response',
    min_approvals: null,
    required_recipients: [],
    exclude_requester: null,
    slack_responders: [],
    comment: 'optional',
    reminders: null,
    reminders_sent: 0,
    max_snoozes: 5,
    snooze_count: 1,
    timeout: '1d',
    on_timeout: 'cancel',
    escalation: { contacts: ['boss@example.com'], after_hours: 2 },
    quiet_hours: null,
    attachments: [{ id, name: 'plan.pdf', content_type: 'application/pdf', size: 1024, url: null }],
    sent_at: '2030-01-01T11:00:01.000Z',
    expires_at: '2030-01-02T11:00:01.000Z',
    escalated_at: null,
    post_approval_action_id: '7f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e12',
    fields: [],
    grant: null,
    granted_by: null,
  },
  delivery_attempts: [],
  delivery_attempts_more: false,
  reminder_events: [
    {
      id,
      event_type: 'sent',
      actor_email: null,
      notes: null,
      channel: null,
      created_at: '2030-01-01T11:00:01.000Z',
    },
    {
      id,
      event_type: 'snoozed',
      actor_email: '+15551234567',
      notes: null,
      channel: 'page',
      created_at: '2030-01-01T11:10:00.000Z',
    },
    {
      id,
      event_type: 'confirmed',
      actor_email: 'ada@example.com',
      notes: 'LGTM,\nship it',
      channel: 'email_reply',
      created_at: '2030-01-01T11:30:00.000Z',
    },
  ],
  recipients: [
    {
      id,
      email: 'ada@example.com',
      status: 'confirmed',
      responded_at: '2030-01-01T11:30:00.000Z',
      response_comment: 'LGTM,\nship it',
      display_name: 'ada',
      role: 'recipient',
      channels: ['email'],
      reassigned_from: null,
      values: null,
    },
    {
      id,
      email: '+15551234567',
      status: 'snoozed',
      responded_at: null,
      response_comment: null,
      display_name: '+15551234567',
      role: 'recipient',
      channels: ['sms'],
      reassigned_from: null,
      values: null,
    },
    {
      id,
      email: 'boss@example.com',
      status: 'pending',
      responded_at: null,
      response_comment: null,
      display_name: 'boss',
      role: 'escalation',
      channels: [],
      reassigned_from: null,
      values: null,
    },
  ],
  last_error: null,
  last_attempt: null,
  replay_of: null,
  replays: [],
  bulk_operations: [],
  created_at: '2030-01-01T10:59:00.000Z',
  updated_at: '2030-01-01T11:30:00.000Z',
};

describe('describeAction for an approval', () => {
  it('shows the gate, a recipients table and the timeline instead of delivery attempts', () => {
    const text = describeAction(approval, now);
    expect(text).not.toContain('delivery attempts');
    expect(text).toContain('message               Ship v2 to production?');
    expect(text).toContain('snoozes               1 of 5');
    expect(text).toContain('timeout               1d (then cancel)');
    expect(text).toContain('escalation            boss@example.com after 2h');
    expect(text).toContain('attachments           plan.pdf (application/pdf, 1024 B)');
    expect(text).toContain('request               POST https://ci.example.com/deploy (after approval)');
    expect(text).toContain('post_approval_action  7f1c2a52-7f3e-4a63-9a43-0d5d2b9c1e12');
    const [, recipients, timeline] = text.split(/\n\n(?:recipients|timeline):\n/);
    expect(recipients!.split('\n')).toEqual([
      '  ID                                    EMAIL             DISPLAY_NAME  ROLE        CHANNELS  STATUS     RESPONDED_AT              COMMENT',
      `  ${id}  ada@example.com   ada           recipient   email     confirmed  2030-01-01T11:30:00.000Z  LGTM, ship it`,
      `  ${id}  +15551234567      +15551234567  recipient   sms       snoozed    -                         -`,
      `  ${id}  boss@example.com  boss          escalation            pending    -                         -`,
    ]);
    expect(timeline!.split('\n')).toEqual([
      '  TIME                      EVENT      ACTOR            VIA          NOTES',
      '  2030-01-01T11:00:01.000Z  sent       system           -            -',
      '  2030-01-01T11:10:00.000Z  snoozed    +15551234567     page         -',
      '  2030-01-01T11:30:00.000Z  confirmed  ada@example.com  email_reply  LGTM, ship it',
    ]);
  });

  it('says so when nobody was asked yet', () => {
    const text = describeAction(
      { ...approval, status: 'scheduled', gate: null, recipients: [], reminder_events: [] },
      now,
    );
    expect(text).toContain('recipients:\n  none');
    expect(text).toContain('timeline:\n  nothing yet');
  });
});

describe('approvalSummary', () => {
  it('shows id, when, how, and the recipients with their channels', () => {
    const text = approvalSummary({ ...approval, status: 'scheduled' }, now);
    expect(text.split('\n')).toEqual([
      `scheduled approval ${id}`,
      '  name           Deploy v2',
      '  status         scheduled',
      '  scheduled_for  2030-01-01T11:00:00.000Z (1h ago)',
      '  confirmation   first_response',
      '  timeout        1d (then cancel)',
      '  buttons        Approve / Reject',
      '  escalation     boss@example.com after 2h',
      '  attachments    plan.pdf',
      '  then           POST https://ci.example.com/deploy',
      '  recipients:',
      '    ada@example.com (email)',
      '    +15551234567 (sms)',
    ]);
  });
});

describe('maskWebhookUrl', () => {
  it('keeps the host, hides the secret path', () => {
    expect(maskWebhookUrl('https://hooks.slack.com/services/T0/B0/secret')).toBe('https://hooks.slack.com/…');
    expect(maskWebhookUrl('nope')).toBe('(invalid URL)');
  });
});
