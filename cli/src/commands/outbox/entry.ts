import { apiContract, Uuid } from '@sched/contract';
import type { OutboxFilter, OutboxMessage } from '@sched/server';
import type { OutboxMessage as OutboxMessageView } from '@sched/sdk';
import type { Command } from 'commander';
import { client, parseOptions } from '../../runtime.js';
import { serverModule, withDatabase } from '../../server-package.js';

/*
 * `sched outbox`: messages of channels that are not configured (no SMTP, Twilio, VAPID...), which the service keeps
 * in `outbox_messages` instead of dropping them, so an operator can pass them on by hand. Admin verbs: they read
 * the database directly, like `admin keys list`; `--api` reads a development server's `GET /v1/outbox` instead.
 */

/** A message as `GET /v1/outbox` shows it, plus its account (null over the API, where the key names it). */
export type OutboxEntry = OutboxMessageView & { account_id: string | null };

export const OUTBOX_COLUMNS = ['created_at', 'channel', 'destination', 'action_id', 'response_link'];

export function toOutboxEntry(row: OutboxMessage): OutboxEntry {
  return {
    id: row.id,
    account_id: row.account_id,
    action_id: row.action_id,
    channel: row.channel,
    destination: row.destination,
    response_link: /^Response link: (\S+)$/m.exec(row.rendered)?.[1] ?? null,
    rendered: row.rendered,
    created_at: row.created_at.toISOString(),
  };
}

/** The API's query (`action_id`, `limit` 1-1000), plus the database's `account`. */
const OutboxListOptions = apiContract.outbox.list.query.extend({ account: Uuid.optional() });

/** `--limit`, `--action` and `--account`, checked by the contract's query schema. */
export function parseOutboxFilter(opts: { limit: string; account?: string; action?: string }): OutboxFilter {
  const parsed = parseOptions(OutboxListOptions, {
    limit: opts.limit,
    ...(opts.action !== undefined ? { action_id: opts.action } : {}),
    ...(opts.account !== undefined ? { account: opts.account } : {}),
  });
  return {
    limit: parsed.limit,
    ...(parsed.account !== undefined ? { account: parsed.account } : {}),
    ...(parsed.action_id !== undefined ? { action: parsed.action_id } : {}),
  };
}

/** GET /v1/outbox of a development server: the key's account's messages, without database access. */
export async function readOutboxOverApi(cmd: Command, filter: OutboxFilter): Promise<OutboxEntry[]> {
  const messages = await client(cmd).outbox.list({
    limit: filter.limit,
    ...(filter.action ? { action_id: filter.action } : {}),
  });
  return messages.map((m) => ({ ...m, account_id: null }));
}

/** Every account's messages, through the database. */
export async function readOutbox(filter: OutboxFilter): Promise<OutboxEntry[]> {
  const { listOutboxMessages } = await serverModule();
  const rows = await withDatabase((d) => listOutboxMessages(d.database.sql, filter));
  return rows.map(toOutboxEntry);
}
