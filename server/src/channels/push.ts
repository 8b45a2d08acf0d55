import { providerAdapter } from './provider.js';
import type webPush from 'web-push';
import { CHANNEL_HTTP_TIMEOUT_MS, type ChannelHttp, excerpt } from './http.js';
import { headline, truncateUtf8 } from './render.js';
import type { ApprovalMessage, ChannelAdapter, DeliveryReceipt } from './types.js';

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payload encryption (RFC 8291). `web-push` builds the
 * encrypted request; it is sent through the injected sender, so push endpoints (which browsers choose, not the
 * operator) pass the same destination guard as webhooks.
 */

export interface PushConfig {
  /** VAPID public key, base64url of the uncompressed P-256 point (65 bytes). */
  publicKey: string;
  /** VAPID private key, base64url of the 32-byte P-256 scalar. */
  privateKey: string;
  /** Contact for push services: `mailto:ops@example.com` or an `https:` URL. */
  subject: string;
}

/**
 * What the service worker receives. `actions` are the notification's buttons: the service worker answers them
 * by posting `{ decision, via: "push" }` to `answerUrl` (the page's JSON answer) without opening the page; a tap
 * on the notification itself opens `url` (to snooze or comment). docs/push-service-worker.js does both.
 */
export interface PushPayload {
  title: string;
  body: string;
  url: string;
  answerUrl: string;
  actions: { action: 'confirm' | 'decline'; title: string }[];
  actionId: string;
  expiresAt: string;
  kind: ApprovalMessage['kind'];
}

/** Push services accept about 4 KB of ciphertext; the JSON stays well below. */
export const PUSH_PAYLOAD_MAX_BYTES = 3000;

/** Push services keep an undelivered message at most four weeks. */
const MAX_TTL_SECONDS = 28 * 24 * 3600;

export function createPushChannel(
  config: PushConfig,
  deps: { http: ChannelHttp; now?: () => Date },
): ChannelAdapter {
  const now = deps.now ?? (() => new Date());
  const vapidDetails = {
    subject: config.subject,
    publicKey: config.publicKey,
    privateKey: config.privateKey,
  };

  return providerAdapter('push', async (target, message) => {
    // Alert rules have no push channel (docs/alerts.md): a push is an approval's, with its response link.
    if (message.kind === 'alert') return { ok: false, via: 'provider', error: 'push carries approvals only' };
    let details: ReturnType<typeof webPush.generateRequestDetails>;
    try {
      // web-push (about 15 MiB of a process's memory) is loaded by the first push sent, not by every process.
      const { default: push } = await import('web-push');
      details = push.generateRequestDetails(target.subscription, JSON.stringify(renderPushPayload(message)), {
        vapidDetails,
        TTL: pushTtlSeconds(message.expiresAt, now()),
        urgency: 'high',
        contentEncoding: 'aes128gcm',
        ...topicFor(message.actionId),
      });
    } catch (err) {
      return {
        ok: false,
        via: 'provider',
        error: `push: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(details.headers)) {
      // The sender frames the body itself.
      if (name.toLowerCase() !== 'content-length' && value !== undefined) headers[name] = String(value);
    }
    const res = await deps.http({
      url: details.endpoint,
      method: 'POST',
      headers,
      body: details.body ?? '',
      timeoutMs: CHANNEL_HTTP_TIMEOUT_MS,
    });
    if ('error' in res) return { ok: false, via: 'provider', error: `push: ${res.error}` };
    return interpretPushAnswer(res.status, res.body);
  });
}

function interpretPushAnswer(status: number, body: string): DeliveryReceipt {
  if (status >= 200 && status < 300) return { ok: true, via: 'provider' };
  // RFC 8030 section 7.3: the subscription is gone for good; the caller should forget it.
  if (status === 404 || status === 410) return { ok: false, via: 'provider', error: 'subscription expired' };
  if (status === 413) return { ok: false, via: 'provider', error: 'push payload too large' };
  return {
    ok: false,
    via: 'provider',
    error: `push service HTTP ${status}: ${excerpt(body) || 'empty answer'}`,
  };
}

/** Seconds until the request expires: a notification arriving after that would only lead to a 410 page. */
export function pushTtlSeconds(expiresAt: Date, now: Date): number {
  return Math.min(MAX_TTL_SECONDS, Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000)));
}

/** One topic per action: a reminder or escalation replaces an older notification still queued for the device. */
function topicFor(actionId: string): { topic?: string } {
  const topic = actionId.replace(/-/g, '');
  return /^[A-Za-z0-9_-]{1,32}$/.test(topic) ? { topic } : {};
}

export function renderPushPayload(message: ApprovalMessage): PushPayload {
  const payload: PushPayload = {
    title: truncateUtf8(headline(message), 200),
    body: '',
    url: message.responseUrl,
    answerUrl: message.responseUrl,
    actions: [
      { action: 'confirm', title: truncateUtf8(message.buttons.confirm, 60) },
      { action: 'decline', title: truncateUtf8(message.buttons.decline, 60) },
    ],
    actionId: message.actionId,
    expiresAt: message.expiresAt.toISOString(),
    kind: message.kind,
  };
  const body = message.body;
  let budget = PUSH_PAYLOAD_MAX_BYTES - Buffer.byteLength(JSON.stringify(payload), 'utf8');
  // JSON escapes (\n, \", control characters) grow the text: shrink until the whole document fits.
  for (;;) {
    payload.body = budget > 0 ? truncateUtf8(body, budget) : '';
    const over = Buffer.byteLength(JSON.stringify(payload), 'utf8') - PUSH_PAYLOAD_MAX_BYTES;
    if (over <= 0 || payload.body === '') return payload;
    budget -= over;
  }
}
