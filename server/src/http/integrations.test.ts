import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SlackClick } from '../app/approvals/inbound-slack.js';
import { SLACK_ACTIONS } from '../channels/slack.js';
import { slackSignature } from '../domain/approval/slack-signature.js';
import { registerIntegrationRoutes } from './integrations.js';
import { manualClock } from '../../../test/support/manual-clock.js';

// Slack's request timestamps are judged against the process's clock (the Clock port), not the machine's: a manual
// clock far from today's date decides which requests are fresh, so the machine's time plays no part.

const SECRET = 'slack-signing-secret-for-the-clock-test';
const START = new Date('2031-03-04T05:06:07Z');
const MINUTE = 60_000;

/** A `block_actions` click signed as Slack signs it, at `signedAt`. */
function signedClick(signedAt: Date, reference: string) {
  const payload = {
    type: 'block_actions',
    user: { id: 'U0ADA1234' },
    channel: { id: 'D0ADA1234' },
    actions: [{ action_id: SLACK_ACTIONS.confirm, value: reference }],
  };
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = String(Math.floor(signedAt.getTime() / 1000));
  return {
    method: 'POST' as const,
    url: '/integrations/slack/interactions',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': ts,
      'x-slack-signature': slackSignature(SECRET, ts, body),
    },
    payload: body,
  };
}

describe('the Slack interaction route reads its freshness window from the Clock port', () => {
  let app: FastifyInstance;
  let time: ReturnType<typeof manualClock>;
  /** The clicks that passed the signature check and reached the answers. */
  let clicks: SlackClick[];

  beforeEach(async () => {
    time = manualClock(START);
    clicks = [];
    app = Fastify();
    await registerIntegrationRoutes(app, {
      clock: time.clock,
      log: { warn: () => undefined },
      slack: {
        signingSecret: SECRET,
        answers: {
          click: async (c: SlackClick) => {
            clicks.push(c);
            return { kind: 'refused', text: 'This request is no longer open.', decided: true };
          },
        },
        messages: { decided: async () => undefined, ephemeral: async () => undefined },
      },
    });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
  });

  it('refuses a request signed 6 minutes before the clock’s now', async () => {
    const res = await app.inject(signedClick(new Date(START.getTime() - 6 * MINUTE), 'six-minutes-old'));
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'unauthorized' });
    expect(clicks).toEqual([]);
  });

  it('accepts a request signed 4 minutes before the clock’s now', async () => {
    const res = await app.inject(signedClick(new Date(START.getTime() - 4 * MINUTE), 'four-minutes-old'));
    expect(res.statusCode).toBe(200);
    expect(clicks.map((c) => c.reference)).toEqual(['four-minutes-old']);
  });

  it('the same signed request goes stale as the clock moves past five minutes', async () => {
    const request = signedClick(START, 'replayed');
    await time.advance(4 * MINUTE);
    expect((await app.inject(request)).statusCode).toBe(200);
    await time.advance(2 * MINUTE);
    expect((await app.inject(request)).statusCode).toBe(401);
    expect(clicks.map((c) => c.reference)).toEqual(['replayed']);
  });
});
