import { postJson, providerAdapter } from './provider.js';
import { type ChannelHttp, excerpt } from './http.js';
import { type AlertMessage, alertHeadline, alertSampleNote, alertSummary } from '../domain/alerts/message.js';
import { attachmentsLine, formatExpiry, headline, introLine, snoozeLine, truncate } from './render.js';
import type {
  ApprovalMessage,
  ChannelAdapter,
  ChannelMessage,
  ChannelTarget,
  DeliveryReceipt,
} from './types.js';

/** Slack through an incoming webhook: a Block Kit message whose buttons open the response page. */

/** Block Kit limits: header text 150, section text 3000, button text 75, actions per message 50 blocks. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const BUTTON_TEXT_MAX = 75;

/** Button action ids, the same in webhook and app mode: the interaction endpoint reads the decision from them. */
export const SLACK_ACTIONS = Object.freeze({
  confirm: 'sched_confirm',
  decline: 'sched_decline',
} as const);

/** `app`: the app-mode sender (slack-app.ts) for targets without a webhook, when the Slack app is configured. */
export function createSlackChannel(deps: {
  http: ChannelHttp;
  app?: (target: ChannelTarget & { channel: 'slack' }, message: ChannelMessage) => Promise<DeliveryReceipt>;
}): ChannelAdapter {
  return providerAdapter('slack', async (target, message) => {
    if (!('webhookUrl' in target)) {
      if (!deps.app)
        return {
          ok: false,
          via: 'provider',
          error:
            'Slack app mode is not configured (set SCHED_SLACK_BOT_TOKEN and SCHED_SLACK_SIGNING_SECRET)',
        };
      return deps.app(target, message);
    }
    const res = await postJson(
      deps.http,
      target.webhookUrl,
      message.kind === 'alert' ? renderSlackAlert(message) : renderSlackPayload(message),
    );
    if ('error' in res) return { ok: false, via: 'provider', error: `Slack: ${res.error}` };
    // Slack answers 200 `ok`; errors are short words such as `invalid_payload`, `no_service`, `channel_is_archived`.
    if (res.status >= 200 && res.status < 300) return { ok: true, via: 'provider' };
    return {
      ok: false,
      via: 'provider',
      error: `Slack HTTP ${res.status}: ${excerpt(res.body) || 'empty answer'}`,
    };
  });
}

/** Slack's mrkdwn treats `&`, `<` and `>` as control characters; everything else is shown as typed. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escaped `text` split into pieces of at most `max` characters, never inside an entity or a surrogate pair. */
function escapedChunks(text: string, max: number): string[] {
  const escaped = escapeSlack(text);
  const chunks: string[] = [];
  let start = 0;
  while (start < escaped.length) {
    let end = Math.min(start + max, escaped.length);
    if (end < escaped.length) {
      // An entity is at most 5 characters: look for an unfinished one in the last four before the cut.
      const tail = escaped.slice(Math.max(start, end - 4), end);
      const amp = tail.lastIndexOf('&');
      if (amp >= 0 && !tail.includes(';', amp)) end -= tail.length - amp;
      const code = escaped.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    chunks.push(escaped.slice(start, end));
    start = end;
  }
  return chunks;
}

function slackDate(date: Date): string {
  // Shown in each reader's own time zone; the text after `|` is the fallback.
  const unix = Math.floor(date.getTime() / 1000);
  return `<!date^${unix}^{date_short_pretty} at {time}|${formatExpiry(date)}>`;
}

/** The webhook JSON: fallback `text` for notifications plus the Block Kit layout. */
export function renderSlackPayload(message: ApprovalMessage): {
  text: string;
  blocks: Record<string, unknown>[];
} {
  const body = message.body;
  const sections = escapedChunks(body === '' ? introLine(message) : body, SECTION_MAX).map((text) => ({
    type: 'section',
    text: { type: 'mrkdwn', text },
  }));
  const context = [`Expires ${slackDate(message.expiresAt)}`];
  const snooze = snoozeLine(message);
  if (snooze) context.push(escapeSlack(snooze));
  const attachments = attachmentsLine(message);
  if (attachments) context.push(escapeSlack(attachments));

  const blocks: Record<string, unknown>[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(headline(message), HEADER_MAX), emoji: true },
    },
    ...sections,
    { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) },
    {
      type: 'actions',
      block_id: 'sched_approval',
      elements: [
        button(message.buttons.confirm, message.responseUrl, 'primary', SLACK_ACTIONS.confirm, 'confirm'),
        button(message.buttons.decline, message.responseUrl, 'danger', SLACK_ACTIONS.decline, 'decline'),
      ],
    },
  ];
  const preview = body === '' ? '' : `: ${escapeSlack(truncate(body.replace(/\s+/g, ' '), 200))}`;
  const text = `${escapeSlack(headline(message))}${preview} <${message.responseUrl}|Answer>`;
  return { text, blocks };
}

function button(
  label: string,
  url: string,
  style: 'primary' | 'danger',
  actionId: string,
  value: string,
): Record<string, unknown> {
  return {
    type: 'button',
    text: { type: 'plain_text', text: truncate(label, BUTTON_TEXT_MAX), emoji: true },
    url,
    style,
    action_id: actionId,
    value,
  };
}

/** An alert as Block Kit: the headline, the summary, one line per sampled event. No buttons: nothing to answer. */
export function renderSlackAlert(message: AlertMessage): { text: string; blocks: Record<string, unknown>[] } {
  const note = alertSampleNote(message);
  const lines = message.lines.map((l) => `• ${l}`).join('\n');
  const blocks: Record<string, unknown>[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: truncate(alertHeadline(message), HEADER_MAX), emoji: true },
    },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: escapedChunks(alertSummary(message), SECTION_MAX)[0] ?? '' },
    },
    ...escapedChunks(lines, SECTION_MAX).map((text) => ({ type: 'section', text: { type: 'mrkdwn', text } })),
    {
      type: 'context',
      elements: [note, `alert rule ${message.ruleId}`]
        .filter((t): t is string => t !== undefined)
        .map((t) => ({ type: 'mrkdwn', text: escapeSlack(t) })),
    },
  ];
  return { text: escapeSlack(`${alertHeadline(message)}: ${alertSummary(message)}`), blocks };
}
