import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';
import { sqlValue } from '../support/seed.js';
import { eventually, pastInstant } from '../support/wait.js';

const MINUTE = 60_000;
/** `HH:MM` of an instant in UTC. */
const clockOf = (ms: number) => new Date(ms).toISOString().slice(11, 16);
/** The first full UTC minute at least `leadMs` from now. */
const nextMinute = (leadMs: number) => Math.ceil((Date.now() + leadMs) / MINUTE) * MINUTE;

// Quiet hours of approvals end to end, mail through a real SMTP server on loopback. Quiet hours are wall times, so
// they are real minutes here; SCHED_TIME_SCALE=60 makes an escalation's half hour 30 seconds.
describe('quiet hours', () => {
  let svc: ApprovalServer;

  beforeAll(async () => {
    svc = await startApprovalServer('quiet', { timeScale: 60 });
  });
  afterAll(() => svc?.stop());

  const approval = (to: string, quiet: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    svc.call('POST', '/v1/actions', {
      mode: 'approval',
      schedule: { wait: '1s' },
      gate: { message: 'Deploy?', recipients: [to], quiet_hours: quiet, ...extra },
    });

  it('an approval whose quiet hours cover now sends no mail until they end', async () => {
    const ends = nextMinute(1_000);
    const quiet = { timezone: 'UTC', start: clockOf(ends - MINUTE), end: clockOf(ends) };
    const res = await approval('night@example.com', quiet);
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(a.gate.quiet_hours).toEqual(quiet);
    expect(a.next_attempt_at).toBe(new Date(ends).toISOString());
    expect(a.deferred_by_window.to).toBe(new Date(ends).toISOString());
    await pastInstant(ends - 300);
    expect(svc.smtp.mails.filter((m) => m.to.includes('night@example.com'))).toEqual([]);
    const [mail] = await svc.smtp.waitFor('night@example.com', 1, 10_000);
    expect(mail!.subject).toContain('Approval');
    const sent = (await svc.until(a.id, 'awaiting_response')).gate.sent_at;
    expect(Date.parse(sent)).toBeGreaterThanOrEqual(ends);
  }, 90_000);

  it('inside quiet hours an escalation is held, or sent with escalations: "send"; the response page still works', async () => {
    // Quiet from the next full minute (at least 4 s away) for three minutes; the requests go out before it and the
    // escalations (after 30 s) fall inside it.
    const begins = nextMinute(4_000);
    await pastInstant(begins - 28_000);
    const quiet = { timezone: 'UTC', start: clockOf(begins), end: clockOf(begins + 3 * MINUTE) };
    const escalation = (to: string) => ({ escalation: { contacts: [to], after_hours: 0.5 } });
    const sends = await approval(
      'a-send@example.com',
      { ...quiet, escalations: 'send' },
      escalation('boss-send@example.com'),
    );
    const holds = await approval('a-hold@example.com', quiet, escalation('boss-hold@example.com'));
    expect(sends.status).toBe(201);
    expect(holds.status).toBe(201);
    const [request] = await svc.smtp.waitFor('a-send@example.com');
    await svc.smtp.waitFor('a-hold@example.com');

    await pastInstant(begins, 500);
    const page = await fetch(linkIn(request!.text), { headers: { accept: 'application/json' } });
    expect(page.status).toBe(200);

    const [escalated] = await svc.smtp.waitFor('boss-send@example.com', 1, 45_000);
    expect(Date.now()).toBeGreaterThanOrEqual(begins);
    expect(escalated!.to).toEqual(['boss-send@example.com']);
    // The held escalation's timer now waits for the end of quiet hours; nothing went to its contact.
    const heldUntil = await eventually(async () => {
      const at = await sqlValue<Date | null>(
        svc.db.url,
        "select max(start_after) from pgboss.job where data->>'actionId' = $1 and data->>'kind' = 'escalation' and state = 'created'",
        [holds.body.data.id],
      );
      // The first timer fires inside quiet hours and is set again for their end.
      return at && at.getTime() > begins + MINUTE ? at : null;
    }, 30_000);
    expect(heldUntil.getTime()).toBe(begins + 3 * MINUTE);
    expect(svc.smtp.mails.filter((m) => m.to.includes('boss-hold@example.com'))).toEqual([]);
    expect((await svc.get(holds.body.data.id)).gate.escalated_at).toBeNull();
  }, 120_000);
});
