import { afterEach, describe, expect, it } from 'vitest';
import { fetchChannelHttp } from './http.js';
import { ADAPTIVE_CARD_SCHEMA, createTeamsChannel, renderTeamsPayload } from './teams.js';
import { type LoopbackReceiver, sampleApprovalMessage, startLoopbackReceiver } from './testing.js';

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

interface CardElement {
  type: string;
  text?: string;
  inlines?: { type: string; text: string; weight?: string }[];
  weight?: string;
  wrap?: boolean;
  facts?: { title: string; value: string }[];
  title?: string;
  url?: string;
  style?: string;
}

interface TeamsPayload {
  type: string;
  attachments: {
    contentType: string;
    contentUrl: null;
    content: {
      $schema: string;
      type: string;
      version: string;
      body: CardElement[];
      actions: CardElement[];
    };
  }[];
}

/** The text a block shows: a TextBlock's (Markdown) or the runs of a RichTextBlock (plain). */
const textOf = (e: CardElement) => e.text ?? (e.inlines ?? []).map((i) => i.text).join('');

const ELEMENT_TYPES = new Set(['TextBlock', 'FactSet', 'RichTextBlock', 'Container', 'ColumnSet', 'Image']);
const ACTION_TYPES = new Set([
  'Action.OpenUrl',
  'Action.Submit',
  'Action.ShowCard',
  'Action.ToggleVisibility',
]);

/** What a Workflows webhook checks before posting: one Adaptive Card of a version Teams renders. */
function teamsRejects(payload: TeamsPayload): string | undefined {
  if (payload.type !== 'message' || payload.attachments.length !== 1)
    return 'not a message with one attachment';
  const att = payload.attachments[0];
  if (att?.contentType !== 'application/vnd.microsoft.card.adaptive') return 'not an adaptive card';
  const card = att.content;
  if (card.type !== 'AdaptiveCard' || !['1.0', '1.1', '1.2', '1.3', '1.4', '1.5'].includes(card.version)) {
    return 'unsupported card';
  }
  if (card.body.some((e) => !ELEMENT_TYPES.has(e.type))) return 'unknown element';
  if (card.actions.some((a) => !ACTION_TYPES.has(a.type) || (a.type === 'Action.OpenUrl' && !a.url))) {
    return 'invalid action';
  }
  return undefined;
}

async function startTeams(): Promise<LoopbackReceiver> {
  const receiver = await startLoopbackReceiver((req) => {
    if (req.url.includes('legacy-failure')) {
      return {
        status: 200,
        body: 'Webhook message delivery failed with error: Microsoft Teams endpoint returned HTTP error 413',
      };
    }
    try {
      const problem = teamsRejects(JSON.parse(req.body.toString('utf8')) as TeamsPayload);
      if (problem)
        return { status: 400, body: JSON.stringify({ error: { code: 'InvalidRequest', message: problem } }) };
    } catch {
      return { status: 400, body: 'bad json' };
    }
    return { status: 202, body: '' };
  });
  receivers.push(receiver);
  return receiver;
}

describe('teams channel', () => {
  it('posts an Adaptive Card 1.4 whose two actions open the response page', async () => {
    const teams = await startTeams();
    const channel = createTeamsChannel({ http: fetchChannelHttp() });
    const message = sampleApprovalMessage({
      body: 'First line\nsecond line\n\nNew paragraph',
      attachments: [{ filename: 'plan.pdf', contentType: 'application/pdf', content: Buffer.from('x') }],
    });
    const receipt = await channel.send(
      { channel: 'teams', webhookUrl: `${teams.origin}/workflows/triggers/manual/paths/invoke?sig=abc` },
      message,
    );

    expect(receipt).toEqual({ ok: true, via: 'provider' });
    const req = teams.requests[0] ?? expect.unreachable();
    expect(req.url).toBe('/workflows/triggers/manual/paths/invoke?sig=abc');
    expect(req.headers['content-type']).toMatch(/^application\/json/);
    const payload = JSON.parse(req.body.toString('utf8')) as TeamsPayload;
    expect(payload.type).toBe('message');
    expect(payload.attachments).toHaveLength(1);
    const attachment = payload.attachments[0] ?? expect.unreachable();
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = attachment.content;
    expect(card.type).toBe('AdaptiveCard');
    expect(card.version).toBe('1.4');
    expect(card.$schema).toBe(ADAPTIVE_CARD_SCHEMA);

    expect(card.body[0]).toMatchObject({
      type: 'RichTextBlock',
      inlines: [{ type: 'TextRun', text: 'Approval needed: Deploy release 4.2', weight: 'Bolder' }],
    });
    const lines = card.body.filter((e, i) => i > 0 && e.type === 'RichTextBlock');
    expect(lines.map(textOf)).toEqual([
      'First line',
      'second line',
      'New paragraph',
      'Attachments: plan.pdf',
    ]);
    const facts = card.body.find((e) => e.type === 'FactSet')?.facts;
    expect(facts).toEqual([
      { title: 'Expires', value: '2030-01-08 12:30 UTC' },
      { title: 'Snooze', value: 'Available on the response page' },
    ]);
    expect(card.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Approve', url: message.responseUrl, style: 'positive' },
      { type: 'Action.OpenUrl', title: 'Reject', url: message.responseUrl, style: 'destructive' },
    ]);
  });

  it('reports a rejected card and a connector that failed with a 200', async () => {
    const teams = await startTeams();
    const channel = createTeamsChannel({ http: fetchChannelHttp() });
    const failed = await channel.send(
      { channel: 'teams', webhookUrl: `${teams.origin}/legacy-failure` },
      sampleApprovalMessage(),
    );
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/^Teams HTTP 200: Webhook message delivery failed/);

    const gone = await channel.send(
      { channel: 'teams', webhookUrl: 'http://127.0.0.1:9/unreachable' },
      sampleApprovalMessage(),
    );
    expect(gone.ok).toBe(false);
    expect(gone.error).toMatch(/^Teams: /);
  });

  it('keeps a long many-line message in a bounded card', () => {
    const body = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    const payload = renderTeamsPayload(sampleApprovalMessage({ body })) as unknown as TeamsPayload;
    const card = payload.attachments[0]?.content ?? expect.unreachable();
    expect(card.body.length).toBeLessThanOrEqual(102);
    const text = card.body.map(textOf).join('\n');
    expect(text).toContain('line 0');
    expect(text).toContain('line 399');
    expect(JSON.stringify(payload).length).toBeLessThan(28 * 1024);
  });

  it("shows the author's text as plain text: no Markdown link or emphasis reaches a Markdown block", () => {
    const payload = renderTeamsPayload(
      sampleApprovalMessage({
        title: '**Urgent** [CEO](https://evil.example)',
        body: 'Press [Approve](https://evil.example/steal) _now_',
        attachments: [
          { filename: '[x](https://evil.example).pdf', contentType: 'a/b', content: Buffer.from('') },
        ],
      }),
    ) as unknown as TeamsPayload;
    const card = payload.attachments[0]?.content ?? expect.unreachable();
    const markdown = card.body.filter((e) => e.type === 'TextBlock' || e.type === 'FactSet');
    expect(JSON.stringify(markdown)).not.toContain('evil.example');
    expect(card.body.map(textOf).join('\n')).toContain('Press [Approve](https://evil.example/steal) _now_');
    expect(teamsRejects(payload)).toBeUndefined();
  });
});
