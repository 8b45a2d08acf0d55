import type { OutboxFilter, OutboxMessage } from '@sched/server';
import type { Command } from 'commander';
import { connection, type GlobalOptions, formatFields, print, printText, UsageError } from '../runtime.js';
import { serverModule, withDatabase } from './admin.js';

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

const COLUMNS = ['created_at', 'channel', 'destination', 'action_id', 'response_link'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** Whether this installation has the server package (the database verbs need it). */
function serverInstalled(): boolean {
  try {
    import.meta.resolve('@sched/server');
    return true;
  } catch {
    return false;
  }
}

/** GET /v1/outbox of a development server: the caller's account's messages, without database access. */
async function readOutboxOverApi(opts: GlobalOptions, filter: OutboxFilter): Promise<OutboxEntry[]> {
  const { baseUrl, apiKey } = connection(opts);
  const query = new URLSearchParams({ limit: String(filter.limit) });
  if (filter.action) query.set('action_id', filter.action);
  const res = await fetch(`${baseUrl.replace(/\/+$/, '')}/v1/outbox?${query}`, {
    headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
  });
  const body = (await res.json().catch(() => ({}))) as {
    data?: Omit<OutboxEntry, 'account_id'>[];
    message?: string;
  };
  if (!res.ok || !body.data)
    throw new Error(`${body.message ?? 'the outbox is not available'} (HTTP ${res.status})`);
  return body.data.map((m) => ({ ...m, account_id: null }));
}

async function readOutbox(filter: OutboxFilter): Promise<OutboxEntry[]> {
  const { listOutboxMessages } = await serverModule();
  const rows = await withDatabase((d) => listOutboxMessages(d.database.sql, filter));
  return rows.map(toOutboxEntry);
}

export function configureOutboxCommands(program: Command): void {
  const outbox = program
    .command('outbox')
    .description(
      'messages kept because their channel is not configured (the database, or --api: a development server)',
    );
  outbox
    .command('list')
    .description('newest first, every account')
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .option('--account <id>', 'only this account')
    .option('--action <id>', 'only this action')
    .option(
      '--api',
      "over the API (GET /v1/outbox, a development server, the key's account); the default without the server package",
    )
    .action(
      async (opts: { limit: string; account?: string; action?: string; api?: boolean }, cmd: Command) => {
        const filter = parseOutboxFilter(opts);
        if (opts.api && opts.account)
          throw new UsageError('--account is for the database; over the API the key names the account');
        const data =
          opts.api || !serverInstalled()
            ? await readOutboxOverApi(cmd.optsWithGlobals<GlobalOptions>(), filter)
            : await readOutbox(filter);
        print(cmd, { data }, { rows: data as unknown as Record<string, unknown>[], columns: COLUMNS });
      },
    );
  outbox
    .command('show <id>')
    .description('one message as it would have been sent')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      if (!UUID.test(id)) throw new UsageError(`the id must be a UUID, got '${id}'`);
      const { findOutboxMessage } = await serverModule();
      const row = await withDatabase((d) => findOutboxMessage(d.database.sql, id));
      if (!row) throw new Error(`no outbox message ${id}`);
      const entry = toOutboxEntry(row);
      const { rendered, ...fields } = entry;
      printText(cmd, { data: entry }, `${formatFields(Object.entries(fields))}\n\n${rendered.trimEnd()}`);
    });
}
