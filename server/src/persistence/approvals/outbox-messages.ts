import { randomUUID } from 'node:crypto';
import type { GateChannelName } from '@sched/contract';
import type { Selectable } from 'kysely';
import type { Outbox } from '../../channels/types.js';
import { destinationOf } from '../../domain/approval/messages.js';
import type { Sql, Tables } from '../database.js';

export type OutboxMessage = Selectable<Tables['outbox_messages']>;

/**
 * Keeps messages of unconfigured channels in `outbox_messages` for operators (`sched outbox list`). The table holds
 * the full destination and the live response link (an operator passes them on). It logs nothing itself: the channel
 * registry's line describes the target without them, since logs travel further than the database and must not carry
 * a live response link or a recipient's address.
 */
export function createSqlOutbox(db: { readonly sql: Sql }, clock: () => Date = () => new Date()): Outbox {
  return {
    async store({ channel, target, message, rendered }) {
      // An alert belongs to its account, not to an action.
      if (message.kind === 'alert') {
        await db.sql
          .insertInto('outbox_messages')
          .values({
            id: randomUUID(),
            account_id: message.accountId,
            action_id: null,
            channel,
            destination: destinationOf(target),
            rendered,
            created_at: clock(),
          })
          .execute();
        return;
      }
      await keepInOutbox(db.sql, {
        actionId: message.actionId,
        channel,
        destination: destinationOf(target),
        rendered,
        now: clock(),
      });
    },
  };
}

/** Keeps a message of an unconfigured channel for operators; the account is the action's. */
async function keepInOutbox(
  db: Sql,
  m: { actionId: string; channel: GateChannelName; destination: string; rendered: string; now: Date },
): Promise<void> {
  await db
    .insertInto('outbox_messages')
    .columns(['id', 'account_id', 'action_id', 'channel', 'destination', 'rendered', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('actions')
        .select((s) => [
          s.val(randomUUID()).as('id'),
          'account_id',
          'id as action_id',
          s.val(m.channel).as('channel'),
          s.val(m.destination).as('destination'),
          s.val(m.rendered).as('rendered'),
          s.val(m.now).as('created_at'),
        ])
        .where('id', '=', m.actionId),
    )
    .execute();
}

export interface OutboxFilter {
  limit: number;
  account?: string;
  action?: string;
}

/** Newest first, every account unless filtered. */
export function listOutboxMessages(db: Sql, filter: OutboxFilter): Promise<OutboxMessage[]> {
  let q = db.selectFrom('outbox_messages').selectAll();
  if (filter.account !== undefined) q = q.where('account_id', '=', filter.account);
  if (filter.action !== undefined) q = q.where('action_id', '=', filter.action);
  return q.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).execute();
}

export function findOutboxMessage(db: Sql, id: string): Promise<OutboxMessage | undefined> {
  return db.selectFrom('outbox_messages').selectAll().where('id', '=', id).executeTakeFirst();
}
