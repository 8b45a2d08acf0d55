import type { Command } from 'commander';
import { formatFields, print, printText, UsageError } from '../runtime.js';
import { withDatabase } from './admin.js';

/*
 * `sched outbox`: messages of channels that are not configured (no SMTP, Twilio, VAPID...), which the service keeps
 * in `outbox_messages` instead of dropping them, so an operator can pass them on by hand. Admin verbs: they read
 * the database directly, like `keys list`.
 */

export interface OutboxEntry {
  id: string;
  account_id: string | null;
  action_id: string | null;
  channel: string;
  destination: string;
  /** The recipient's personal link, as found in the rendered message. */
  response_link: string | null;
  rendered: string;
  created_at: string;
}

interface OutboxRow {
  id: string;
  account_id: string | null;
  action_id: string | null;
  channel: string;
  destination: string;
  rendered: string;
  created_at: Date | string;
}

export interface OutboxFilter {
  limit: number;
  account?: string;
  action?: string;
}

const COLUMNS = ['created_at', 'channel', 'destination', 'action_id', 'response_link'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Newest first; the filters are bound parameters. */
export function outboxQuery(filter: OutboxFilter): { text: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.account !== undefined) {
    params.push(filter.account);
    where.push(`account_id = $${params.length}`);
  }
  if (filter.action !== undefined) {
    params.push(filter.action);
    where.push(`action_id = $${params.length}`);
  }
  params.push(filter.limit);
  return {
    text:
      'select id, account_id, action_id, channel, destination, rendered, created_at from outbox_messages' +
      (where.length ? ` where ${where.join(' and ')}` : '') +
      ` order by created_at desc, id limit $${params.length}`,
    params,
  };
}

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  return {
    id: row.id,
    account_id: row.account_id,
    action_id: row.action_id,
    channel: row.channel,
    destination: row.destination,
    response_link: /^Response link: (\S+)$/m.exec(row.rendered)?.[1] ?? null,
    rendered: row.rendered,
    // The pool the server package opens may hand timestamps back as text.
    created_at: new Date(row.created_at).toISOString(),
  };
}

export function parseOutboxFilter(opts: { limit: string; account?: string; action?: string }): OutboxFilter {
  if (!/^\d+$/.test(opts.limit) || Number(opts.limit) < 1 || Number(opts.limit) > 1000)
    throw new UsageError(`--limit must be a whole number from 1 to 1000, got '${opts.limit}'`);
  for (const [flag, value] of [
    ['--account', opts.account],
    ['--action', opts.action],
  ] as const) {
    if (value !== undefined && !UUID.test(value))
      throw new UsageError(`${flag} must be an id (UUID), got '${value}'`);
  }
  return {
    limit: Number(opts.limit),
    ...(opts.account !== undefined ? { account: opts.account } : {}),
    ...(opts.action !== undefined ? { action: opts.action } : {}),
  };
}

async function readOutbox(filter: OutboxFilter): Promise<OutboxEntry[]> {
  const { text, params } = outboxQuery(filter);
  const rows = await withDatabase((d) => d.db.query<OutboxRow>(text, params));
  return rows.map(toOutboxEntry);
}

export function configureOutboxCommands(program: Command): void {
  const outbox = program
    .command('outbox')
    .description('messages kept because their channel is not configured (admin: talks to the database)');
  outbox
    .command('list')
    .description('newest first, every account')
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .option('--account <id>', 'only this account')
    .option('--action <id>', 'only this action')
    .option('--json', 'print JSON (with the rendered messages)')
    .action(async (opts: { limit: string; account?: string; action?: string }, cmd: Command) => {
      const data = await readOutbox(parseOutboxFilter(opts));
      print(cmd, { data }, { rows: data as unknown as Record<string, unknown>[], columns: COLUMNS });
    });
  outbox
    .command('show <id>')
    .description('one message as it would have been sent')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      if (!UUID.test(id)) throw new UsageError(`the id must be a UUID, got '${id}'`);
      const rows = await withDatabase((d) =>
        d.db.query<OutboxRow>(
          'select id, account_id, action_id, channel, destination, rendered, created_at from outbox_messages where id = $1',
          [id],
        ),
      );
      const entry = rows[0] ? toOutboxEntry(rows[0]) : undefined;
      if (!entry) throw new Error(`no outbox message ${id}`);
      const { rendered, ...fields } = entry;
      printText(cmd, { data: entry }, `${formatFields(Object.entries(fields))}\n\n${rendered.trimEnd()}`);
    });
}
