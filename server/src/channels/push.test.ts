import { createECDH, createPublicKey, type ECDH, randomBytes, verify } from 'node:crypto';
import { createRequire } from 'node:module';
import webPush from 'web-push';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchChannelHttp } from './http.js';
import {
  createPushChannel,
  PUSH_PAYLOAD_MAX_BYTES,
  type PushPayload,
  pushTtlSeconds,
  renderPushPayload,
} from './push.js';
import { type LoopbackReceiver, sampleApprovalMessage, startLoopbackReceiver } from './testing.js';
import type { PushSubscription } from './types.js';

// http_ece ships no types; only its decrypt is needed, with the browser's side of the keys.
const ece = createRequire(import.meta.url)('http_ece') as {
  decrypt(buffer: Buffer, params: { version: 'aes128gcm'; privateKey: ECDH; authSecret: string }): Buffer;
};

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** What a browser holds for one subscription: its P-256 key pair and auth secret. */
function browserSubscription(endpoint: string): { subscription: PushSubscription; ecdh: ECDH; auth: string } {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16).toString('base64url');
  return {
    subscription: { endpoint, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth } },
    ecdh,
    auth,
  };
}

/** Checks a VAPID JWT (RFC 8292) the way a push service does: ES256 over header.payload with key `k`. */
function verifyVapid(
  authorization: string,
  expectedAudience: string,
): { sub: string; exp: number; aud: string } {
  const match = /^vapid t=([^,]+),\s*k=(.+)$/.exec(authorization);
  if (!match) throw new Error(`not a vapid authorization: ${authorization}`);
  const [, jwt = '', k = ''] = match;
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const raw = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: raw.subarray(1, 33).toString('base64url'),
      y: raw.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!ok) throw new Error('bad VAPID signature');
  expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ typ: 'JWT', alg: 'ES256' });
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
    sub: string;
    exp: number;
    aud: string;
  };
  expect(claims.aud).toBe(expectedAudience);
  return claims;
}

describe('push channel (Web Push)', () => {
  it('sends an aes128gcm-encrypted payload with VAPID, TTL until expiry and high urgency', async () => {
    const vapid = webPush.generateVAPIDKeys();
    const push = await startLoopbackReceiver(() => ({ status: 201, headers: { location: '/m/1' } }));
    receivers.push(push);
    const browser = browserSubscription(`${push.origin}/wpush/v2/gAAAAABsubscription`);
    const now = new Date('2030-01-07T12:30:00.000Z');
    const channel = createPushChannel(
      { ...vapid, subject: 'mailto:ops@sched.test' },
      { http: fetchChannelHttp(), now: () => now },
    );
    const message = sampleApprovalMessage();

    const receipt = await channel.send({ channel: 'push', subscription: browser.subscription }, message);

    expect(receipt).toEqual({ ok: true, via: 'provider' });
    const req = push.requests[0] ?? expect.unreachable();
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/wpush/v2/gAAAAABsubscription');
    expect(req.headers['content-encoding']).toBe('aes128gcm');
    expect(req.headers['content-type']).toBe('application/octet-stream');
    expect(req.headers.ttl).toBe('86400'); // one day until expiresAt
    expect(req.headers.urgency).toBe('high');
    expect(req.headers.topic).toBe(message.actionId.replace(/-/g, ''));
    expect(Number(req.headers['content-length'])).toBe(req.body.length);

    const claims = verifyVapid(String(req.headers.authorization), push.origin);
    expect(claims.sub).toBe('mailto:ops@sched.test');
    expect(String(req.headers.authorization)).toContain(`k=${vapid.publicKey}`);

    // aes128gcm header: 16-byte salt, 4-byte record size, key id = the sender's 65-byte ephemeral key.
    expect(req.body[20]).toBe(65);
    const plaintext = ece.decrypt(req.body, {
      version: 'aes128gcm',
      privateKey: browser.ecdh,
      authSecret: browser.auth,
    });
    const payload = JSON.parse(plaintext.toString('utf8')) as PushPayload;
    expect(payload).toEqual({
      title: 'Approval needed: Deploy release 4.2',
      body: 'Please approve the deploy.\nIt touches <script>alert(1)</script> & billing.',
      url: message.responseUrl,
      answerUrl: message.responseUrl,
      actions: [
        { action: 'confirm', title: message.buttons.confirm },
        { action: 'decline', title: message.buttons.decline },
      ],
      actionId: message.actionId,
      expiresAt: '2030-01-08T12:30:00.000Z',
      kind: 'request',
    });
  });

  it('reports a subscription the push service no longer knows', async () => {
    const vapid = webPush.generateVAPIDKeys();
    const push = await startLoopbackReceiver((req) => ({ status: req.url.endsWith('/gone') ? 410 : 404 }));
    receivers.push(push);
    const channel = createPushChannel(
      { ...vapid, subject: 'https://sched.test/contact' },
      { http: fetchChannelHttp() },
    );
    for (const path of ['/gone', '/unknown']) {
      const { subscription } = browserSubscription(`${push.origin}${path}`);
      const receipt = await channel.send({ channel: 'push', subscription }, sampleApprovalMessage());
      expect(receipt).toEqual({ ok: false, via: 'provider', error: 'subscription expired' });
    }
  });

  it('reports other push service errors and malformed subscriptions', async () => {
    const vapid = webPush.generateVAPIDKeys();
    const push = await startLoopbackReceiver(() => ({ status: 429, body: 'slow down' }));
    receivers.push(push);
    const channel = createPushChannel(
      { ...vapid, subject: 'mailto:ops@sched.test' },
      { http: fetchChannelHttp() },
    );
    const { subscription } = browserSubscription(`${push.origin}/x`);
    const limited = await channel.send({ channel: 'push', subscription }, sampleApprovalMessage());
    expect(limited).toEqual({ ok: false, via: 'provider', error: 'push service HTTP 429: slow down' });

    const broken = await channel.send(
      {
        channel: 'push',
        subscription: { endpoint: `${push.origin}/y`, keys: { p256dh: 'AAAA', auth: 'BBBB' } },
      },
      sampleApprovalMessage(),
    );
    expect(broken.ok).toBe(false);
    expect(broken.error).toMatch(/^push: /);
    expect(push.requests).toHaveLength(1);
  });
});

describe('renderPushPayload', () => {
  it('keeps the JSON under the payload budget, cutting only the body', () => {
    const message = sampleApprovalMessage({ body: 'é"\n'.repeat(1700) });
    const payload = renderPushPayload(message);
    expect(Buffer.byteLength(JSON.stringify(payload), 'utf8')).toBeLessThanOrEqual(PUSH_PAYLOAD_MAX_BYTES);
    expect(payload.body.endsWith('…')).toBe(true);
    expect(payload.url).toBe(message.responseUrl);
  });

  it('gives a TTL of the time left, never negative, at most four weeks', () => {
    const now = new Date('2030-01-01T00:00:00Z');
    expect(pushTtlSeconds(new Date('2030-01-01T01:00:00Z'), now)).toBe(3600);
    expect(pushTtlSeconds(new Date('2029-12-31T00:00:00Z'), now)).toBe(0);
    expect(pushTtlSeconds(new Date('2031-01-01T00:00:00Z'), now)).toBe(28 * 24 * 3600);
  });
});
