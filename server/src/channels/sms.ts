import { providerAdapter } from './provider.js';
import { CHANNEL_HTTP_TIMEOUT_MS, type ChannelHttp, excerpt } from './http.js';
import { type AlertMessage, alertHeadline, alertSummary } from '../domain/alerts/message.js';
import { formatExpiry, headline, truncate } from './render.js';
import type { ApprovalMessage, ChannelAdapter, DeliveryReceipt } from './types.js';

/** SMS through the Twilio REST API (or any endpoint speaking the same Messages resource). */

export interface SmsConfig {
  accountSid: string;
  authToken: string;
  /** An E.164 sender number, or a Messaging Service SID (`MG...`). */
  from: string;
  /** Base URL without a trailing slash, `https://api.twilio.com` unless pointed elsewhere. */
  apiUrl: string;
}

export const DEFAULT_TWILIO_API_URL = 'https://api.twilio.com';

/** A body longer than three segments is cut: carriers bill per segment and some reassemble badly beyond. */
const SMS_MAX_SEGMENTS = 3;

export function createSmsChannel(config: SmsConfig, deps: { http: ChannelHttp }): ChannelAdapter {
  const url = `${config.apiUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${config.accountSid}:${config.authToken}`).toString('base64')}`;

  return providerAdapter('sms', async (target, message) => {
    const form = new URLSearchParams();
    form.set('To', target.phone);
    // A Messaging Service picks the sender number itself; Twilio takes it in its own field.
    if (/^MG[0-9a-f]{32}$/i.test(config.from)) form.set('MessagingServiceSid', config.from);
    else form.set('From', config.from);
    form.set('Body', message.kind === 'alert' ? renderAlertSms(message) : renderSmsBody(message));

    const res = await deps.http({
      url,
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        accept: 'application/json',
      },
      body: form.toString(),
      timeoutMs: CHANNEL_HTTP_TIMEOUT_MS,
    });
    if ('error' in res) return { ok: false, via: 'provider', error: `Twilio: ${res.error}` };
    return interpretTwilioAnswer(res.status, res.body);
  });
}

function interpretTwilioAnswer(status: number, body: string): DeliveryReceipt {
  let json: { sid?: unknown; code?: unknown; message?: unknown } | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object') json = parsed as typeof json;
  } catch {
    json = undefined;
  }
  if (status >= 200 && status < 300) {
    if (typeof json?.sid === 'string') return { ok: true, via: 'provider', providerMessageId: json.sid };
    return { ok: false, via: 'provider', error: `Twilio HTTP ${status}: answer without a message sid` };
  }
  // Twilio's error document: {"code":21211,"message":"Invalid 'To' Phone Number","more_info":...,"status":400}
  if (typeof json?.message === 'string') {
    const code = typeof json.code === 'number' || typeof json.code === 'string' ? ` ${json.code}` : '';
    return { ok: false, via: 'provider', error: `Twilio error${code} (HTTP ${status}): ${json.message}` };
  }
  return { ok: false, via: 'provider', error: `Twilio HTTP ${status}: ${excerpt(body) || 'empty answer'}` };
}

// GSM 03.38: characters of the basic table count one septet, those of the extension table two (escape + char).
const GSM_BASIC = new Set(
  Array.from(
    '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
      '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
  ),
);
const GSM_EXTENDED = new Set(Array.from('^{}\\[~]|€\f'));

/** How an SMS body is encoded and how many units it takes: septets for GSM-7, UTF-16 code units otherwise. */
export function smsEncoding(text: string): { encoding: 'gsm7' | 'ucs2'; units: number } {
  let septets = 0;
  for (const ch of text) {
    if (GSM_BASIC.has(ch)) septets += 1;
    else if (GSM_EXTENDED.has(ch)) septets += 2;
    else return { encoding: 'ucs2', units: text.length };
  }
  return { encoding: 'gsm7', units: septets };
}

/** Segments a body takes: 160/153 septets or 70/67 UCS-2 units per segment (single/concatenated). */
export function smsSegments(text: string): number {
  const { encoding, units } = smsEncoding(text);
  const single = encoding === 'gsm7' ? 160 : 70;
  const multi = encoding === 'gsm7' ? 153 : 67;
  if (units <= single) return 1;
  return Math.ceil(units / multi);
}

function maxUnits(encoding: 'gsm7' | 'ucs2', segments: number): number {
  if (segments === 1) return encoding === 'gsm7' ? 160 : 70;
  return (encoding === 'gsm7' ? 153 : 67) * segments;
}

/**
 * The SMS text: headline, the message (cut to fit), the response link and the expiry. The link and the
 * expiry are never cut; the message gives way, then the title.
 */
export function renderSmsBody(message: ApprovalMessage, maxSegments = SMS_MAX_SEGMENTS): string {
  const head = truncate(headline(message), 80);
  const tail = `${message.buttons.confirm} or ${message.buttons.decline}: ${message.responseUrl}\nExpires ${formatExpiry(message.expiresAt)}`;
  // No more than the segments can carry is ever sent: measure a bounded prefix, not a megabyte.
  const body = message.body.slice(0, 4 * maxUnits('gsm7', maxSegments)).replace(/\n+/g, '\n');
  const compose = (text: string): string => (text === '' ? `${head}\n${tail}` : `${head}\n${text}\n${tail}`);

  const full = compose(body);
  const { encoding } = smsEncoding(full);
  const limit = maxUnits(encoding, maxSegments);
  if (smsEncoding(full).units <= limit) return full;

  // GSM-7 has no `…`: using it would switch the whole text to UCS-2 and halve the room.
  const ellipsis = encoding === 'gsm7' ? '...' : '…';
  const fixed = smsEncoding(compose('')).units + 1; // +1 for the line break before the message
  let room = limit - fixed;
  let cut = room > 0 ? truncate(body, room, ellipsis) : '';
  // Extension characters and surrogate pairs count double: shrink until it fits.
  while (cut !== '' && smsEncoding(compose(cut)).units > limit) {
    room -= Math.max(1, smsEncoding(compose(cut)).units - limit);
    cut = room > Array.from(ellipsis).length ? truncate(body, room, ellipsis) : '';
  }
  return compose(cut);
}

/** An alert as an SMS: the headline, the summary and the sampled events, cut to three segments at most. */
export function renderAlertSms(message: AlertMessage, maxSegments = SMS_MAX_SEGMENTS): string {
  const text = [truncate(alertHeadline(message), 80), alertSummary(message), ...message.lines]
    .join('\n')
    .slice(0, 4 * maxUnits('gsm7', maxSegments));
  const { encoding, units } = smsEncoding(text);
  const limit = maxUnits(encoding, maxSegments);
  if (units <= limit) return text;
  const ellipsis = encoding === 'gsm7' ? '...' : '…';
  let room = limit;
  let cut = truncate(text, room, ellipsis);
  // Extension characters and surrogate pairs count double: shrink until it fits.
  while (smsEncoding(cut).units > limit && room > 1) {
    room -= Math.max(1, smsEncoding(cut).units - limit);
    cut = truncate(text, room, ellipsis);
  }
  return cut;
}
