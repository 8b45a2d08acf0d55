import { describe, expect, it } from 'vitest';
import type { ChannelHttp } from './http.js';
import { createSlackWebApi, decidedBlocks, renderSlackAppPayload, slackAppSender } from './slack-app.js';
import { sampleApprovalMessage } from './testing.js';

const config = { botToken: 'xoxb-1', signingSecret: 's', apiUrl: 'https://slack.test/api' };

/** A Web API stand-in: answers each method as `answers` says and keeps the calls. */
function fakeSlack(answers: Record<string, unknown>) {
  const calls: { url: string; headers: Record<string, string>; body: any }[] = [];
  const http: ChannelHttp = async (req) => {
    calls.push({ url: req.url, headers: req.headers, body: JSON.parse(String(req.body)) });
    const method = req.url.split('/').at(-1)!;
    const answer = answers[method];
    return answer === undefined
      ? { error: 'connection refused' }
      : { status: 200, body: JSON.stringify(answer) };
  };
  return { http, calls };
}

describe('Slack app mode', () => {
  const message = sampleApprovalMessage({ slackReference: 'opaque-ref' });

  it('puts the reference, not a link, on Confirm and Decline; a DM links the page for a snooze or comment', () => {
    const dm = renderSlackAppPayload(message, { direct: true });
    const actions = dm.blocks.find((b) => b.type === 'actions') as { elements: Record<string, unknown>[] };
    expect(actions.elements.map((e) => [e.action_id, e.value ?? null, e.url ?? null])).toEqual([
      ['sched_confirm', 'opaque-ref', null],
      ['sched_decline', 'opaque-ref', null],
      ['sched_open_page', null, message.responseUrl],
    ]);
    const channel = renderSlackAppPayload(message, { direct: false });
    expect(JSON.stringify(channel)).not.toContain(message.responseUrl);
  });

  it('opens the DM, posts with the bot token, and reports Slack errors', async () => {
    const ok = fakeSlack({
      'conversations.open': { ok: true, channel: { id: 'D1' } },
      'chat.postMessage': { ok: true, ts: '1.2' },
    });
    const send = slackAppSender(config, ok.http);
    expect(await send({ channel: 'slack', slackMemberId: 'U1' }, message)).toEqual({
      ok: true,
      via: 'provider',
      providerMessageId: '1.2',
    });
    expect(ok.calls.map((c) => [c.url, c.headers.authorization, c.body.channel ?? c.body.users])).toEqual([
      ['https://slack.test/api/conversations.open', 'Bearer xoxb-1', 'U1'],
      ['https://slack.test/api/chat.postMessage', 'Bearer xoxb-1', 'D1'],
    ]);
    const refused = fakeSlack({ 'chat.postMessage': { ok: false, error: 'not_in_channel' } });
    expect(
      await slackAppSender(config, refused.http)({ channel: 'slack', slackChannelId: 'C1' }, message),
    ).toEqual({
      ok: false,
      via: 'provider',
      error: 'Slack chat.postMessage: not_in_channel',
    });
    expect(await createSlackWebApi(config, fakeSlack({}).http).call('users.info', {})).toEqual({
      ok: false,
      error: 'connection refused',
    });
  });

  it('shows who decided and when, without the buttons', () => {
    const blocks = decidedBlocks(renderSlackAppPayload(message, { direct: true }).blocks, {
      memberId: 'U1',
      decision: 'decline',
      at: new Date('2030-01-01T10:00:00Z'),
    });
    expect(blocks.some((b) => b.type === 'actions')).toBe(false);
    expect((blocks.at(-1) as { text: { text: string } }).text.text).toBe(
      ':x: Declined by <@U1> <!date^1893492000^{date_short_pretty} at {time}|2030-01-01T10:00:00.000Z>',
    );
  });
});
