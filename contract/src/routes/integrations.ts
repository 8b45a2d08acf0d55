import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { ErrorBody, ValidationErrorBody } from '../schemas/common.js';

const c = initContract();

/** What the inbound mail hook answers: whether the reply was acted on, and why not. */
const InboundReplyResult = z
  .object({
    applied: z.boolean(),
    reason: z
      .string()
      .optional()
      .meta({ description: 'Why the reply changed nothing (also mailed to its sender).' }),
  })
  .meta({ id: 'InboundReplyResult', examples: [{ applied: true }] });

/**
 * Answers given outside sched (docs/approvals.md, "Answering where the message is"): Slack's interaction requests
 * and replies to approval emails from a mail provider's hook. The server serves them outside ts-rest, reading the
 * body as it came (the Slack signature covers the raw bytes); they are here for the OpenAPI document.
 */
export const integrationsContract = c.router({
  slackInteractions: {
    method: 'POST',
    path: '/integrations/slack/interactions',
    body: z.object({
      payload: z.string().meta({ description: "Slack's `block_actions` payload, JSON." }),
    }),
    responses: { 200: c.noBody(), 400: ErrorBody, 401: ErrorBody },
    metadata: {
      auth: 'none',
      rateLimited: false,
      bodyContentType: 'application/x-www-form-urlencoded',
      // Slack's interaction payloads are small.
      bodyLimit: 256 * 1024,
      operationId: 'slackInteractions',
      example: { request: { payload: '{"type":"block_actions"}' } },
    },
    summary: 'Slack app mode: a button click (Slack calls it)',
    description:
      'The Interactivity request URL of the Slack app (`SCHED_SLACK_BOT_TOKEN`, `SCHED_SLACK_SIGNING_SECRET`). Verified ' +
      'first: `X-Slack-Signature` is `v0=` and the hex HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>` keyed ' +
      'with the signing secret, the timestamp within 5 minutes; anything else is 401 and changes nothing. A Confirm or ' +
      'Decline click by the recipient (or one of `gate.slack_responders`) answers as the page would, then the message ' +
      'is updated; anything else is told to the member alone. Always 200 once verified. Not served without the app.',
  },
  emailInbound: {
    method: 'POST',
    path: '/integrations/email/inbound',
    body: z.string().meta({ description: 'The reply as raw MIME (RFC 5322), at most 1 MiB.' }),
    responses: { 200: InboundReplyResult, 401: ErrorBody, 422: ValidationErrorBody },
    metadata: {
      auth: 'none',
      rateLimited: false,
      bodyContentType: 'message/rfc822',
      // Bounded like the inbound SMTP port's messages.
      bodyLimit: 1024 * 1024,
      operationId: 'emailInbound',
      example: {
        request: 'From: ada@example.com\r\nTo: reply+…@replies.example.com\r\n\r\napprove - looks fine\r\n',
      },
    },
    summary: 'Approve by replying: a reply from a mail provider (its inbound hook calls it)',
    description:
      'Needs `Authorization: Bearer <SCHED_INBOUND_EMAIL_SECRET>` (401 otherwise; not served without the secret). The ' +
      'same rules as the inbound SMTP port: the `reply+<token>@<SCHED_INBOUND_EMAIL_DOMAIN>` recipient names who ' +
      'answers, From (and `Return-Path`) must be their address, the first line decides. A reply not acted on is ' +
      'recorded and answered by a short mail saying why; `applied: false` and `reason` say so here too.',
  },
});
