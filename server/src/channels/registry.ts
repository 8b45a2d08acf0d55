import { type EmailConfig, createEmailChannel } from './email.js';
import { type ChannelHttp, fetchChannelHttp } from './http.js';
import { describeTarget, renderForOutbox } from './outbox.js';
import { type PushConfig, createPushChannel } from './push.js';
import { createSlackChannel } from './slack.js';
import { type SlackAppConfig, slackAppSender } from './slack-app.js';
import { type SmsConfig, createSmsChannel } from './sms.js';
import { createTeamsChannel } from './teams.js';
import {
  CHANNELS,
  type ChannelAdapter,
  type ChannelMessage,
  type ChannelName,
  type ChannelTarget,
  type DeliveryReceipt,
  type Outbox,
} from './types.js';

/**
 * Channel settings, parsed and validated at start by config.ts (`Config.channels`, the variables are documented
 * there); a channel left out is not configured and uses the outbox.
 */
export interface ChannelConfig {
  email?: EmailConfig;
  sms?: SmsConfig;
  push?: PushConfig;
  /** Slack app mode (SCHED_SLACK_BOT_TOKEN, SCHED_SLACK_SIGNING_SECRET); webhook Slack channels need nothing. */
  slackApp?: SlackAppConfig;
}

/** The variables whose absence sends a channel to the outbox: for log lines, and config.ts's all-or-none rule. */
export const REQUIRED_VARS: Record<ChannelName, readonly string[]> = {
  email: ['SCHED_SMTP_URL'],
  sms: ['SCHED_TWILIO_ACCOUNT_SID', 'SCHED_TWILIO_AUTH_TOKEN', 'SCHED_TWILIO_FROM'],
  push: ['SCHED_VAPID_PUBLIC_KEY', 'SCHED_VAPID_PRIVATE_KEY', 'SCHED_VAPID_SUBJECT'],
  slack: [],
  teams: [],
};

/** pino's methods fit this shape. */
export interface ChannelLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export interface ChannelDeps {
  outbox: Outbox;
  logger: ChannelLogger;
  /** Used by the default sender when `http` is not given. */
  fetch?: typeof fetch;
  /** The sender for sms, slack, teams and push; the server passes its SSRF-guarded client. */
  http?: ChannelHttp;
  /** Clock for push TTLs; defaults to the system clock. */
  now?: () => Date;
  /**
   * Why a channel without its settings refuses its messages (production: `via: 'not_configured'`), or null where
   * it keeps them in the outbox instead (development). Unset: every such channel keeps them.
   */
  notConfigured?: (name: ChannelName) => string | null;
}

/** What a channel's adapter is built with: the sender for HTTP providers and the clock for push TTLs. */
interface AdapterDeps {
  http: ChannelHttp;
  now?: () => Date;
}

/**
 * Each channel's adapter from the channel settings, or undefined where its settings are missing: the one rule of
 * which channels this server can send with a provider. Slack and Teams need no setting (each channel resource
 * carries its webhook URL; the Slack app is optional).
 */
const PROVIDERS: Record<
  ChannelName,
  (config: ChannelConfig) => ((deps: AdapterDeps) => ChannelAdapter) | undefined
> = {
  email: ({ email }) => email && (() => createEmailChannel(email)),
  sms: ({ sms }) => sms && (({ http }) => createSmsChannel(sms, { http })),
  push: ({ push }) => push && (({ http, now }) => createPushChannel(push, now ? { http, now } : { http })),
  slack:
    ({ slackApp }) =>
    ({ http }) =>
      createSlackChannel(slackApp ? { http, app: slackAppSender(slackApp, http) } : { http }),
  teams:
    () =>
    ({ http }) =>
      createTeamsChannel({ http }),
};

/** The channels whose settings are present (the rest use the outbox, or refuse in production). */
export function configuredChannels(config: ChannelConfig): ReadonlySet<ChannelName> {
  return new Set(CHANNELS.filter((name) => PROVIDERS[name](config) !== undefined));
}

/**
 * One adapter per channel. A channel whose variables are missing keeps its messages in the outbox (receipt
 * `via: 'outbox'`) and says so in a warn line the first time.
 */
