import { postJson, providerAdapter } from './provider.js';
import { type ChannelHttp, excerpt } from './http.js';
import { type AlertMessage, alertHeadline, alertSampleNote, alertSummary } from '../domain/alerts/message.js';
import { formatExpiry, headline, introLine, normaliseBody } from './render.js';
import type { ApprovalMessage, ChannelAdapter } from './types.js';

/**
 * Microsoft Teams through an incoming webhook (a Workflows "post to a channel when a webhook request is
 * received" flow, or a legacy connector): one Adaptive Card whose two buttons open the response page.
 *
 * Text written by the action's author (the name, the message, file names) goes into RichTextBlocks of TextRuns,
 * which Teams shows as plain text: a TextBlock would read it as Markdown, so `[Approve](https://elsewhere)` would
 * become a disguised link in a shared channel, and Teams clients disagree on backslash escapes.
 * One block per line, because a single line break inside a block is not kept.
 */

export const ADAPTIVE_CARD_SCHEMA = 'http://adaptivecards.io/schemas/adaptive-card.json';
const ADAPTIVE_CARD_VERSION = '1.4';

/** Past this many lines the rest of the message shares one block, keeping the card under Teams' 28 KB. */
const MAX_LINE_BLOCKS = 100;

export function createTeamsChannel(deps: { http: ChannelHttp }): ChannelAdapter {
  return providerAdapter('teams', async (target, message) => {
    const res = await postJson(
      deps.http,
      target.webhookUrl,
      message.kind === 'alert' ? renderTeamsAlert(message) : renderTeamsPayload(message),
    );
    if ('error' in res) return { ok: false, via: 'provider', error: `Teams: ${res.error}` };
    // Workflows answer 202, legacy connectors 200 `1`; connectors report a failed relay with a 200 too.
    const failedWith200 = /^webhook message delivery failed/i.test(res.body.trim());
    if (res.status >= 200 && res.status < 300 && !failedWith200) return { ok: true, via: 'provider' };
    return {
      ok: false,
      via: 'provider',
      error: `Teams HTTP ${res.status}: ${excerpt(res.body) || 'empty answer'}`,
    };
  });
}

type CardElement = Record<string, unknown>;

/** A block of plain text: TextRuns never interpret Markdown. */
function plainBlock(text: string, spacing: string, run: Record<string, unknown> = {}): CardElement {
  return { type: 'RichTextBlock', inlines: [{ type: 'TextRun', text, ...run }], spacing };
}

function messageBlocks(body: string): CardElement[] {
  const lines = body.split('\n');
  const blocks: CardElement[] = [];
  let gap = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      gap = true;
      continue;
    }
    if (blocks.length === MAX_LINE_BLOCKS - 1) {
      // Paragraph breaks survive in Markdown; only single line breaks are lost in this last block.
      const rest = lines
        .slice(i)
        .join('\n')
        .replace(/\n{2,}/g, '\n\n');
      blocks.push(plainBlock(rest, gap ? 'Medium' : 'None'));
      break;
    }
    blocks.push(plainBlock(line, blocks.length === 0 || gap ? 'Medium' : 'None'));
    gap = false;
  }
  return blocks;
}

/** The webhook JSON: a `message` carrying one Adaptive Card 1.4. */
export function renderTeamsPayload(message: ApprovalMessage): Record<string, unknown> {
  const body = normaliseBody(message.body);
  const facts = [{ title: 'Expires', value: formatExpiry(message.expiresAt) }];
  if (message.snoozeAllowed) facts.push({ title: 'Snooze', value: 'Available on the response page' });
  // File names are the author's text: a plain block rather than a fact (fact values are Markdown too).
  const files = message.attachments.map((a) => a.filename).join(', ');
  return cardMessage(
    [
      plainBlock(headline(message), 'None', { weight: 'Bolder', size: 'Large' }),
      ...messageBlocks(body === '' ? introLine(message) : body),
      ...(files === '' ? [] : [plainBlock(`Attachments: ${files}`, 'Medium')]),
      { type: 'FactSet', facts, spacing: 'Medium' },
    ],
    [
      { type: 'Action.OpenUrl', title: message.buttons.confirm, url: message.responseUrl, style: 'positive' },
      {
        type: 'Action.OpenUrl',
        title: message.buttons.decline,
        url: message.responseUrl,
        style: 'destructive',
      },
    ],
  );
}

/** An alert as an Adaptive Card: plain-text blocks only (the rule's name and the events are never Markdown). */
export function renderTeamsAlert(message: AlertMessage): Record<string, unknown> {
  const note = alertSampleNote(message);
  return cardMessage([
    plainBlock(alertHeadline(message), 'None', { weight: 'Bolder', size: 'Large' }),
    plainBlock(alertSummary(message), 'Medium'),
    ...messageBlocks(message.lines.map((l) => `• ${l}`).join('\n')),
    ...(note ? [plainBlock(note, 'Medium', { isSubtle: true })] : []),
    plainBlock(`Alert rule ${message.ruleId}`, 'Medium', { isSubtle: true, size: 'Small' }),
  ]);
}

/** The Workflows message that carries one full-width Adaptive Card of `body` blocks (and `actions`, when given). */
function cardMessage(body: CardElement[], actions?: CardElement[]): Record<string, unknown> {
  const card = {
    $schema: ADAPTIVE_CARD_SCHEMA,
    type: 'AdaptiveCard',
    version: ADAPTIVE_CARD_VERSION,
    msteams: { width: 'Full' },
    body,
    ...(actions ? { actions } : {}),
  };
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}
