import { EmailReplies } from '../app/approvals/inbound-email.js';
import { SlackAnswers } from '../app/approvals/inbound-slack.js';
import type { ResponseService } from '../app/approvals/respond.js';
import { createReplyNotices } from '../channels/email.js';
import { fetchChannelHttp } from '../channels/http.js';
import { createSlackMessages } from '../channels/slack-app.js';
import type { ServiceContext } from '../compose/context.js';
import type { Shutdown } from '../compose/shutdown.js';
import { type IntegrationDeps, registerIntegrationRoutes } from '../http/integrations.js';
import { readInboundMail, startInboundSmtp } from '../integrations/inbound-mail.js';
import type { Feature } from './feature.js';

/** Answers given outside sched: Slack app clicks and replies to approval emails (HTTP hooks and the SMTP port). */
export const integrationsFeature: Feature = {
  name: 'integrations',
  async routes(app, _http, { ctx, shared, shutdown }) {
    const integrations = await startIntegrations(ctx, shared.responses, shutdown);
    await registerIntegrationRoutes(app, { ...integrations, log: ctx.logger, clock: ctx.clock });
  },
};

/**
 * The api role's answers from outside sched (docs/approvals.md): Slack app clicks, and replies to approval emails
 * on the inbound SMTP port and the inbound hook. The SMTP listener runs in the api role: like HTTP, it takes
 * traffic from outside, and it is where an operator already exposes ports; workers stay private.
 */
async function startIntegrations(
  ctx: ServiceContext,
  responses: ResponseService,
  shutdown: Shutdown,
): Promise<Omit<IntegrationDeps, 'log' | 'clock'>> {
  const { config, db, clock, logger } = ctx;
  const store = db.main;
  const out: Omit<IntegrationDeps, 'log' | 'clock'> = {};
  const slack = config.channels.slackApp;
  if (slack) {
    out.slack = {
      signingSecret: slack.signingSecret,
      answers: new SlackAnswers({ store, responses, clock, publicUrl: ctx.publicUrl }),
      // The Web API root is the operator's setting, not a caller's: no destination guard on it.
      messages: createSlackMessages(slack, fetchChannelHttp()),
    };
  }
  const { domain, secret, smtpPort } = config.inbound;
  if (domain) {
    const replies = new EmailReplies({
      store,
      responses,
      clock,
      log: logger,
      domain,
      notices: config.channels.email ? createReplyNotices(config.channels.email) : null,
    });
    if (secret) out.email = { secret, replies, read: (raw) => readInboundMail(raw) };
    if (smtpPort !== null) {
      const smtp = await startInboundSmtp({
        host: config.inbound.smtpHost,
        port: smtpPort,
        domain,
        tls: config.inbound.tls,
        receive: (mail) => replies.receive(mail),
        log: logger,
      });
      shutdown.add('the inbound SMTP listener', () => smtp.close(), { first: true });
      logger.info(
        { port: smtp.port, domain },
        `inbound SMTP listening on ${config.inbound.smtpHost}:${smtp.port}`,
      );
    }
  }
  return out;
}
