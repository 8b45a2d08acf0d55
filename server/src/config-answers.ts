import { z } from 'zod';
import { DEFAULT_SLACK_API_URL, type SlackAppConfig } from './channels/slack-app.js';

/*
 * The environment of answers from where the message is (docs/approvals.md), parsed beside config.ts:
 * - SCHED_SLACK_BOT_TOKEN and SCHED_SLACK_SIGNING_SECRET (both or none): Slack app mode; SCHED_SLACK_API_URL the
 *   Web API root.
 * - SCHED_INBOUND_SMTP_PORT: the api role listens for replies to approval emails (SCHED_INBOUND_SMTP_HOST, default
 *   HOST); SCHED_INBOUND_EMAIL_DOMAIN: the domain of `reply+<token>@…` addresses, required for replies;
 *   SCHED_INBOUND_EMAIL_SECRET: the shared secret of `POST /integrations/email/inbound`;
 *   SCHED_INBOUND_SMTP_TLS_CERT / _KEY (PEM files, both or none): STARTTLS.
 */
export const ANSWER_ENV = {
  SCHED_SLACK_BOT_TOKEN: z.string().trim().optional(),
  SCHED_SLACK_SIGNING_SECRET: z.string().trim().optional(),
  SCHED_SLACK_API_URL: z
    .string()
    .trim()
    .transform((v) => v.replace(/\/+$/, ''))
    .refine((v) => /^https?:\/\/[^/]/.test(v) && URL.canParse(v), 'must be an http(s) URL')
    .default(DEFAULT_SLACK_API_URL),
  SCHED_INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SCHED_INBOUND_SMTP_HOST: z.string().trim().optional(),
  SCHED_INBOUND_EMAIL_DOMAIN: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9.-]+\.[a-z0-9-]+$|^localhost$/, 'must be a domain such as replies.example.com')
    .optional(),
  SCHED_INBOUND_EMAIL_SECRET: z.string().trim().min(16, 'must be at least 16 characters').optional(),
  SCHED_INBOUND_SMTP_TLS_CERT: z.string().trim().optional(),
  SCHED_INBOUND_SMTP_TLS_KEY: z.string().trim().optional(),
};

const AnswerEnvSchema = z.object(ANSWER_ENV);
type AnswerEnv = z.output<typeof AnswerEnvSchema> & { HOST: string };

export interface InboundConfig {
  /** The api role's SMTP listener for replies; null: none (replies may still come through the HTTP hook). */
  smtpPort: number | null;
  smtpHost: string;
  domain: string | null;
  /** `POST /integrations/email/inbound`'s shared secret; null: that route answers 404. */
  secret: string | null;
  tls: { certFile: string; keyFile: string } | null;
}

/** Groups that come all or none, and the domain replies need: one line per problem. */
export function answerEnvProblems(
  env: Record<string, unknown>,
  missingOfGroup: (env: Record<string, unknown>, vars: readonly string[], what: string) => string[],
): string[] {
  return [
    ...missingOfGroup(
      env,
      ['SCHED_SLACK_BOT_TOKEN', 'SCHED_SLACK_SIGNING_SECRET'],
      'SCHED_SLACK_* app variable',
    ),
    ...missingOfGroup(
      env,
      ['SCHED_INBOUND_SMTP_TLS_CERT', 'SCHED_INBOUND_SMTP_TLS_KEY'],
      'SCHED_INBOUND_SMTP_TLS_* file',
    ),
    ...(env.SCHED_INBOUND_EMAIL_DOMAIN === undefined &&
    (env.SCHED_INBOUND_SMTP_PORT !== undefined || env.SCHED_INBOUND_EMAIL_SECRET !== undefined)
      ? [
          'SCHED_INBOUND_EMAIL_DOMAIN: is required to receive replies (the domain of their reply+<token>@ addresses)',
        ]
      : []),
  ];
}

export function inboundConfig(e: AnswerEnv): InboundConfig {
  return {
    smtpPort: e.SCHED_INBOUND_SMTP_PORT ?? null,
    smtpHost: e.SCHED_INBOUND_SMTP_HOST ?? e.HOST,
    domain: e.SCHED_INBOUND_EMAIL_DOMAIN ?? null,
    secret: e.SCHED_INBOUND_EMAIL_SECRET ?? null,
    tls:
      e.SCHED_INBOUND_SMTP_TLS_CERT !== undefined && e.SCHED_INBOUND_SMTP_TLS_KEY !== undefined
        ? { certFile: e.SCHED_INBOUND_SMTP_TLS_CERT, keyFile: e.SCHED_INBOUND_SMTP_TLS_KEY }
        : null,
  };
}

export function slackAppConfig(e: AnswerEnv): SlackAppConfig | undefined {
  if (e.SCHED_SLACK_BOT_TOKEN === undefined || e.SCHED_SLACK_SIGNING_SECRET === undefined) return undefined;
  return {
    botToken: e.SCHED_SLACK_BOT_TOKEN,
    signingSecret: e.SCHED_SLACK_SIGNING_SECRET,
    apiUrl: e.SCHED_SLACK_API_URL,
  };
}
