import { contract } from '@sched/contract';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EmailReplies, InboundMail } from '../app/approvals/inbound-email.js';
import type { SlackAnswers, SlackClickResult } from '../app/approvals/inbound-slack.js';
import type { Clock } from '../app/ports.js';
import { SLACK_ACTIONS } from '../channels/slack.js';
import { verifySlackSignature } from '../domain/approval/slack-signature.js';
import { errorBody, ValidationError } from '../app/errors.js';
import { safeEqual } from './auth.js';
import { bodyLimitOf } from './hooks.js';

/** The Slack calls the interaction route makes after a click (channels/slack-app.ts implements them). */
export interface SlackMessages {
  /** Replaces the clicked message with its decided form (chat.update). */
  decided(
    click: { channel: string; ts: string; blocks: Record<string, unknown>[]; text: string },
    outcome: Extract<SlackClickResult, { kind: 'answered' }> & { memberId: string },
  ): Promise<void>;
  /** Tells the member alone (chat.postEphemeral). */
  ephemeral(channel: string, memberId: string, text: string): Promise<void>;
}

export interface IntegrationDeps {
  slack?:
    | { signingSecret: string; answers: Pick<SlackAnswers, 'click'>; messages: SlackMessages }
    | undefined;
  email?: { secret: string; replies: EmailReplies; read: (raw: Buffer) => Promise<InboundMail> } | undefined;
  log: { warn(fields: object, message: string): void };
  /** The process's clock: a Slack signature's freshness is judged against it, as every other time read. */
  clock: Clock;
}

/** Each route's body limit, declared with the route in the contract. */
const SLACK_BODY_LIMIT = bodyLimitOf(contract.integrations.slackInteractions);
const MAIL_BODY_LIMIT = bodyLimitOf(contract.integrations.emailInbound);

/** The decision each app button's action id stands for (channels/slack.ts names them). */
const ACTIONS: Readonly<Record<string, 'confirm' | 'decline'>> = {
  [SLACK_ACTIONS.confirm]: 'confirm',
  [SLACK_ACTIONS.decline]: 'decline',
};

interface BlockActionsPayload {
  type?: string;
  user?: { id?: string };
  channel?: { id?: string };
  container?: { channel_id?: string; message_ts?: string };
  message?: { ts?: string; text?: string; blocks?: Record<string, unknown>[] };
  actions?: { action_id?: string; value?: string }[];
}

function unauthorized(reply: FastifyReply, message: string) {
  return reply.status(401).send({ code: 'unauthorized', message });
}

/**
 * Where answers given outside sched arrive: Slack's interaction requests (signed with the app's signing secret)
 * and replies to approval emails from a mail provider's inbound hook (a shared secret). Each in a scope of its
 * own, which reads its body as it came: the signature covers the raw bytes. Unconfigured, a route is not there.
 */
export async function registerIntegrationRoutes(parent: FastifyInstance, deps: IntegrationDeps) {
  const slack = deps.slack;
  if (slack) {
    await parent.register(async (app) => {
      app.addContentTypeParser(
        'application/x-www-form-urlencoded',
        { parseAs: 'string', bodyLimit: SLACK_BODY_LIMIT },
        (_request, body, done) => done(null, body),
      );
      app.post('/integrations/slack/interactions', async (request, reply) => {
        const raw = typeof request.body === 'string' ? request.body : '';
        const header = (name: string) => {
          const v = request.headers[name];
          return typeof v === 'string' ? v : undefined;
        };
        const valid = verifySlackSignature({
          signingSecret: slack.signingSecret,
          timestamp: header('x-slack-request-timestamp'),
          signature: header('x-slack-signature'),
          rawBody: raw,
          nowSeconds: Math.floor(deps.clock().getTime() / 1000),
        });
        if (!valid) return unauthorized(reply, 'invalid or expired Slack signature');
        let payload: BlockActionsPayload;
        try {
          payload = JSON.parse(new URLSearchParams(raw).get('payload') ?? '') as BlockActionsPayload;
        } catch {
          return reply.status(400).send({ code: 'bad_request', message: 'payload is not JSON' });
        }
        const action = payload.actions?.[0];
        const decision = action?.action_id ? ACTIONS[action.action_id] : undefined;
        const memberId = payload.user?.id;
        // Other interactions (the page link button, shortcuts) need no answer but a 200.
        if (payload.type !== 'block_actions' || !decision || !memberId || !action?.value)
          return reply.status(200).send();
        const result = await slack.answers.click({ reference: action.value, decision, memberId });
        const channel = payload.channel?.id ?? payload.container?.channel_id;
        const ts = payload.message?.ts ?? payload.container?.message_ts;
        // Slack wants its 200 within 3 seconds: the message is updated after answering.
        void reply.status(200).send();
        if (!channel) return reply;
        const follow =
          result.kind === 'answered' && ts
            ? slack.messages.decided(
                {
                  channel,
                  ts,
                  blocks: payload.message?.blocks ?? [],
                  text: payload.message?.text ?? '',
                },
                { ...result, memberId },
              )
            : result.kind === 'refused'
              ? slack.messages.ephemeral(channel, memberId, result.text)
              : Promise.resolve();
        follow.catch((err: unknown) =>
          deps.log.warn(
            { err: err instanceof Error ? err.message : String(err) },
            'Slack message not updated after a click',
          ),
        );
        return reply;
      });
    });
  }

  const email = deps.email;
  if (email) {
    await parent.register(async (app) => {
      app.removeAllContentTypeParsers();
      app.addContentTypeParser(
        '*',
        { parseAs: 'buffer', bodyLimit: MAIL_BODY_LIMIT },
        (_request, body, done) => done(null, body),
      );
      app.post('/integrations/email/inbound', async (request, reply) => {
        if (!safeEqual(request.headers.authorization ?? '', `Bearer ${email.secret}`))
          return unauthorized(reply, 'inbound mail needs Authorization: Bearer <SCHED_INBOUND_EMAIL_SECRET>');
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        if (raw.length === 0)
          return reply
            .status(422)
            .send(errorBody(ValidationError.field('body', 'the raw MIME message is required')));
        const result = await email.replies.receive(await email.read(raw));
        return reply
          .status(200)
          .send(result.applied ? { applied: true } : { applied: false, reason: result.reason });
      });
    });
  }
}
