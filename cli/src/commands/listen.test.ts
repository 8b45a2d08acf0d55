import type { IncomingHttpHeaders } from 'node:http';
import { signRequest } from '@sched/contract';
import { describe, expect, it } from 'vitest';
import { escapeControls, formatListenEvent, listenEvent, signatureVerdict } from './listen.js';

const now = new Date('2026-11-27T03:00:00.000Z');
const body = Buffer.from('{"hello":"world"}');

/** Headers as Node gives them (lower-case names) for a request signed with `secret` at `now`. */
function signed(secret: string, at = now): IncomingHttpHeaders {
  const headers = signRequest({ secret, messageId: 'msg_1', timestamp: at.getTime() / 1000, body });
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

describe('sched listen: what it reports of a request', () => {
  it('verifies a signature with the secrets given, and says why one fails', () => {
    expect(signatureVerdict(signed('s3cret-s3cret-16'), body, ['s3cret-s3cret-16'], now)).toEqual({
      signature: 'verified',
      signature_scheme: 'x-service-signature-v2',
    });
    // While rotating, either secret verifies.
    expect(
      signatureVerdict(signed('new-secret-0123456'), body, ['old-secret-0123456', 'new-secret-0123456'], now),
    ).toMatchObject({ signature: 'verified' });
    expect(signatureVerdict(signed('s3cret-s3cret-16'), body, ['another-secret-16'], now)).toEqual({
      signature: 'invalid',
      signature_reason: 'signature mismatch',
    });
    const stale = new Date(now.getTime() - 3_600_000);
    expect(signatureVerdict(signed('s3cret-s3cret-16', stale), body, ['s3cret-s3cret-16'], now)).toEqual({
      signature: 'invalid',
      signature_reason: 'timestamp outside the tolerance',
    });
  });

  it('tells an unsigned request from a signed one it was given no secret for', () => {
    expect(signatureVerdict({ 'content-type': 'application/json' }, body, ['s3cret-s3cret-16'], now)).toEqual(
      {
        signature: 'unsigned',
      },
    );
    expect(signatureVerdict(signed('s3cret-s3cret-16'), body, [], now)).toEqual({ signature: 'not_checked' });
  });

  it('reads the action and attempt from the delivery headers, and prints one line and the body', () => {
    const event = listenEvent(
      {
        method: 'POST',
        path: '/hooks?x=1',
        headers: { 'x-sched-action-id': 'act_1', 'x-sched-attempt': '2', 'webhook-id': 'act_1.0' },
        body,
      },
      { signature: 'verified', signature_scheme: 'standard-webhooks' },
      { status: 202, forwarded: { url: 'http://localhost:3000/hooks?x=1', status: 202, duration_ms: 4 } },
      now,
    );
    expect(event).toEqual({
      event: 'request',
      at: '2026-11-27T03:00:00.000Z',
      method: 'POST',
      path: '/hooks?x=1',
      action_id: 'act_1',
      attempt: 2,
      webhook_id: 'act_1.0',
      signature: 'verified',
      signature_scheme: 'standard-webhooks',
      body: '{"hello":"world"}',
      status: 202,
      forwarded: { url: 'http://localhost:3000/hooks?x=1', status: 202, duration_ms: 4 },
    });
    expect(formatListenEvent(event)).toBe(
      '03:00:00.000  POST /hooks?x=1  action act_1  attempt 2  signature verified (standard-webhooks)  ' +
        '→ 202 from http://localhost:3000/hooks?x=1 (4 ms)\n    {"hello":"world"}',
    );
  });

  it('prints a failed forward and an invalid signature so they stand out', () => {
    const event = listenEvent(
      { method: 'GET', path: '/', headers: {}, body: Buffer.alloc(0) },
      { signature: 'invalid', signature_reason: 'signature mismatch' },
      { status: 502, forwarded: { url: 'http://localhost:1/', error: 'ECONNREFUSED' } },
      now,
    );
    expect(event.attempt).toBeNull();
    expect(event.action_id).toBeNull();
    expect(formatListenEvent(event)).toBe(
      '03:00:00.000  GET /  signature INVALID: signature mismatch  → 502 (forward to http://localhost:1/ failed: ECONNREFUSED)',
    );
  });

  it('escapes control characters in text mode: no escape sequence reaches the terminal', () => {
    const osc52 = '\u001b]52;c;ZXZpbA==\u0007';
    const event = listenEvent(
      {
        method: 'POST',
        path: `/x${osc52}`,
        headers: { 'x-sched-action-id': '\u001b[2J' },
        body: Buffer.from(`line 1\n\u001b[31mred\u009b\r\tend`),
      },
      { signature: 'unsigned' },
      { status: 200 },
      now,
    );
    const text = formatListenEvent(event);
    expect(text).not.toMatch(/\p{Cc}(?<![\n\t])/u);
    expect(text).toContain('/x\\u001b]52;c;ZXZpbA==\\u0007');
    expect(text).toContain('action \\u001b[2J');
    expect(text).toContain('\n    \\u001b[31mred\\u009b\\u000d\tend');
    expect(escapeControls('a\u007fb\nc')).toBe('a\\u007fb\\u000ac');
    // JSON keeps the body as received: JSON.stringify escapes it.
    expect(event.body).toContain('\u001b[31m');
  });

  it('shows why a request was refused', () => {
    const event = listenEvent(
      { method: 'POST', path: '/big', headers: {}, body: Buffer.alloc(0) },
      { signature: 'not_checked' },
      { status: 413, refused: 'body too large' },
      now,
    );
    expect(event).toMatchObject({ status: 413, refused: 'body too large' });
    expect(formatListenEvent(event)).toContain('→ 413  (body too large)');
  });
});
