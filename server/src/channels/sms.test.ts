import { afterEach, describe, expect, it } from 'vitest';
import { fetchChannelHttp } from './http.js';
import { createSmsChannel, renderSmsBody, smsEncoding, smsSegments } from './sms.js';
import { type LoopbackReceiver, sampleApprovalMessage, startLoopbackReceiver } from './testing.js';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'tw-auth-token';
const FROM = '+15005550006';

const receivers: LoopbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** A stand-in for api.twilio.com: checks path and auth like Twilio, rejects an invalid `To` like Twilio. */
async function startTwilio(): Promise<LoopbackReceiver> {
  const receiver = await startLoopbackReceiver((req) => {
    const json = { 'content-type': 'application/json' };
    if (req.url !== `/2010-04-01/Accounts/${SID}/Messages.json`)
      return { status: 404, headers: json, body: '{}' };
    const expectedAuth = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
    if (req.headers.authorization !== expectedAuth) {
      return { status: 401, headers: json, body: '{"code":20003,"message":"Authenticate","status":401}' };
    }
    const form = new URLSearchParams(req.body.toString('utf8'));
    if (!/^\+[1-9]\d{6,14}$/.test(form.get('To') ?? '')) {
      return {
        status: 400,
        headers: json,
        body: JSON.stringify({
          code: 21211,
          message: "Invalid 'To' Phone Number",
          more_info: 'https://www.twilio.com/docs/errors/21211',
          status: 400,
        }),
      };
    }
    return {
      status: 201,
      headers: json,
      body: JSON.stringify({
        sid: 'SM1f0e2d3c4b5a69788796a5b4c3d2e1f0',
        status: 'queued',
        to: form.get('To'),
      }),
    };
  });
  receivers.push(receiver);
  return receiver;
}

describe('sms channel (Twilio)', () => {
  it('posts the form Twilio expects and returns the message sid', async () => {
    const twilio = await startTwilio();
    const channel = createSmsChannel(
      { accountSid: SID, authToken: TOKEN, from: FROM, apiUrl: twilio.origin },
      { http: fetchChannelHttp() },
    );
    const message = sampleApprovalMessage();
    const receipt = await channel.send({ channel: 'sms', phone: '+15551234567' }, message);

    expect(receipt).toEqual({
      ok: true,
      via: 'provider',
      providerMessageId: 'SM1f0e2d3c4b5a69788796a5b4c3d2e1f0',
    });
    expect(twilio.requests).toHaveLength(1);
    const req = twilio.requests[0] ?? expect.unreachable();
    expect(req.method).toBe('POST');
    expect(req.url).toBe(`/2010-04-01/Accounts/${SID}/Messages.json`);
    expect(req.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(req.body.toString('utf8'));
    expect([...form.keys()].sort()).toEqual(['Body', 'From', 'To']);
    expect(form.get('To')).toBe('+15551234567');
    expect(form.get('From')).toBe(FROM);
    const body = form.get('Body') ?? '';
    expect(body).toBe(renderSmsBody(message));
    expect(body.startsWith('Approval needed: Deploy release 4.2\n')).toBe(true);
    expect(body).toContain('Please approve the deploy.');
    expect(body).toContain(message.responseUrl);
    expect(body).toContain('Expires 2030-01-08 12:30 UTC');
  });

  it("maps Twilio's error document into the receipt", async () => {
    const twilio = await startTwilio();
    const channel = createSmsChannel(
      { accountSid: SID, authToken: TOKEN, from: FROM, apiUrl: twilio.origin },
      { http: fetchChannelHttp() },
    );
    const receipt = await channel.send({ channel: 'sms', phone: '555-0100' }, sampleApprovalMessage());
    expect(receipt).toEqual({
      ok: false,
      via: 'provider',
      error: "Twilio error 21211 (HTTP 400): Invalid 'To' Phone Number",
    });
  });

  it('reports wrong credentials', async () => {
    const twilio = await startTwilio();
    const channel = createSmsChannel(
      { accountSid: SID, authToken: 'wrong', from: FROM, apiUrl: twilio.origin },
      { http: fetchChannelHttp() },
    );
    const receipt = await channel.send({ channel: 'sms', phone: '+15551234567' }, sampleApprovalMessage());
    expect(receipt.ok).toBe(false);
    expect(receipt.error).toBe('Twilio error 20003 (HTTP 401): Authenticate');
  });

  it('sends a Messaging Service SID as MessagingServiceSid', async () => {
    const twilio = await startTwilio();
    const service = 'MG0123456789abcdef0123456789abcdef';
    const channel = createSmsChannel(
      { accountSid: SID, authToken: TOKEN, from: service, apiUrl: twilio.origin },
      { http: fetchChannelHttp() },
    );
    const receipt = await channel.send({ channel: 'sms', phone: '+15551234567' }, sampleApprovalMessage());
    expect(receipt.ok).toBe(true);
    const form = new URLSearchParams(twilio.requests[0]?.body.toString('utf8'));
    expect(form.get('MessagingServiceSid')).toBe(service);
    expect(form.has('From')).toBe(false);
  });

  it('reports a transport failure', async () => {
    const twilio = await startTwilio();
    const origin = twilio.origin;
    await twilio.close();
    receivers.length = 0;
    const channel = createSmsChannel(
      { accountSid: SID, authToken: TOKEN, from: FROM, apiUrl: origin },
      { http: fetchChannelHttp() },
    );
    const receipt = await channel.send({ channel: 'sms', phone: '+15551234567' }, sampleApprovalMessage());
    expect(receipt.ok).toBe(false);
    expect(receipt.error).toMatch(/^Twilio: .*ECONNREFUSED/);
  });
});

describe('renderSmsBody', () => {
  it('keeps a short message whole, in one GSM-7 segment or few', () => {
    const body = renderSmsBody(sampleApprovalMessage({ body: 'Ok to ship?' }));
    expect(body).toContain('Ok to ship?');
    expect(smsEncoding(body).encoding).toBe('gsm7');
    expect(smsSegments(body)).toBeLessThanOrEqual(2);
  });

  it('cuts a long message to three segments and keeps the link and the expiry whole', () => {
    const message = sampleApprovalMessage({ body: 'word '.repeat(1000) });
    const body = renderSmsBody(message);
    expect(smsEncoding(body).encoding).toBe('gsm7');
    expect(smsSegments(body)).toBe(3);
    expect(body).toContain('...');
    expect(body).toContain(message.responseUrl);
    expect(body).toContain('Expires 2030-01-08 12:30 UTC');
  });

  it('counts UCS-2 when the message needs it', () => {
    const message = sampleApprovalMessage({
      body: 'Déployer la version 4.2 ? Ça part en production ✅ '.repeat(40),
    });
    const body = renderSmsBody(message);
    expect(smsEncoding(body).encoding).toBe('ucs2');
    expect(smsSegments(body)).toBeLessThanOrEqual(3);
    expect(body).toContain('…');
    expect(body).toContain(message.responseUrl);
  });

  it('counts extension characters twice', () => {
    expect(smsEncoding('a{b}').units).toBe(6);
    expect(smsEncoding('€').units).toBe(2);
    expect(smsEncoding('é').encoding).toBe('gsm7');
    expect(smsEncoding('ê').encoding).toBe('ucs2');
    const message = sampleApprovalMessage({ body: '{[|]}'.repeat(200) });
    expect(smsSegments(renderSmsBody(message))).toBeLessThanOrEqual(3);
  });
});
