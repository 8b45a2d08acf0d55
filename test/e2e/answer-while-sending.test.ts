import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { linkIn } from '../support/peers.js';

// A link clicked as its message arrives can reach the server while the round still holds the action (`executing`,
// the messages going out): the answer waits for the round to finish rather than asking a person to try again.
describe('an answer that arrives while its round is still sending', () => {
  let svc: ApprovalServer;
  let sql: pg.Client;

  beforeAll(async () => {
    svc = await startApprovalServer('answer_sending', { timeScale: 1 });
    sql = new pg.Client({ connectionString: svc.db.url });
    sql.on('error', () => {});
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await svc?.stop();
  });

  it('waits for the round to finish, then records the answer (no 409)', async () => {
    const made = await svc.call('POST', '/v1/actions', {
      mode: 'approval',
      name: 'Ship it?',
      schedule: { wait: '1s' },
      gate: { message: 'Ship?', recipients: ['grace@example.com'] },
    });
    expect(made.status).toBe(201);
    const id = made.body.data.id as string;
    await svc.until(id, 'awaiting_response');
    const [mail] = await svc.smtp.waitFor('grace@example.com');
    const link = linkIn(mail!.text);
    // As a round holds it while its messages go out: executing, leased.
    await sql.query(
      `update actions set status = 'executing', lease_until = now() + interval '1 minute' where id = $1`,
      [id],
    );
    const started = Date.now();
    const answering = fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'confirm' }),
    });
    await new Promise((r) => setTimeout(r, 600));
    // The round commits what it sent: the action waits for answers again.
    await sql.query(`update actions set status = 'awaiting_response', lease_until = null where id = $1`, [
      id,
    ]);
    const answered = await answering;
    expect(answered.status, await answered.clone().text()).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect((await svc.until(id, 'executed')).status).toBe('executed');
  });
});
