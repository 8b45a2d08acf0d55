import { CHANNEL_HTTP_TIMEOUT_MS, type ChannelHttp, excerpt } from './http.js';
import { escapeSlack, renderSlackAlert, renderSlackPayload, SLACK_ACTIONS } from './slack.js';
import type { ApprovalMessage, ChannelMessage, ChannelTarget, DeliveryReceipt } from './types.js';

/**
 * Slack app mode: approvals go through the Web API with a bot token (`SCHED_SLACK_BOT_TOKEN`), as a direct
 * message to a member (`slack:<member id>`, opened with `conversations.open`) or a post to a channel
 * (`slack_channel_id`). Its Confirm and Decline buttons carry an opaque reference, not a link: the click comes back
 * signed to `POST /integrations/slack/interactions`, and the message is then updated with the outcome.
 */

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api';

export interface SlackAppConfig {
  botToken: string;
  /** Verifies interaction requests (`X-Slack-Signature`). */
  signingSecret: string;
  /** Web API root, `https://slack.com/api` unless a proxy or a test stand-in is used. */
  apiUrl: string;
}

/** A Web API call's answer: Slack always answers 200 with `ok` and, when false, an `error` word. */
type SlackAnswer = { ok: true; [key: string]: unknown } | { ok: false; error: string };

export interface SlackWebApi {
  call(method: string, body: Record<string, unknown>): Promise<SlackAnswer>;
}

