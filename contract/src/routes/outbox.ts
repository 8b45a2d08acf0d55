import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { authErrors, ErrorBody, Timestamp, Uuid } from '../schemas/common.js';

const c = initContract();

export const OutboxMessage = z
  .object({
    id: Uuid,
    action_id: Uuid.nullable(),
    channel: z
      .string()
      .meta({ description: '`email`, `sms`, `push`, or a chat channel without its webhook.' }),
    destination: z.string().meta({ description: 'The address the message was for.' }),
    response_link: z
      .string()
      .nullable()
      .meta({ description: "The recipient's login-free response link, as the message carries it." }),
    rendered: z.string().meta({ description: 'The message as it would have been sent.' }),
    created_at: Timestamp,
  })
  .meta({ id: 'OutboxMessage' });

/**
 * The outbox of a development server: messages of channels it has no settings for (no SMTP, Twilio or VAPID),
 * kept so the approval loop can be run without them.
 */
export const outboxContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/outbox',
    query: z.object({
      action_id: Uuid.optional().meta({ description: 'Only the messages of this action.' }),
      limit: z.coerce.number().int().min(1).max(1000).default(50),
    }),
    responses: { 200: z.object({ data: z.array(OutboxMessage) }), 404: ErrorBody, ...authErrors },
    // Each message carries a live response link, which is a recipient's credential: never for read or write keys.
    metadata: { scope: 'admin' } as const,
    summary: 'Messages kept in the outbox (development servers only)',
    description:
      "The account's messages that went to the outbox because their channel is not configured, newest first, with " +
      'the response link each carries: in development without SMTP, the way to the approval page. Only a server ' +
      'with NODE_ENV other than `production` answers it; a production server answers 404 (its operators read the ' +
      'outbox with the admin verb `sched outbox list`). Needs an API key with the `admin` scope: each message carries a ' +
      "recipient's live response link.",
  },
});
