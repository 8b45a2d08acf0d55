import { afterEach, describe, expect, it } from 'vitest';
import { fetchChannelHttp } from './http.js';
import { createSlackChannel, escapeSlack, renderSlackPayload } from './slack.js';
import { type LoopbackReceiver, sampleApprovalMessage, startLoopbackReceiver } from './testing.js';

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

interface Block {
  type: string;
  text?: { type: string; text: string; emoji?: boolean };
  elements?: {
    type: string;
    text?: { type: string; text: string } | string;
    url?: string;
    style?: string;
    action_id?: string;
  }[];
}

const BLOCK_TYPES = new Set(['header', 'section', 'context', 'actions', 'divider', 'image', 'rich_text']);

/** Checks a payload against the parts of Slack's Block Kit rules this channel uses, as Slack would. */
function slackRejects(payload: { text?: unknown; blocks?: Block[] }): string | undefined {
  if (typeof payload.text !== 'string' || payload.text === '') return 'no_text';
  const blocks = payload.blocks ?? [];
  if (blocks.length > 50) return 'invalid_blocks';
  const actionIds = new Set<string>();
  for (const block of blocks) {
    if (!BLOCK_TYPES.has(block.type)) return 'invalid_blocks';
    if (block.type === 'header' && (block.text?.type !== 'plain_text' || block.text.text.length > 150)) {
      return 'invalid_blocks';
    }
    if (block.type === 'section' && (!block.text || block.text.text.length > 3000)) return 'invalid_blocks';
    if (block.type === 'actions') {
      for (const el of block.elements ?? []) {
        if (el.type !== 'button' || typeof el.text !== 'object' || el.text.type !== 'plain_text') {
          return 'invalid_blocks';
        }
        if (el.text.text.length > 75 || !el.url || el.url.length > 3000) return 'invalid_blocks';
        if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger')
          return 'invalid_blocks';
        if (!el.action_id || actionIds.has(el.action_id)) return 'invalid_blocks';
        actionIds.add(el.action_id);
      }
    }
  }
  return undefined;
}

async function startSlack(): Promise<LoopbackReceiver> {
  const receiver = await startLoopbackReceiver((req) => {
    if (req.url === '/services/T000/B000/gone') return { status: 404, body: 'no_service' };
    if (!String(req.headers['content-type']).startsWith('application/json')) {
      return { status: 400, body: 'invalid_payload' };
    }
    let payload: { text?: unknown; blocks?: Block[] };
    try {
      payload = JSON.parse(req.body.toString('utf8')) as typeof payload;
    } catch {
      return { status: 400, body: 'invalid_payload' };
    }
    const problem = slackRejects(payload);
    return problem ? { status: 400, body: problem } : { status: 200, body: 'ok' };
  });
  receivers.push(receiver);
  return receiver;
}

describe('slack channel', () => {
  it('posts a Block Kit message whose buttons open the response page', async () => {
    const slack = await startSlack();
    const channel = createSlackChannel({ http: fetchChannelHttp() });
    const message = sampleApprovalMessage({
      attachments: [{ filename: 'plan.txt', contentType: 'text/plain', content: Buffer.from('x') }],
    });
    const receipt = await channel.send(
      { channel: 'slack', webhookUrl: `${slack.origin}/services/T000/B000/XXXX` },
      message,
    );

    expect(receipt).toEqual({ ok: true, via: 'provider' });
    const req = slack.requests[0] ?? expect.unreachable();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/services/T000/B000/XXXX');
    const payload = JSON.parse(req.body.toString('utf8')) as { text: string; blocks: Block[] };
    expect(payload.blocks.map((b) => b.type)).toEqual(['header', 'section', 'context', 'actions']);
    expect(payload.blocks[0]?.text).toEqual({
      type: 'plain_text',
      text: 'Approval needed: Deploy release 4.2',
      emoji: true,
    });
    expect(payload.blocks[1]?.text).toEqual({
      type: 'mrkdwn',
      text: 'Please approve the deploy.\nIt touches &lt;script&gt;alert(1)&lt;/script&gt; &amp; billing.',
    });
    const context = payload.blocks[2]?.elements?.map((e) => e.text) ?? [];
    expect(context[0]).toBe(
      `Expires <!date^${Date.parse('2030-01-08T12:30:00Z') / 1000}^{date_short_pretty} at {time}|2030-01-08 12:30 UTC>`,
    );
    expect(context).toContain('Need more time? You can snooze this request from the same page.');
    expect(context).toContain('1 attachment on the response page: plan.txt');

    const buttons = payload.blocks[3]?.elements ?? [];
    expect(buttons).toEqual([
      {
        type: 'button',
        text: { type: 'plain_text', text: 'Approve', emoji: true },
        url: message.responseUrl,
        style: 'primary',
        action_id: 'sched_confirm',
        value: 'confirm',
      },
      {
        type: 'button',
        text: { type: 'plain_text', text: 'Reject', emoji: true },
        url: message.responseUrl,
        style: 'danger',
        action_id: 'sched_decline',
        value: 'decline',
      },
    ]);
    expect(payload.text).toContain('Approval needed: Deploy release 4.2');
    expect(payload.text).toContain(`<${message.responseUrl}|Answer>`);
    expect(payload.text).not.toContain('<script>');
  });

  it('splits a 5000-character message into sections Slack accepts', async () => {
    const slack = await startSlack();
    const channel = createSlackChannel({ http: fetchChannelHttp() });
    const body = '&<>'.repeat(1666);
    const receipt = await channel.send(
      { channel: 'slack', webhookUrl: `${slack.origin}/services/T/B/X` },
      sampleApprovalMessage({ body, title: 'x'.repeat(255) }),
    );
    expect(receipt.ok).toBe(true);
    const payload = JSON.parse(slack.requests[0]?.body.toString('utf8') ?? '') as { blocks: Block[] };
    const sections = payload.blocks.filter((b) => b.type === 'section').map((b) => b.text?.text ?? '');
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) expect(s.length).toBeLessThanOrEqual(3000);
    expect(sections.join('')).toBe(escapeSlack(body));
  });

  it("reports Slack's error word", async () => {
    const slack = await startSlack();
    const channel = createSlackChannel({ http: fetchChannelHttp() });
    const receipt = await channel.send(
      { channel: 'slack', webhookUrl: `${slack.origin}/services/T000/B000/gone` },
      sampleApprovalMessage(),
    );
    expect(receipt).toEqual({ ok: false, via: 'provider', error: 'Slack HTTP 404: no_service' });
  });

  it('leaves the snooze line out when snoozing is not allowed', () => {
    const payload = renderSlackPayload(sampleApprovalMessage({ snoozeAllowed: false }));
    expect(JSON.stringify(payload)).not.toContain('snooze');
  });
});
