import { contract } from '@sched/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';
import { api } from '../support/server.js';
import { eventually } from '../support/wait.js';

/**
 * What a read-only key (a dashboard's) and the audit log may hold:
 * distinctive credentials and personal data are written through every path that writes an audit event, then a
 * `read` key walks every GET route of the contract, the audit log and its CSV export, and none of them may appear:
 * no response link, header value, request body, callback URL path or query, alert webhook path, email address or
 * phone number. The owner's own key still reads them where they are its data (so masking depends on the key).
 */
const MARK = 'x7c1f';
const SECRET = {
  header: `Bearer HDR-${MARK}-SECRET`,
  body: `BODY-${MARK}-SECRET`,
  callbackPath: `cbpath-${MARK}`,
  callbackQuery: `cbquery-${MARK}`,
  alertPath: `alertpath-${MARK}`,
  slackPath: `slackpath-${MARK}`,
  contactEmail: `jane.private.${MARK}@example.com`,
  contactEmail2: `jane.moved.${MARK}@example.com`,
  contactPhone: '+15555557101',
  memberEmail: `member.${MARK}@example.com`,
  memberPhone: '+15555557102',
  directEmail: `direct.${MARK}@example.com`,
  reassignedEmail: `dee.${MARK}@example.com`,
  alertEmail: `oncall.${MARK}@example.com`,
  declinerEmail: `decliner.${MARK}@example.com`,
  escalationEmail: `escalate.${MARK}@example.com`,
  alertPhone: '+15555557103',
} as const;

interface Route {
  method: string;
  path: string;
  metadata?: { scope?: string };
}
const isRoute = (value: object): value is Route =>
  typeof (value as Route).method === 'string' && typeof (value as Route).path === 'string';

/** Every GET route of the contract (the JSON API, the response pages, the trigger and the audit export). */
function getRoutes(router: object): Route[] {
  const out: Route[] = [];
  for (const value of Object.values(router) as object[]) {
    if (isRoute(value)) {
      if (value.method === 'GET') out.push(value);
    } else out.push(...getRoutes(value));
  }
  return out;
}

