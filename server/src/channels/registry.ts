import { DEFAULT_EMAIL_FROM, type EmailConfig, createEmailChannel } from './email.js';
import { type ChannelHttp, fetchChannelHttp } from './http.js';
import { describeTarget, renderForOutbox } from './outbox.js';
import { type PushConfig, createPushChannel } from './push.js';
import { createSlackChannel } from './slack.js';
import { DEFAULT_TWILIO_API_URL, type SmsConfig, createSmsChannel } from './sms.js';
import { createTeamsChannel } from './teams.js';
import {
  type ApprovalMessage,
  CHANNELS,
  type ChannelAdapter,
  type ChannelName,
  type ChannelTarget,
  type DeliveryReceipt,
  type Outbox,
} from './types.js';

/** Channel settings read from the environment; a channel left out is not configured and uses the outbox. */
export interface ChannelConfig {
  email?: EmailConfig;
  sms?: SmsConfig;
  push?: PushConfig;
}

/** Raised at start when channel variables are malformed or only partly set; the message names each variable. */
export class ChannelConfigError extends Error {
  override name = 'ChannelConfigError';
}

const TWILIO_VARS = ['SCHED_TWILIO_ACCOUNT_SID', 'SCHED_TWILIO_AUTH_TOKEN', 'SCHED_TWILIO_FROM'] as const;
const VAPID_VARS = ['SCHED_VAPID_PUBLIC_KEY', 'SCHED_VAPID_PRIVATE_KEY', 'SCHED_VAPID_SUBJECT'] as const;

/** The variables whose absence sends a channel to the outbox, for log lines. */
const REQUIRED_VARS: Record<ChannelName, readonly string[]> = {
  email: ['SCHED_SMTP_URL'],
  sms: TWILIO_VARS,
  push: VAPID_VARS,
  slack: [],
  teams: [],
};

/**
 * Reads the notification channel settings. An empty variable counts as unset.
 *
 * Email over SMTP:
 * - `SCHED_SMTP_URL`: the SMTP server as a URL. `smtp://user:pass@host:587` connects in clear and upgrades with
 *   STARTTLS when the server offers it; `smtps://user:pass@host:465` uses TLS from the first byte. User and
 *   password are percent-encoded. nodemailer options may follow as a query (`?pool=true`). Unset: emails are
 *   kept in the outbox.
 * - `SCHED_EMAIL_FROM`: the From header, `Name <address>` or a bare address. Default `sched <no-reply@localhost>`.
 *
 * SMS through Twilio (all three or none):
 * - `SCHED_TWILIO_ACCOUNT_SID`: the account SID (`AC...`), also the user of HTTP Basic auth.
 * - `SCHED_TWILIO_AUTH_TOKEN`: the auth token (or an API key secret paired with that SID).
 * - `SCHED_TWILIO_FROM`: the sender, an E.164 number (`+15551234567`), an alphanumeric sender id, or a Messaging
 *   Service SID (`MG...`, sent as `MessagingServiceSid`).
 * - `SCHED_TWILIO_API_URL`: base URL of the Messages API, default `https://api.twilio.com`; point it at any
 *   endpoint speaking the same `/2010-04-01/Accounts/{SID}/Messages.json` resource.
 *
 * Web Push (all three or none; `npx web-push generate-vapid-keys` makes a key pair):
 * - `SCHED_VAPID_PUBLIC_KEY`: base64url P-256 public key (65 bytes, uncompressed); browsers subscribe with it.
 * - `SCHED_VAPID_PRIVATE_KEY`: base64url P-256 private key (32 bytes).
 * - `SCHED_VAPID_SUBJECT`: contact for push services, `mailto:ops@example.com` or an `https:` URL.
 *
 * Slack and Teams need no variable: each notification channel resource carries its own incoming webhook URL.
 */
