import { describe, expect, it } from 'vitest';
import { slackSignature, verifySlackSignature } from './slack-signature.js';

// Slack's documented example (api.slack.com/authentication/verifying-requests-from-slack).
const secret = '8f742231b10e8888abcd99yyyzzz85a5';
const timestamp = '1531420618';
const body =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const documented = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

describe('Slack request signatures', () => {
  it("matches Slack's documented example", () => {
    expect(slackSignature(secret, timestamp, body)).toBe(documented);
    expect(
      verifySlackSignature({
        signingSecret: secret,
        timestamp,
        signature: documented,
        rawBody: body,
        nowSeconds: 1531420618 + 60,
      }),
    ).toBe(true);
  });

  it('refuses a wrong signature, another body, a missing header and an old or future timestamp', () => {
    const base = {
      signingSecret: secret,
      timestamp,
      signature: documented,
      rawBody: body,
      nowSeconds: 1531420618,
    };
    expect(verifySlackSignature({ ...base, signature: documented.replace(/.$/, '4') })).toBe(false);
    expect(verifySlackSignature({ ...base, signature: 'v0=short' })).toBe(false);
    expect(verifySlackSignature({ ...base, rawBody: `${body}&x=1` })).toBe(false);
    expect(verifySlackSignature({ ...base, signature: undefined })).toBe(false);
    expect(verifySlackSignature({ ...base, timestamp: undefined })).toBe(false);
    expect(verifySlackSignature({ ...base, timestamp: '15314206a8' })).toBe(false);
    expect(verifySlackSignature({ ...base, nowSeconds: 1531420618 + 301 })).toBe(false);
    expect(verifySlackSignature({ ...base, nowSeconds: 1531420618 - 301 })).toBe(false);
    expect(verifySlackSignature({ ...base, nowSeconds: 1531420618 + 300 })).toBe(true);
  });
});