describe('what a read-only key and the audit log can see', { timeout: 180_000 }, () => {
  let svc: ApprovalServer;
  let key: string;
  let readKey: string;
  const call = (method: string, path: string, body?: unknown) => svc.call(method, path, body);
  const ok = async (method: string, path: string, body?: unknown, status = [200, 201, 202]) => {
    const res = await call(method, path, body);
    expect(status, `${method} ${path}: ${JSON.stringify(res.body)}`).toContain(res.status);
    return res.body;
  };
  /** Ids of what was made, by the path parameter's resource. */
  const ids: Record<string, string[]> = {};
  const made = (resource: string, id: string) => {
    ids[resource] = [...(ids[resource] ?? []), id];
    return id;
  };

  beforeAll(async () => {
    svc = await startApprovalServer('read_key_exposure', { timeScale: 3600 });
    key = svc.key;
    const read = await api(svc.server, key, 'POST', '/v1/api-keys', { name: 'dashboard', scopes: ['read'] });
    expect(read.status).toBe(201);
    readKey = read.body.data.key;
  });
  afterAll(() => svc?.stop());

  it('writes one of each secret through every path that records an audit event', async () => {
    const rx = svc.rx;
    const callbackUrl = `${rx.url}/cb/${SECRET.callbackPath}?token=${SECRET.callbackQuery}`;
    const request = {
      url: `${rx.url}/hook`,
      method: 'POST',
      headers: { Authorization: SECRET.header },
      body: { card: SECRET.body },
    };
    // Contacts, team members and a Slack channel (directory).
    const contact = (
      await ok('POST', '/v1/contacts', {
        name: 'Jane',
        email: SECRET.contactEmail,
        phone: SECRET.contactPhone,
      })
    ).data;
    made('contacts', contact.id);
    await ok('PUT', `/v1/contacts/${contact.id}`, { email: SECRET.contactEmail2 });
    await ok('PUT', `/v1/contacts/${contact.id}`, { email: SECRET.contactEmail });
    const member = (
      await ok('POST', '/v1/team-members', {
        name: 'Mo',
        email: SECRET.memberEmail,
        phone: SECRET.memberPhone,
      })
    ).data;
    made('team-members', member.id);
    await ok('PUT', `/v1/team-members/${member.id}`, { phone: SECRET.memberPhone });
    const slack = (
      await ok('POST', '/v1/channels', {
        name: 'ops',
        type: 'slack',
        webhook_url: `${rx.url}/slack/${SECRET.slackPath}`,
      })
    ).data;
    made('channels', slack.id);

    // Actions: a create, a batch, a replay, a bulk replay; each with a header value, a body and a callback URL.
    const action = (
      await ok('POST', '/v1/actions', {
        name: 'pay',
        schedule: { wait: '1s' },
        request,
        callback_url: callbackUrl,
      })
    ).data;
    made('actions', action.id);
    const batch = await ok('POST', '/v1/actions/batch', {
      actions: [{ name: 'batched', schedule: { wait: '1h' }, request, callback_url: callbackUrl }],
    });
    for (const a of batch.data.actions ?? batch.data) made('actions', a.id);
    await eventually(
      async () => (await call('GET', `/v1/actions/${action.id}`)).body.data.status === 'executed',
    );
    const replay = await ok('POST', `/v1/actions/${action.id}/replay`, {
      request: { headers: { Authorization: SECRET.header }, body: { card: SECRET.body } },
    });
    made('actions', replay.data.id);
    const bulk = await ok('POST', '/v1/bulk-operations', {
      operation: 'replay',
      ids: [action.id],
      dry_run: false,
      replay: { request: { headers: { Authorization: SECRET.header }, body: { card: SECRET.body } } },
    });
    made('bulk-operations', bulk.data.id);

    // An approval: by contact reference, by a direct address and by team member; remind, reassign, respond.
    const approval = (
      await ok('POST', '/v1/actions', {
        mode: 'approval',
        name: 'Pay invoice 42',
        schedule: { wait: '1s' },
        gate: {
          message: 'Approve payment?',
          recipients: [`contact:${contact.id}:email`, SECRET.directEmail, member.id],
          timeout: '1d',
        },
        request,
        callback_url: callbackUrl,
      })
    ).data;
    made('actions', approval.id);
    const waiting = await svc.until(approval.id, 'awaiting_response');
    await ok('POST', `/v1/actions/${approval.id}/remind`, {});
    // The reminder goes out from the worker; its event is written then.
    await eventually(async () =>
      (await call('GET', '/v1/audit-events?action=approval.reminder')).body.data.length > 0 ? true : null,
    );
    const direct = waiting.recipients.find((r: { email: string }) => r.email === SECRET.directEmail);
    await ok('POST', `/v1/actions/${approval.id}/recipients/${direct.id}/reassign`, {
      to: SECRET.reassignedEmail,
    });
    const [mail] = await svc.smtp.waitFor(SECRET.contactEmail);
    const answered = await fetch(linkIn(mail!.text), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm', comment: 'fine' }),
    });
    expect(answered.status).toBe(200);

    // One declined (its last_error names who declined), with an escalation contact in its gate.
    const declined = (
      await ok('POST', '/v1/actions', {
        mode: 'approval',
        name: 'Declined one',
        schedule: { wait: '1s' },
        gate: {
          message: 'Ok?',
          recipients: [SECRET.declinerEmail],
          timeout: '1d',
          escalation: { contacts: [SECRET.escalationEmail], after_hours: 12 },
        },
      })
    ).data;
    made('actions', declined.id);
    await svc.until(declined.id, 'awaiting_response');
    const [declinerMail] = await svc.smtp.waitFor(SECRET.declinerEmail);
    const no = await fetch(linkIn(declinerMail!.text), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'decline' }),
    });
    expect(no.status).toBe(200);
    const declinedView = (await call('GET', `/v1/actions/${declined.id}`)).body.data;
    expect(declinedView.last_error).toContain(SECRET.declinerEmail);

    // A second approval left pending, so GET /v1/approvals lists its recipients.
    const pending = (
      await ok('POST', '/v1/actions', {
        mode: 'approval',
        name: 'Still waiting',
        schedule: { wait: '1s' },
        gate: {
          message: 'Ok?',
          recipients: [SECRET.directEmail, `contact:${contact.id}:phone`],
          timeout: '1d',
        },
      })
    ).data;
    made('actions', pending.id);
    await svc.until(pending.id, 'awaiting_response');

    // Templates (an action with credentials and a callback, an approval with a literal recipient) and a chain.
    const tpl = (
      await ok('POST', '/v1/templates', {
        name: 'Order {{id}}',
        mode: 'webhook',
        request_config: { ...request, url: `${rx.url}/orders/{{id}}` },
        callback_url: callbackUrl,
        placeholders: [{ name: 'id', required: true }],
      })
    ).data;
    made('templates', tpl.id);
    await ok('PUT', `/v1/templates/${tpl.id}`, { callback_url: callbackUrl });
    const gateTpl = (
      await ok('POST', '/v1/templates', {
        name: 'Approve {{id}}',
        mode: 'approval',
        gate_config: { message: 'Ok {{id}}?', recipients: [SECRET.directEmail] },
        placeholders: [{ name: 'id', required: true }],
      })
    ).data;
    made('templates', gateTpl.id);
    const triggered = await fetch(`${svc.server.url}${new URL(tpl.trigger_url).pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: '42' }),
    });
    expect(triggered.status).toBe(201);
    made('actions', ((await triggered.json()) as any).data.id);
    const chain = (
      await ok('POST', '/v1/chains', {
        name: 'chain',
        callback_url: callbackUrl,
        steps: [
          { name: 'call', type: 'webhook', ...request },
          { name: 'again', type: 'webhook', ...request },
        ],
      })
    ).data;
    made('chains', chain.id);

    // An alert rule with a webhook URL, an email and a phone; updated and tested.
    const rule = (
      await ok('POST', '/v1/alert-rules', {
        name: 'failures',
        events: ['action.failed'],
        channels: [
          { type: 'webhook', url: `${rx.url}/alert/${SECRET.alertPath}?k=${SECRET.alertPath}` },
          { type: 'email', to: SECRET.alertEmail },
          { type: 'sms', to: SECRET.alertPhone },
        ],
      })
    ).data;
    made('alert-rules', rule.id);
    const calendar = (
      await ok('POST', '/v1/calendars', { name: 'office', timezone: 'Europe/Berlin', dates: ['2027-12-24'] })
    ).data;
    made('calendars', calendar.id);
    await ok('PUT', `/v1/alert-rules/${rule.id}`, { name: 'failures!' });
    await ok('POST', `/v1/alert-rules/${rule.id}/test`, {});
    await eventually(async () =>
      (await call('GET', `/v1/alert-rules/${rule.id}`)).body.data.recent_notifications?.length > 0
        ? true
        : null,
    );
    await eventually(async () =>
      (await call('GET', `/v1/chains/${chain.id}`)).body.data.status === 'completed' ? true : null,
    );
    const ops = await call('GET', '/v1/bulk-operations');
    for (const op of ops.body.data)
      if (!ids['bulk-operations']!.includes(op.id)) made('bulk-operations', op.id);
    await ok('POST', '/v1/domains/hooks.example.org/verify', {});
    // The owner's key reads its own data whole.
    const ownView = JSON.stringify((await call('GET', `/v1/actions/${approval.id}`)).body);
    expect(ownView).toContain(SECRET.header);
    expect(ownView).toContain(SECRET.directEmail);
  });

  // Every GET route of the contract, each with real ids: a hundred requests and more, so a minute and more on two
  // busy cores.
  it('a read key walks every GET route and finds none of it, nor any response link', {
    timeout: 180_000,
  }, async () => {
    const host = new URL(svc.rx.url).hostname;
    const params: Record<string, (path: string) => string[]> = {
      id: (path) => ids[path.split('/')[2]!] ?? [],
      domain: () => ['hooks.example.org'],
      host: () => [host],
      // A read key holds no response token; a made-up one must find nothing.
      token: () => ['not-a-real-token-000000000000000000000000'],
      recipient_id: () => [],
    };
    const answers: string[] = [];
    const walked: string[] = [];
    for (const route of getRoutes(contract)) {
      const names = [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
      let paths = [route.path];
      for (const name of names) {
        const values = params[name]?.(route.path) ?? [];
        expect(values.length, `no value for :${name} in ${route.path}`).toBeGreaterThan(0);
        paths = paths.flatMap((p) => values.map((v) => p.replace(`:${name}`, encodeURIComponent(v))));
      }
      // The wait route holds its answer until its timeout: a second is enough to read what it answers.
      const query = route.path.endsWith('/wait')
        ? '?timeout=1'
        : route.path.endsWith('/days')
          ? '?from=2027-12-01&to=2027-12-31'
          : '';
      for (const path of paths) {
        const res = await fetch(`${svc.server.url}${path}${query}`, {
          headers: { authorization: `Bearer ${readKey}` },
        });
        const text = await res.text();
        const scope = route.metadata?.scope;
        if (scope === 'admin') expect(res.status, path).toBe(403);
        else if (!path.startsWith('/r/')) expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(200);
        walked.push(path);
        answers.push(`${path}\n${text}`);
      }
    }
    expect(walked).toEqual(
      expect.arrayContaining(['/v1/audit-events', '/v1/audit-events/export', '/v1/approvals']),
    );
    // A request's body is the action's data, shown to a read key as documented; it is never in the audit log.
    for (const [name, value] of Object.entries(SECRET).filter(([name]) => name !== 'body')) {
      const at = answers.find((a) => a.includes(value));
      expect(
        at,
        `${name} (${value}) shown to a read key in ${at?.slice(0, at.indexOf('\n'))}`,
      ).toBeUndefined();
    }
    const link = answers.find((a) => /\/r\/[A-Za-z0-9_-]{20,}/.test(a));
    expect(link && /.{80}\/r\/[A-Za-z0-9_-]{20,}.{20}/s.exec(link)?.[0], 'a response link').toBeUndefined();
    // The outbox is closed to it; the audit log and its export hold none of it (walked above, whole).
    const audit = await api(svc.server, readKey, 'GET', '/v1/audit-events?limit=1000');
    expect(audit.body.data.length).toBeGreaterThan(20);
    const csv = await fetch(`${svc.server.url}/v1/audit-events/export?format=csv`, {
      headers: { authorization: `Bearer ${readKey}` },
    });
    expect(csv.status).toBe(200);
    const log = `${JSON.stringify(audit.body)}\n${await csv.text()}`;
    for (const [name, value] of Object.entries(SECRET))
      expect(log.includes(value), `${name} in the audit log`).toBe(false);
    const actions = new Set(audit.body.data.map((e: { action: string }) => e.action));
    for (const a of [
      'contact.create',
      'contact.update',
      'team_member.create',
      'channel.create',
      'action.create',
      'bulk_operation.create',
      'approval.reminder',
      'approval.reassigned',
      'approval.confirm',
      'template.create',
      'template.update',
      'chain.create',
      'alert_rule.create',
      'alert_rule.update',
      'alert_rule.test',
    ])
      expect(actions, a).toContain(a);
  });
});
