import type { OutboxMessage as OutboxMessageSchema } from '@sched/contract';
import type { z } from 'zod';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import { unwrap } from './unwrap.js';

export type OutboxMessage = z.infer<typeof OutboxMessageSchema>;

/** `GET /v1/outbox` filters: the messages of one action, at most `limit` (1-1000, default 50). */
export interface OutboxQuery {
  action_id?: string;
  limit?: number;
}

/**
 * The outbox of a development server (`NODE_ENV` other than `production`): the account's messages kept because
 * their channel is not configured, newest first, each with the response link it carries. A production server answers
 * 404 (`SchedApiError`); its operators read the outbox with `sched outbox list` through the database.
 */
export interface OutboxApi {
  list(query?: OutboxQuery, options?: CallOptions): Promise<OutboxMessage[]>;
}

export function outboxApi(raw: RawClient): OutboxApi {
  return {
    list: async (query = {}, o) => unwrap(await raw.outbox.list({ query, ...callArgs(o) }), 200).data,
  };
}
