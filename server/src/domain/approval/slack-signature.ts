import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's own bound: a request signed more than five minutes ago (or ahead) is a replay, refused. */
export const SLACK_SIGNATURE_MAX_AGE_SECONDS = 5 * 60;

/**
 * Verifies a Slack request (api.slack.com/authentication/verifying-requests-from-slack): `X-Slack-Signature` is
 * `v0=` and the hex HMAC-SHA256, keyed with the app's signing secret, of `v0:<X-Slack-Request-Timestamp>:<raw body>`.
 * The comparison takes the same time whatever the signature; `nowSeconds` is the clock's Unix time.
 */
export function verifySlackSignature(input: {
  signingSecret: string;
  timestamp: string | undefined;
  signature: string | undefined;
  rawBody: string;
  nowSeconds: number;
}): boolean {
  const { timestamp, signature } = input;
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(input.nowSeconds - Number(timestamp)) > SLACK_SIGNATURE_MAX_AGE_SECONDS) return false;
  const expected = Buffer.from(slackSignature(input.signingSecret, timestamp, input.rawBody), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  // timingSafeEqual needs equal lengths; comparing with itself keeps the time the same on a length mismatch.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(given, expected);
}

/** `v0=<hex HMAC-SHA256 of v0:timestamp:body>`: what Slack sends, and what a test's stand-in signs with. */
export function slackSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`, 'utf8').digest('hex')}`;
}