export function channelConfigFromEnv(env: NodeJS.ProcessEnv): ChannelConfig {
  const get = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const problems: string[] = [];
  const config: ChannelConfig = {};

  const smtpUrl = get('SCHED_SMTP_URL');
  const from = get('SCHED_EMAIL_FROM') ?? DEFAULT_EMAIL_FROM;
  if (!/[^\s<>@]+@[^\s<>@]+/.test(from)) problems.push('SCHED_EMAIL_FROM: must contain an email address');
  if (smtpUrl !== undefined) {
    const url = parseUrl(smtpUrl);
    if (!url || (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') || url.hostname === '') {
      problems.push(
        'SCHED_SMTP_URL: must be a URL such as smtp://user:pass@host:587 or smtps://user:pass@host:465',
      );
    } else {
      config.email = { smtpUrl, from };
    }
  }

  const twilio = TWILIO_VARS.map(get);
  const [accountSid, authToken, smsFrom] = twilio;
  const apiUrl = (get('SCHED_TWILIO_API_URL') ?? DEFAULT_TWILIO_API_URL).replace(/\/+$/, '');
  const apiParsed = parseUrl(apiUrl);
  if (!apiParsed || (apiParsed.protocol !== 'https:' && apiParsed.protocol !== 'http:')) {
    problems.push('SCHED_TWILIO_API_URL: must be an http(s) URL');
  }
  if (accountSid !== undefined && authToken !== undefined && smsFrom !== undefined) {
    config.sms = { accountSid, authToken, from: smsFrom, apiUrl };
  } else if (twilio.some((v) => v !== undefined)) {
    const missing = TWILIO_VARS.filter((_, i) => twilio[i] === undefined);
    problems.push(`${missing.join(', ')}: required when any SCHED_TWILIO_* credential is set`);
  }

  const vapid = VAPID_VARS.map(get);
  const [publicKey, privateKey, subject] = vapid;
  if (publicKey !== undefined && privateKey !== undefined && subject !== undefined) {
    const before = problems.length;
    if (!isBase64Url(publicKey) || !isP256PublicKey(Buffer.from(publicKey, 'base64url'))) {
      problems.push('SCHED_VAPID_PUBLIC_KEY: must be a base64url P-256 public key (65 bytes, uncompressed)');
    }
    if (!isBase64Url(privateKey) || Buffer.from(privateKey, 'base64url').length !== 32) {
      problems.push('SCHED_VAPID_PRIVATE_KEY: must be a base64url P-256 private key (32 bytes)');
    }
    const subjectUrl = parseUrl(subject);
    if (!subjectUrl || (subjectUrl.protocol !== 'mailto:' && subjectUrl.protocol !== 'https:')) {
      problems.push('SCHED_VAPID_SUBJECT: must be a mailto: address or an https: URL');
    }
    if (problems.length === before) config.push = { publicKey, privateKey, subject };
  } else if (vapid.some((v) => v !== undefined)) {
    const missing = VAPID_VARS.filter((_, i) => vapid[i] === undefined);
    problems.push(`${missing.join(', ')}: required when any SCHED_VAPID_* variable is set`);
  }

  if (problems.length > 0) {
    throw new ChannelConfigError(`invalid channel configuration:\n  ${problems.join('\n  ')}`);
  }
  return config;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isBase64Url(value: string): boolean {
  return /^[A-Za-z0-9_-]+={0,2}$/.test(value);
}

function isP256PublicKey(key: Buffer): boolean {
  return key.length === 65 && key[0] === 0x04;
}

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
}

/**
 * One adapter per channel. A channel whose variables are missing keeps its messages in the outbox (receipt
 * `via: 'outbox'`) and says so in a warn line the first time. Throws `ChannelConfigError` on bad variables.
 */
export function createChannels(
  env: NodeJS.ProcessEnv,
  deps: ChannelDeps,
): Record<ChannelName, ChannelAdapter> {
  const config = channelConfigFromEnv(env);
  const http = deps.http ?? fetchChannelHttp(deps.fetch);
  const provider: Partial<Record<ChannelName, ChannelAdapter>> = {
    slack: createSlackChannel({ http }),
    teams: createTeamsChannel({ http }),
  };
  if (config.email) provider.email = createEmailChannel(config.email);
  if (config.sms) provider.sms = createSmsChannel(config.sms, { http });
  if (config.push)
    provider.push = createPushChannel(config.push, deps.now ? { http, now: deps.now } : { http });

  const channels = {} as Record<ChannelName, ChannelAdapter>;
  for (const name of CHANNELS) {
    const adapter = provider[name];
    channels[name] = adapter ? guarded(adapter, deps.logger) : outboxChannel(name, deps);
  }
  deps.logger.info(
    {
      configured: CHANNELS.filter((n) => provider[n] !== undefined),
      outbox: CHANNELS.filter((n) => provider[n] === undefined),
    },
    'notification channels ready',
  );
  return channels;
}

/** Adapters answer failures with a receipt; this catches what slips through so one channel cannot break a send. */
function guarded(adapter: ChannelAdapter, logger: ChannelLogger): ChannelAdapter {
  return {
    name: adapter.name,
    configured: adapter.configured,
    async send(target: ChannelTarget, message: ApprovalMessage): Promise<DeliveryReceipt> {
      try {
        return await adapter.send(target, message);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        logger.error(
          { channel: adapter.name, actionId: message.actionId, err: error },
          'channel adapter threw',
        );
        return { ok: false, via: 'provider', error };
      }
    },
  };
}

function outboxChannel(name: ChannelName, deps: ChannelDeps): ChannelAdapter {
  let warned = false;
  return {
    name,
    configured: false,
    async send(target: ChannelTarget, message: ApprovalMessage): Promise<DeliveryReceipt> {
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
          { channel: name, actionId: message.actionId, err: error },
          'could not store in the outbox',
        );
        return { ok: false, via: 'outbox', error };
      }
      deps.logger.info(
        { channel: name, actionId: message.actionId, to: describeTarget(target), kind: message.kind },
        'approval message kept in the outbox',
      );
      return { ok: true, via: 'outbox' };
    },
  };
}