export function createSlackWebApi(config: SlackAppConfig, http: ChannelHttp): SlackWebApi {
  return {
    async call(method, body) {
      const res = await http({
        url: `${config.apiUrl}/${method}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: `Bearer ${config.botToken}`,
        },
        body: JSON.stringify(body),
        timeoutMs: CHANNEL_HTTP_TIMEOUT_MS,
      });
      if ('error' in res) return { ok: false, error: res.error };
      if (res.status === 429) return { ok: false, error: 'ratelimited' };
      try {
        const parsed = JSON.parse(res.body) as SlackAnswer;
        if (parsed.ok === true) return parsed;
        return { ok: false, error: typeof parsed.error === 'string' ? parsed.error : 'unknown_error' };
      } catch {
        return { ok: false, error: `HTTP ${res.status}: ${excerpt(res.body) || 'not JSON'}` };
      }
    },
  };
}

/** The app-mode sender the Slack adapter uses for targets without a webhook. */
export function slackAppSender(config: SlackAppConfig, http: ChannelHttp) {
  const api = createSlackWebApi(config, http);
  return (target: Extract<ChannelTarget, { channel: 'slack' }>, message: ChannelMessage) =>
    sendThroughSlackApp(api, target, message);
}

/** Sends an approval or an alert to an app-mode target: a member's direct message or a channel. */
async function sendThroughSlackApp(
  api: SlackWebApi,
  target: Extract<ChannelTarget, { channel: 'slack' }>,
  message: ChannelMessage,
): Promise<DeliveryReceipt> {
  let channel: string;
  if ('slackMemberId' in target) {
    // Opening a DM that exists answers the same conversation: safe to repeat for every message.
    const opened = await api.call('conversations.open', { users: target.slackMemberId });
    if (!opened.ok) return { ok: false, via: 'provider', error: `Slack conversations.open: ${opened.error}` };
    const id = (opened.channel as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string')
      return { ok: false, via: 'provider', error: 'Slack conversations.open: no channel' };
    channel = id;
  } else if ('slackChannelId' in target) channel = target.slackChannelId;
  else return { ok: false, via: 'provider', error: 'not a Slack app target' };
  const payload =
    message.kind === 'alert'
      ? renderSlackAlert(message)
      : renderSlackAppPayload(message, { direct: 'slackMemberId' in target });
  const posted = await api.call('chat.postMessage', { channel, ...payload });
  if (!posted.ok) return { ok: false, via: 'provider', error: `Slack chat.postMessage: ${posted.error}` };
  return {
    ok: true,
    via: 'provider',
    ...(typeof posted.ts === 'string' ? { providerMessageId: posted.ts } : {}),
  };
}

/**
 * The webhook layout with app buttons: Confirm and Decline carry the message's reference (no URL). A direct
 * message also links its recipient's page for a snooze or a comment; a channel's message does not, since anyone
 * in the channel could open it, and `slack_responders` is checked only on a click.
 */
export function renderSlackAppPayload(
  message: ApprovalMessage,
  opts: { direct: boolean },
): { text: string; blocks: Record<string, unknown>[] } {
  const base = renderSlackPayload(message);
  const reference = message.slackReference ?? '';
  const elements: Record<string, unknown>[] = [
    appButton(message.buttons.confirm, 'primary', SLACK_ACTIONS.confirm, reference),
    appButton(message.buttons.decline, 'danger', SLACK_ACTIONS.decline, reference),
  ];
  if (opts.direct) {
    elements.push({
      type: 'button',
      text: { type: 'plain_text', text: 'Snooze or comment', emoji: true },
      url: message.responseUrl,
      action_id: 'sched_open_page',
    });
  }
  const blocks = base.blocks.map((b) =>
    b.type === 'actions' ? { type: 'actions', block_id: 'sched_approval', elements } : b,
  );
  // The notification text must not carry the page link either when the message is a channel's.
  const text = opts.direct ? base.text : base.text.replace(/ <[^>|]+\|Answer>$/, '');
  return { text, blocks };
}

function appButton(label: string, style: 'primary' | 'danger', actionId: string, value: string) {
  return {
    type: 'button',
    text: { type: 'plain_text', text: label.slice(0, 75), emoji: true },
    style,
    action_id: actionId,
    value,
  };
}

/**
 * The message once decided: its blocks without the buttons, and a line saying who decided what and when
 * (`<!date^…>` shows the time in each reader's zone).
 */
export function decidedBlocks(
  original: readonly Record<string, unknown>[],
  outcome: { memberId: string; decision: 'confirm' | 'decline' | 'snooze'; at: Date; detail?: string },
): Record<string, unknown>[] {
  const verb = { confirm: ':white_check_mark: Approved', decline: ':x: Declined', snooze: ':zzz: Snoozed' }[
    outcome.decision
  ];
  const unix = Math.floor(outcome.at.getTime() / 1000);
  const when = `<!date^${unix}^{date_short_pretty} at {time}|${outcome.at.toISOString()}>`;
  const line = `${verb} by <@${outcome.memberId}> ${when}${outcome.detail ? ` · ${outcome.detail}` : ''}`;
  return [
    ...original.filter((b) => b.type !== 'actions'),
    { type: 'section', block_id: 'sched_outcome', text: { type: 'mrkdwn', text: line } },
  ];
}

/**
 * What the interaction route does in Slack after a click: the decided message replaces the one clicked
 * (chat.update), naming the member (users.info gives their name; the mention shows it anyway), and a refusal
 * is shown to the member alone (chat.postEphemeral).
 */
export function createSlackMessages(config: SlackAppConfig, http: ChannelHttp) {
  const api = createSlackWebApi(config, http);
  const fail = (method: string, answer: SlackAnswer) => {
    if (!answer.ok) throw new Error(`Slack ${method}: ${answer.error}`);
  };
  return {
    async decided(
      click: { channel: string; ts: string; blocks: Record<string, unknown>[]; text: string },
      outcome: {
        memberId: string;
        at: Date;
        outcome: { decision: 'confirm' | 'decline' | 'snooze'; approvals_needed: number | null };
      },
    ): Promise<void> {
      const info = await api.call('users.info', { user: outcome.memberId });
      const user = info.ok ? (info.user as { real_name?: unknown; name?: unknown } | undefined) : undefined;
      const name = typeof user?.real_name === 'string' ? user.real_name : undefined;
      const needed = outcome.outcome.approvals_needed;
      const detail = [
        name ? escapeSlack(name) : undefined,
        needed ? `${needed} more approval${needed === 1 ? '' : 's'} needed` : undefined,
      ]
        .filter(Boolean)
        .join(' · ');
      const blocks = decidedBlocks(click.blocks, {
        memberId: outcome.memberId,
        decision: outcome.outcome.decision,
        at: outcome.at,
        ...(detail ? { detail } : {}),
      });
      const verb = { confirm: 'Approved', decline: 'Declined', snooze: 'Snoozed' }[outcome.outcome.decision];
      fail(
        'chat.update',
        await api.call('chat.update', {
          channel: click.channel,
          ts: click.ts,
          text: `${verb} by ${name ?? outcome.memberId}: ${click.text}`.slice(0, 3000),
          blocks,
        }),
      );
    },
    async ephemeral(channel: string, memberId: string, text: string): Promise<void> {
      fail('chat.postEphemeral', await api.call('chat.postEphemeral', { channel, user: memberId, text }));
    },
  };
}
