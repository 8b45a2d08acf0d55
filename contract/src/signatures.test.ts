import { execFileSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { ActionCreateBody } from './schemas/action.js';
import {
  serviceSignature,
  serviceSignatureV2,
  type SignedBody,
  signRequest,
  standardWebhooksKey,
  standardWebhooksSignature,
  verifySignature,
  whsecSecretProblem,
} from './signatures.js';

const secret = 'my-webhook-secret-0123';
const whsec = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body = JSON.stringify({ event: 'action.executed', payload: { note: 'caf\u00e9 \u2713' } });
const timestamp = 1_777_975_200; // 2026-05-05T10:00:00Z
const now = new Date(timestamp * 1000);
const messageId = 'msg_2f1c7e0a';

function openssl(args: string[], input: string): Buffer {
  return execFileSync('openssl', ['dgst', '-sha256', ...args], { input });
}

describe('signRequest', () => {
  const headers = signRequest({ secret, messageId, timestamp, body });

  it('returns the four headers', () => {
    expect(Object.keys(headers).sort()).toEqual([
      'X-Service-Signature',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(headers['webhook-id']).toBe(messageId);
    expect(headers['webhook-timestamp']).toBe(String(timestamp));
    expect(headers['X-Service-Signature']).toMatch(/^t=1777975200,v1=[0-9a-f]{64},v2=[0-9a-f]{64}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('matches an independent openssl HMAC for X-Service-Signature v1 and v2', () => {
    const hex = (message: string) => openssl(['-hmac', secret], message).toString().trim().split('= ').pop();
    const v1 = hex(`${timestamp}.${body}`);
    const v2 = hex(`${messageId}.${timestamp}.${body}`);
    expect(headers['X-Service-Signature']).toBe(`t=${timestamp},v1=${v1},v2=${v2}`);
  });

  it('matches an independent openssl HMAC for webhook-signature (raw and whsec secrets)', () => {
    const raw = openssl(['-hmac', secret, '-binary'], `${messageId}.${timestamp}.${body}`).toString('base64');
    expect(headers['webhook-signature']).toBe(`v1,${raw}`);

    const keyHex = Buffer.from(whsec.slice('whsec_'.length), 'base64').toString('hex');
    const mac = openssl(
      ['-mac', 'HMAC', '-macopt', `hexkey:${keyHex}`, '-binary'],
      `${messageId}.${timestamp}.${body}`,
    );
    expect(signRequest({ secret: whsec, messageId, timestamp, body })['webhook-signature']).toBe(
      `v1,${mac.toString('base64')}`,
    );
  });

  it('signs bytes and strings alike', () => {
    expect(signRequest({ secret, messageId, timestamp, body: Buffer.from(body) })).toEqual(headers);
  });

  it("keeps each secret's keys for the next request, unharmed by a caller and past the cache's bound", () => {
    const first = signRequest({ secret: whsec, messageId, timestamp, body });
    // A caller writing to the key it was given does not reach the one kept.
    standardWebhooksKey(whsec).fill(0);
    expect(Buffer.from(standardWebhooksKey(whsec)).toString('base64')).toBe(whsec.slice('whsec_'.length));
    expect(signRequest({ secret: whsec, messageId, timestamp, body })).toEqual(first);
    // More secrets than are kept: the cache empties and prepares them again, with the same signatures.
    for (let i = 0; i < 1100; i++) signRequest({ secret: `${secret}-${i}`, messageId, timestamp, body });
    expect(signRequest({ secret: whsec, messageId, timestamp, body })).toEqual(first);
    expect(signRequest({ secret, messageId, timestamp, body })).toEqual(headers);
  });

  it('refuses an empty secret', () => {
    expect(() => signRequest({ secret: '', messageId, timestamp, body })).toThrow();
    expect(() => signRequest({ secret: [], messageId, timestamp, body })).toThrow();
    expect(() => signRequest({ secret: [secret, ''], messageId, timestamp, body })).toThrow();
  });
});

describe('interoperability with the standardwebhooks package', () => {
  const realNow = Math.floor(Date.now() / 1000);

  it('standardwebhooks verifies our headers (raw secret)', () => {
    const headers = signRequest({ secret, messageId, timestamp: realNow, body });
    expect(new Webhook(secret, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('standardwebhooks verifies our headers (whsec secret)', () => {
    const headers = signRequest({ secret: whsec, messageId, timestamp: realNow, body });
    expect(new Webhook(whsec).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("standardwebhooks verifies a rotation overlap's two signatures with either secret", () => {
    const headers = signRequest({ secret: [whsec, secret], messageId, timestamp: realNow, body });
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(whsec).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(secret, { format: 'raw' }).verify(body, headers)).toEqual(JSON.parse(body));
    const one = signRequest({ secret: whsec, messageId, timestamp: realNow, body });
    // The first entries are the first secret's, as signed alone.
    expect(headers['webhook-signature']!.startsWith(one['webhook-signature']!)).toBe(true);
    expect(headers['X-Service-Signature']!.startsWith(one['X-Service-Signature']!)).toBe(true);
    for (const key of [whsec, secret]) {
      expect(verifySignature({ secret: key, headers, body, now: new Date(realNow * 1000) })).toMatchObject({
        ok: true,
        scheme: 'x-service-signature-v2',
      });
    }
    expect(verifySignature({ secret: 'another-secret-0123', headers, body }).ok).toBe(false);
  });

  it('standardwebhooks rejects a tampered body', () => {
    const headers = signRequest({ secret, messageId, timestamp: realNow, body });
    expect(() => new Webhook(secret, { format: 'raw' }).verify(`${body} `, headers)).toThrow();
  });

  it('we verify what standardwebhooks signs', () => {
    for (const [key, hook] of [
      [whsec, new Webhook(whsec)],
      [secret, new Webhook(secret, { format: 'raw' })],
    ] as const) {
      const signature = hook.sign(messageId, now, body);
      const headers = {
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      };
      expect(verifySignature({ secret: key, headers, body, now })).toEqual({
        ok: true,
        scheme: 'standard-webhooks',
        id: messageId,
        timestamp,
      });
    }
  });
});

describe('verifySignature', () => {
  const headers = signRequest({ secret, messageId, timestamp, body });
  const standardOnly = {
    'webhook-id': headers['webhook-id'],
    'webhook-timestamp': headers['webhook-timestamp'],
    'webhook-signature': headers['webhook-signature'],
  };
  const serviceOnly = {
    'x-service-signature': headers['X-Service-Signature'],
    'webhook-id': headers['webhook-id'],
  };
  const v1Header = headers['X-Service-Signature']!.replace(/,v2=.*$/, '');
  const v1Only = { 'x-service-signature': v1Header };

  it('accepts all headers, preferring X-Service-Signature v2, and returns the authenticated id', () => {
    expect(verifySignature({ secret, headers, body, now })).toEqual({
      ok: true,
      scheme: 'x-service-signature-v2',
      id: messageId,
      timestamp,
    });
  });

  it('accepts either scheme alone, with header names in any case', () => {
    expect(verifySignature({ secret, headers: serviceOnly, body, now })).toMatchObject({
      ok: true,
      scheme: 'x-service-signature-v2',
    });
    expect(verifySignature({ secret, headers: standardOnly, body, now })).toEqual({
      ok: true,
      scheme: 'standard-webhooks',
      id: messageId,
      timestamp,
    });
    const upper = {
      'WEBHOOK-ID': messageId,
      'Webhook-Timestamp': String(timestamp),
      'Webhook-Signature': headers['webhook-signature'],
    };
    expect(verifySignature({ secret, headers: upper, body, now }).ok).toBe(true);
  });

  it('accepts a body given as bytes', () => {
    expect(verifySignature({ secret, headers, body: new TextEncoder().encode(body), now }).ok).toBe(true);
  });

  it('rejects a tampered body, a wrong secret, another message id', () => {
    expect(verifySignature({ secret, headers, body: body.replace('executed', 'failed'), now })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
    expect(verifySignature({ secret: 'other', headers, body, now })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
    expect(
      verifySignature({ secret, headers: { ...standardOnly, 'webhook-id': 'msg_other' }, body, now }),
    ).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
  });

  it('does not let a good Standard Webhooks or v1 signature rescue a bad v2', () => {
    const bad = { ...headers, 'X-Service-Signature': `${v1Header},v2=${'0'.repeat(64)}` };
    expect(verifySignature({ secret, headers: bad, body, now, allowV1: true })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
  });

  it('binds v2 to the webhook-id: a captured request replayed under a fresh id is refused', () => {
    const replay = { ...serviceOnly, 'webhook-id': `${messageId}-replay` };
    expect(verifySignature({ secret, headers: replay, body, now })).toEqual({
      ok: false,
      reason: 'signature mismatch',
    });
    expect(
      verifySignature({
        secret,
        headers: { 'x-service-signature': headers['X-Service-Signature'] },
        body,
        now,
      }),
    ).toEqual({ ok: false, reason: 'X-Service-Signature v2 needs the webhook-id header' });
    // An empty GET body signed under one id does not authenticate another id either.
    const get = signRequest({ secret, messageId: 'a.0', timestamp, body: '' });
    expect(verifySignature({ secret, headers: { ...get, 'webhook-id': 'b.0' }, body: '', now }).ok).toBe(
      false,
    );
    // Shifting bytes between the id and the timestamp never yields a fresh signed timestamp.
    expect(verifySignature({ secret, headers: { ...get, 'webhook-id': 'a' }, body: '', now }).ok).toBe(false);
  });

  it('refuses a v1-only request (v2 stripped) unless allowV1 is set for the transition', () => {
    expect(verifySignature({ secret, headers: v1Only, body, now })).toEqual({
      ok: false,
      reason: 'X-Service-Signature has only v1, which does not cover webhook-id (allowV1 accepts it)',
    });
    expect(verifySignature({ secret, headers: v1Only, body, now, allowV1: true })).toEqual({
      ok: true,
      scheme: 'x-service-signature-v1',
      id: null,
      timestamp,
    });
    expect(verifySignature({ secret, headers: v1Only, body: `${body} `, now, allowV1: true }).ok).toBe(false);
    // With the Standard Webhooks headers beside it, those decide (they cover the id).
    expect(verifySignature({ secret, headers: { ...standardOnly, ...v1Only }, body, now }).ok).toBe(true);
  });

  it('accepts any of several secrets (rotation) for every scheme', () => {
    const secrets = ['the-new-secret-4567', secret];
    for (const h of [headers, standardOnly]) {
      expect(verifySignature({ secret: secrets, headers: h, body, now }).ok).toBe(true);
      expect(
        verifySignature({ secret: ['the-new-secret-4567', 'x'.repeat(20)], headers: h, body, now }),
      ).toEqual({
        ok: false,
        reason: 'signature mismatch',
      });
    }
    expect(verifySignature({ secret: secrets, headers: v1Only, body, now, allowV1: true }).ok).toBe(true);
    expect(verifySignature({ secret: [], headers, body, now })).toEqual({
      ok: false,
      reason: 'empty secret',
    });
  });

  it('rejects replays outside the tolerance, both ways, for both schemes', () => {
    for (const h of [serviceOnly, standardOnly]) {
      expect(verifySignature({ secret, headers: h, body, now: new Date((timestamp + 300) * 1000) }).ok).toBe(
        true,
      );
      expect(verifySignature({ secret, headers: h, body, now: new Date((timestamp + 301) * 1000) })).toEqual({
        ok: false,
        reason: 'timestamp outside the tolerance',
      });
      expect(verifySignature({ secret, headers: h, body, now: new Date((timestamp - 301) * 1000) }).ok).toBe(
        false,
      );
      expect(
        verifySignature({
          secret,
          headers: h,
          body,
          now: new Date((timestamp + 3600) * 1000),
          toleranceSeconds: 3600,
        }).ok,
      ).toBe(true);
    }
  });

  it('rejects a timestamp swapped to a fresh one (the timestamp is signed)', () => {
    const later = timestamp + 1000;
    const service = headers['X-Service-Signature']!.replace(`t=${timestamp}`, `t=${later}`);
    const at = new Date(later * 1000);
    expect(
      verifySignature({ secret, headers: { ...serviceOnly, 'x-service-signature': service }, body, now: at })
        .ok,
    ).toBe(false);
    expect(
      verifySignature({
        secret,
        headers: { 'x-service-signature': service.replace(/,v2=.*$/, '') },
        body,
        now: at,
        allowV1: true,
      }).ok,
    ).toBe(false);
    expect(
      verifySignature({
        secret,
        headers: { ...standardOnly, 'webhook-timestamp': String(later) },
        body,
        now: at,
      }).ok,
    ).toBe(false);
  });

  it('accepts any of several signatures (secret rotation) and ignores other versions', () => {
    const old = signRequest({ secret: 'old-secret', messageId, timestamp, body });
    const both = `v2,abc ${old['webhook-signature']} ${headers['webhook-signature']}`;
    expect(
      verifySignature({ secret, headers: { ...standardOnly, 'webhook-signature': both }, body, now }).ok,
    ).toBe(true);
    expect(
      verifySignature({
        secret,
        headers: {
          ...standardOnly,
          'webhook-signature': [old['webhook-signature']!, headers['webhook-signature']!],
        },
        body,
        now,
      }).ok,
    ).toBe(true);
    const hex = headers['X-Service-Signature']!.split('v2=')[1];
    const rotated = `t=${timestamp},v2=${'a'.repeat(64)},v2=${hex}`;
    expect(
      verifySignature({ secret, headers: { ...serviceOnly, 'X-Service-Signature': rotated }, body, now }).ok,
    ).toBe(true);
    expect(
      verifySignature({
        secret,
        headers: {
          ...serviceOnly,
          'X-Service-Signature': rotated.toUpperCase().replace('T=', 't=').replace(/V2=/g, 'v2='),
        },
        body,
        now,
      }).ok,
    ).toBe(true);
  });

  it('reports missing and malformed headers', () => {
    expect(verifySignature({ secret, headers: {}, body, now })).toEqual({
      ok: false,
      reason: 'no signature headers',
    });
    expect(verifySignature({ secret, headers: { 'x-service-signature': 'v1=abc' }, body, now })).toEqual({
      ok: false,
      reason: 'malformed X-Service-Signature header',
    });
    expect(
      verifySignature({ secret, headers: { 'x-service-signature': `t=${timestamp}` }, body, now }).ok,
    ).toBe(false);
    expect(
      verifySignature({ secret, headers: { ...standardOnly, 'webhook-id': undefined }, body, now }),
    ).toEqual({
      ok: false,
      reason: 'malformed Standard Webhooks headers',
    });
    expect(
      verifySignature({ secret, headers: { ...standardOnly, 'webhook-timestamp': 'yesterday' }, body, now })
        .ok,
    ).toBe(false);
    expect(
      verifySignature({ secret, headers: { ...standardOnly, 'webhook-signature': 'v1,' }, body, now }).ok,
    ).toBe(false);
    expect(verifySignature({ secret: '', headers, body, now })).toEqual({
      ok: false,
      reason: 'empty secret',
    });
  });
});

describe('whsec_ secrets: strong enough to sign with', () => {
  it('must be base64 of at least 24 bytes', () => {
    expect(whsecSecretProblem(whsec)).toBeNull();
    expect(whsecSecretProblem(secret)).toBeNull();
    expect(whsecSecretProblem('whsec_!!!!!!!!!!!!!!!!')).toMatch(/base64/);
    expect(whsecSecretProblem(`whsec_${Buffer.alloc(23, 7).toString('base64')}`)).toMatch(
      /at least 24 bytes \(got 23\)/,
    );
  });

  it('is refused by the contract with a field error', () => {
    const base = { request: { url: 'https://example.com/hook' }, schedule: { wait: '1h' } };
    const bad = ActionCreateBody.safeParse({ ...base, webhook_secret: 'whsec_!!!!!!!!!!!!!!!!' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['webhook_secret']);
    expect(ActionCreateBody.safeParse({ ...base, webhook_secret: whsec }).success).toBe(true);
  });

  it('a stored malformed whsec_ value is keyed as a plain secret, never as an empty key', () => {
    const legacy = 'whsec_!!!!!!!!!!!!!!!!';
    const signed = signRequest({ secret: legacy, messageId, timestamp: Math.floor(Date.now() / 1000), body });
    expect(new Webhook(legacy, { format: 'raw' }).verify(body, signed)).toEqual(JSON.parse(body));
  });
});

describe('without node:crypto (a browser bundle)', () => {
  it('the pure-JS HMAC signs and verifies the same bytes', async () => {
    const expected = signRequest({ secret: whsec, messageId, timestamp, body });
    const getBuiltinModule = process.getBuiltinModule;
    vi.resetModules();
    Object.assign(process, { getBuiltinModule: undefined });
    try {
      const pure = await import('./signatures.js');
      expect(pure.signRequest({ secret: whsec, messageId, timestamp, body })).toEqual(expected);
      expect(pure.verifySignature({ secret: whsec, headers: expected, body, now }).ok).toBe(true);
    } finally {
      Object.assign(process, { getBuiltinModule });
    }
  });
});

describe('signRequest with prepared keys', () => {
  it('signs exactly as the three schemes do one by one, for every kind of secret and body, twice', () => {
    const secrets = [
      'plain-secret',
      `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      'whsec_not*base64',
      'é€',
    ];
    const bodies: SignedBody[] = ['', '{"a":1}', 'ünïcødé ✓', new TextEncoder().encode('{"bytes":true}')];
    for (let round = 0; round < 2; round += 1) {
      for (const body of bodies) {
        const signed = signRequest({ secret: secrets, messageId: 'act_1.0', timestamp: 1_700_000_000, body });
        const service = secrets
          .map(
            (s) =>
              `v1=${serviceSignature(s, 1_700_000_000, body)},v2=${serviceSignatureV2(s, 'act_1.0', 1_700_000_000, body)}`,
          )
          .join(',');
        expect(signed['X-Service-Signature']).toBe(`t=1700000000,${service}`);
        expect(signed['webhook-signature']).toBe(
          secrets.map((s) => `v1,${standardWebhooksSignature(s, 'act_1.0', 1_700_000_000, body)}`).join(' '),
        );
      }
    }
  });
});
