import { signRequest } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { SchedSignatureError } from './errors.js';
import { assertWebhook, parseCallback, verifyWebhook } from './webhooks.js';

const secret = 'a-webhook-secret-of-some-length';
const now = new Date('2030-01-01T00:00:00Z');
const body = '{"a":1}';
const signed = signRequest({ secret, messageId: 'msg_1', timestamp: now.getTime() / 1000, body });

/** Only the Standard Webhooks headers, so that scheme decides. */
const standardOnly = Object.fromEntries(
  Object.entries(signed).filter(([name]) => name.toLowerCase() !== 'x-service-signature'),
);

describe('verifyWebhook', () => {
  it('accepts a plain object with any header case (X-Service-Signature v2 decides) and returns the id', () => {
    expect(verifyWebhook({ secret, headers: signed, body, now })).toEqual({
      ok: true,
      scheme: 'x-service-signature-v2',
      id: 'msg_1',
      timestamp: now.getTime() / 1000,
    });
  });

  it('accepts the old and the new secret while rotating', () => {
    expect(verifyWebhook({ secret: ['the-next-secret-0001', secret], headers: signed, body, now }).ok).toBe(
      true,
    );
    expect(verifyWebhook({ secret: ['the-next-secret-0001'], headers: signed, body, now }).ok).toBe(false);
  });

  it('accepts a v1-only request only with allowV1, without an id', () => {
    const v1Only = { 'X-Service-Signature': signed['X-Service-Signature']!.replace(/,v2=.*$/, '') };
    expect(verifyWebhook({ secret, headers: v1Only, body, now }).ok).toBe(false);
    expect(verifyWebhook({ secret, headers: v1Only, body, now, allowV1: true })).toMatchObject({
      ok: true,
      scheme: 'x-service-signature-v1',
      id: null,
    });
  });

  it('accepts a fetch Headers instance and Node-style lower-case headers', () => {
    expect(verifyWebhook({ secret, headers: new Headers(signed), body, now }).ok).toBe(true);
    const lower = Object.fromEntries(Object.entries(standardOnly).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook({ secret, headers: lower, body: Buffer.from(body), now })).toMatchObject({
      ok: true,
      scheme: 'standard-webhooks',
      id: 'msg_1',
    });
  });

  it('accepts repeated webhook-signature headers joined by a comma', () => {
    const headers = new Headers(standardOnly);
    headers.append('webhook-signature', 'v1,bm90LXRoZS1zaWduYXR1cmU=');
    expect(headers.get('webhook-signature')).toContain(', ');
    expect(verifyWebhook({ secret, headers, body, now }).ok).toBe(true);
  });

  it('refuses a changed body, a wrong secret, a stale timestamp and missing headers, with a reason', () => {
    expect(verifyWebhook({ secret, headers: signed, body: '{"a":2}', now })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
    expect(verifyWebhook({ secret: `${secret}x`, headers: signed, body, now }).ok).toBe(false);
    const later = new Date(now.getTime() + 301_000);
    expect(verifyWebhook({ secret, headers: signed, body, now: later })).toEqual({
      ok: false,
      reason: 'timestamp outside the tolerance',
    });
    expect(verifyWebhook({ secret, headers: signed, body, now: later, toleranceSeconds: 600 }).ok).toBe(true);
    expect(verifyWebhook({ secret, headers: {}, body, now })).toEqual({
      ok: false,
      reason: 'no signature headers',
    });
  });

  it('throws a TypeError for a parsed body, which can never match', () => {
    expect(() =>
      verifyWebhook({ secret, headers: signed, body: { a: 1 } as unknown as string, now }),
    ).toThrow(TypeError);
  });
});

describe('assertWebhook', () => {
  it('returns the scheme, or throws SchedSignatureError carrying the reason', () => {
    expect(assertWebhook({ secret, headers: standardOnly, body, now })).toEqual({
      scheme: 'standard-webhooks',
      id: 'msg_1',
      timestamp: now.getTime() / 1000,
    });
    const err = (() => {
      try {
        assertWebhook({ secret, headers: signed, body: 'tampered', now });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(SchedSignatureError);
    expect(err).toMatchObject({
      reason: 'signature mismatch',
      message: 'webhook signature rejected: signature mismatch',
    });
  });
});

describe('parseCallback', () => {
  const event = {
    id: '6f1d7c9e-8f4b-4a43-9d0e-2b7b0c1a9e11',
    event: 'action.failed',
    action_id: '0b9cc6b5-5d49-4a4a-9f1a-8c1f2b0e8a11',
    action_name: 'charge',
    timestamp: '2030-01-01T00:00:00.000Z',
    payload: { status: 'failed', response_code: 400, total_attempts: 1, error_message: 'HTTP 400' },
  };
  const text = JSON.stringify(event);
  const headers = signRequest({ secret, messageId: event.id, timestamp: now.getTime() / 1000, body: text });

  it('verifies a fetch Request and answers its typed event', async () => {
    const request = new Request('https://receiver.example/hooks', { method: 'POST', headers, body: text });
    const parsed = await parseCallback(request, ['the-next-secret-0001', secret], { now });
    expect(parsed).toEqual(event);
    // Typed by `event`: the failed payload has error_message.
    if (parsed.event === 'action.failed') expect(parsed.payload.error_message).toBe('HTTP 400');
    else throw new Error('expected action.failed');
  });

  it('refuses a tampered body or a wrong secret with SchedSignatureError', async () => {
    await expect(
      parseCallback({ headers, body: text.replace('400', '200') }, secret, { now }),
    ).rejects.toBeInstanceOf(SchedSignatureError);
    await expect(
      parseCallback({ headers, body: text }, 'another-secret-entirely', { now }),
    ).rejects.toMatchObject({
      reason: expect.any(String),
    });
    const notCallback = '{"a":1}';
    const signedOther = signRequest({
      secret,
      messageId: 'm',
      timestamp: now.getTime() / 1000,
      body: notCallback,
    });
    await expect(parseCallback({ headers: signedOther, body: notCallback }, secret, { now })).rejects.toThrow(
      /not a sched callback/,
    );
  });
});