export function createChannels(
  config: ChannelConfig,
  deps: ChannelDeps,
): Record<ChannelName, ChannelAdapter> {
  const adapterDeps: AdapterDeps = { http: deps.http ?? fetchChannelHttp(deps.fetch) };
  if (deps.now) adapterDeps.now = deps.now;
  const provider: Partial<Record<ChannelName, ChannelAdapter>> = {};
  for (const name of CHANNELS) {
    const adapter = PROVIDERS[name](config)?.(adapterDeps);
    if (adapter) provider[name] = adapter;
  }

  const channels = {} as Record<ChannelName, ChannelAdapter>;
  const unset = CHANNELS.filter((n) => provider[n] === undefined);
  let refused = false;
  for (const name of CHANNELS) {
    const adapter = provider[name];
    const refusal = adapter ? null : (deps.notConfigured?.(name) ?? null);
    if (refusal) refused = true;
    channels[name] = adapter
      ? guarded(adapter, deps.logger)
      : refusal !== null
        ? notConfiguredChannel(name, refusal, deps.logger)
        : outboxChannel(name, deps);
  }
  deps.logger.info(
    { configured: CHANNELS.filter((n) => provider[n] !== undefined), outbox: unset },
    refused
      ? `notification channels ready; ${unset.join(', ')} not configured: approvals using only those are refused, and their messages are recorded as not sent`
      : unset.length > 0
        ? `notification channels ready; messages of ${unset.join(', ')} are kept in the outbox (not sent): read them with \`sched outbox list\`, or GET /v1/outbox on a development server`
        : 'notification channels ready',
  );
  return channels;
}

/** Adapters answer failures with a receipt; this catches what slips through so one channel cannot break a send. */
function guarded(adapter: ChannelAdapter, logger: ChannelLogger): ChannelAdapter {
  return {
    name: adapter.name,
    configured: adapter.configured,
    async send(target: ChannelTarget, message: ChannelMessage): Promise<DeliveryReceipt> {
      try {
        return await adapter.send(target, message);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        logger.error({ channel: adapter.name, ...subjectOf(message), err: error }, 'channel adapter threw');
        return { ok: false, via: 'provider', error };
      }
    },
  };
}

/** Production without the channel's settings: nothing is sent or kept, and the receipt says why. */
function notConfiguredChannel(name: ChannelName, error: string, logger: ChannelLogger): ChannelAdapter {
  return {
    name,
    configured: false,
    async send(_target: ChannelTarget, message: ChannelMessage): Promise<DeliveryReceipt> {
      logger.warn({ channel: name, ...subjectOf(message) }, `message not sent: ${error}`);
      return { ok: false, via: 'not_configured', error };
    },
  };
}

function outboxChannel(name: ChannelName, deps: ChannelDeps): ChannelAdapter {
  let warned = false;
  return {
    name,
    configured: false,
    async send(target: ChannelTarget, message: ChannelMessage): Promise<DeliveryReceipt> {
      if (!warned) {
        warned = true;
        const vars = REQUIRED_VARS[name];
        deps.logger.warn(
          { channel: name, missing: vars },
          `${name} channel is not configured (set ${vars.join(', ')}): its messages are kept in the outbox`,
        );
      }
      try {
        await deps.outbox.store({
          channel: name,
          target,
          message,
          rendered: renderForOutbox(name, message, target),
        });
      } catch (err) {
        const error = `outbox: ${err instanceof Error ? err.message : String(err)}`;
        deps.logger.error(
          { channel: name, ...subjectOf(message), err: error },
          'could not store in the outbox',
        );
        return { ok: false, via: 'outbox', error };
      }
      deps.logger.info(
        { channel: name, ...subjectOf(message), to: describeTarget(target), kind: message.kind },
        `${message.kind === 'alert' ? 'alert' : 'approval message'} kept in the outbox`,
      );
      return { ok: true, via: 'outbox' };
    },
  };
}

/** What a message is about, for log lines: an approval's action or an alert's rule. */
function subjectOf(message: ChannelMessage): { actionId: string } | { alertRuleId: string } {
  return message.kind === 'alert' ? { alertRuleId: message.ruleId } : { actionId: message.actionId };
}
