import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { linkIn, startSmtpServer } from '../support/peers.js';
import { rawRequest } from '../support/raw-http.js';
import { api, startServer, type TestServer } from '../support/server.js';
import { eventually } from '../support/wait.js';

// Response links are bearer credentials: a full approval round logged at `trace` must not write one anywhere.
describe('logs keep no response link', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;

  beforeAll(async () => {
    db = await createTestDatabase('log_redaction');
    smtp = await startSmtpServer();
    server = await startServer({
      databaseUrl: db.url,
      env: {
        LOG_LEVEL: 'trace',
        SCHED_TIME_SCALE: '3600',
        SCHED_SMTP_URL: smtp.url,
        SCHED_EMAIL_FROM: 'sched <approvals@example.com>',
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
    await db?.drop();
  });

  it('runs a round (page, spelled-out page, snooze, reminder, confirm) and finds no token in the output', async () => {
    const created = await api(server, server.apiKey, 'POST', '/v1/actions', {
      mode: 'approval',
      name: 'Rotate the keys',
      schedule: { wait: '1s' },
      gate: {
        message: 'Rotate now?',
        recipients: ['ops@example.com', '+15551234567'],
        channels: ['email', 'sms'],
      },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const [first] = await smtp.waitFor('ops@example.com');
    const link = linkIn(first!.text);
    const token = new URL(link).pathname.split('/')[2]!;
    expect(token.length).toBeGreaterThan(20);

    // Answers wait for the round to be sent (409 while it is).
    const awaiting = () =>
      eventually(async () => {
        const a = await api(server, server.apiKey, 'GET', `/v1/actions/${id}`);
        return a.body.data.status === 'awaiting_response';
      });
    await awaiting();
    const origin = new URL(link).origin;
    expect((await fetch(link)).status).toBe(200);
    expect((await rawRequest(origin, `/%72/${token}?decision=confirm`)).status).toBe(200);
    expect((await rawRequest(origin, `http://x/r/${token}/attachments/nope`)).status).toBe(404);
    const snoozed = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'snooze', snooze_for: '1h' }).toString(),
    });
    expect(snoozed.status).toBe(200);
    // The reminder (an hour of snooze is a second here) carries a new link; both must stay out of the logs.
    const mails = await smtp.waitFor('ops@example.com', 2);
    const second = linkIn(mails[1]!.text);
    await awaiting();
    const confirmed = await fetch(second, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    expect(confirmed.status).toBe(200);
    await eventually(async () => {
      const a = await api(server, server.apiKey, 'GET', `/v1/actions/${id}`);
      return a.body.data.status === 'executed';
    });

    const output = server.output();
    expect(output).toContain('request completed');
    expect(output).toContain('/r/[redacted]');
    for (const t of [token, new URL(second).pathname.split('/')[2]!]) {
      expect(output.includes(t)).toBe(false);
      expect(output.includes(t.slice(0, 16))).toBe(false);
    }
  });
});
