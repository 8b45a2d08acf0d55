import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// A production server never shows an approval message as sent when it could not send it: a gate whose only
// channels lack their settings is refused at create, a partly configured one sends what it can and records the
// rest as not sent (timeline, alert rule, metrics), and /readyz lists every channel's state.
const PRODUCTION = { NODE_ENV: 'production', SCHED_ALLOW_PRIVATE_DESTINATIONS: 'false' };

describe('notifications in production', () => {
  describe('without SMTP or Twilio', () => {
    let db: TestDatabase;
    let server: TestServer;
    beforeAll(async () => {
      db = await createTestDatabase('notify_prod_none');
      server = await startServer({ databaseUrl: db.url, env: PRODUCTION });
    });
    afterAll(async () => {
      await server?.stop();
      await db?.drop();
    });

    it('/readyz lists each channel with its state', async () => {
      const ready = await (await fetch(`${server.url}/readyz`)).json();
      expect(ready).toMatchObject({
        status: 'ok',
        channels: {
          email: 'not_configured',
          sms: 'not_configured',
          push: 'not_configured',
          slack: 'configured',
          teams: 'configured',
        },
      });
    });

    it('an email-only approval is a 422 naming gate.channels and SCHED_SMTP_URL, and creates nothing', async () => {
      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        mode: 'approval',
        name: 'Pay invoice 42',
        schedule: { wait: '1s' },
        gate: { message: 'Approve?', recipients: ['ada@example.com'], timeout: '1d' },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors['gate.channels'][0]).toBe(
        'no channel of this approval can be sent by this server: email is not configured on this server (set SCHED_SMTP_URL)',
      );
      const both = await api(server, server.apiKey, 'POST', '/v1/actions', {
        mode: 'approval',
        name: 'Pay invoice 43',
        schedule: { wait: '1s' },
        gate: { message: 'Approve?', recipients: ['ada@example.com', '+15555550100'], timeout: '1d' },
      });
      expect(both.status).toBe(422);
      expect(both.body.errors['gate.channels'][0]).toMatch(/SCHED_SMTP_URL.*SCHED_TWILIO_ACCOUNT_SID/);
      const list = await api(server, server.apiKey, 'GET', '/v1/actions');
      expect(list.body.data).toEqual([]);
    });
  });

  describe('with SMTP but without Twilio', () => {
    let db: TestDatabase;
    let server: TestServer;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    beforeAll(async () => {
      db = await createTestDatabase('notify_prod_partial');
      smtp = await startSmtpServer();
      server = await startServer({
        databaseUrl: db.url,
        env: { ...PRODUCTION, SCHED_SMTP_URL: smtp.url, SCHED_EMAIL_FROM: 'sched <approvals@example.com>' },
      });
    });
    afterAll(async () => {
      await server?.stop();
      await smtp?.close();
      await db?.drop();
    });

    it('sends the email, records the SMS as not sent without spending the allowance, alerts and counts it', async () => {
      const rule = await api(server, server.apiKey, 'POST', '/v1/alert-rules', {
        name: 'Messages that did not go out',
        events: ['notification.undeliverable'],
        group_wait: '1s',
        channels: [{ type: 'email', to: 'ops@example.com' }],
      });
      expect(rule.status).toBe(201);
      const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { channels: unknown };
      expect(ready.channels).toMatchObject({
        email: 'configured',
        sms: 'not_configured',
      });

      const res = await api(server, server.apiKey, 'POST', '/v1/actions', {
        mode: 'approval',
        name: 'Pay invoice 44',
        schedule: { wait: '1s' },
        gate: {
          message: 'Approve the payout?',
          recipients: ['ada@example.com', '+15555550100'],
          timeout: '1d',
        },
      });
      expect(res.status).toBe(201);
      const id = res.body.data.id;
      await smtp.waitFor('ada@example.com');

      const timeline = await eventually(async () => {
        const action = (await api(server, server.apiKey, 'GET', `/v1/actions/${id}`)).body.data;
        const events = action.reminder_events as { event_type: string; notes: string }[];
        // The round's `sent` entry is written once its messages are out, after the `not_sent` of those that could not go.
        const both = ['not_sent', 'sent'].every((t) => events.some((e) => e.event_type === t));
        return both ? events : undefined;
      }, 20_000);
      const sent = timeline.filter((e) => e.event_type === 'sent');
      expect(sent.map((e) => e.notes)).toEqual(['request to ada@example.com via email']);
      const notSent = timeline.filter((e) => e.event_type === 'not_sent');
      expect(notSent).toHaveLength(1);
      expect(notSent[0]!.notes).toBe(
        'request to +15555550100 not sent via sms: sms is not configured on this server (set SCHED_TWILIO_ACCOUNT_SID, SCHED_TWILIO_AUTH_TOKEN, SCHED_TWILIO_FROM)',
      );

      const quota = (await api(server, server.apiKey, 'GET', '/v1/quota')).body.data;
      expect(quota.sms.used).toBe(0);

      const [alert] = await smtp.waitFor('ops@example.com', 1, 30_000);
      expect(alert!.text).toContain('messages not sent: sms is not configured on this server');

      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      expect(metrics).toMatch(
        /sched_notifications_total\{[^}]*channel="email"[^}]*outcome="sent"[^}]*\} [1-9]/,
      );
      expect(metrics).toMatch(
        /sched_notifications_total\{[^}]*channel="sms"[^}]*outcome="not_configured"[^}]*\} [1-9]/,
      );
    });
  });
});
