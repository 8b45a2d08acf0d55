import { CHAT_CHANNELS, type ChatChannelName } from '@sched/contract';
import type { NotificationChannel } from '@sched/sdk';
import { type Command, Option } from 'commander';
import { client, print, UsageError } from '../runtime.js';

const COLUMNS = ['id', 'name', 'type', 'webhook', 'created_at'];
const CHANNEL_TYPES = CHAT_CHANNELS;

/** Incoming webhook URLs are credentials (anyone holding one can post): tables show the host only, JSON all. */
export function maskWebhookUrl(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return '(invalid URL)';
  }
}

const table = (rows: NotificationChannel[]) => ({
  rows: rows.map((c) => ({ ...c, webhook: maskWebhookUrl(c.webhook_url) })),
  columns: COLUMNS,
});

export function configureChannelsCommands(program: Command): void {
  const channels = program
    .command('channels')
    .description('Slack and Teams destinations for approvals: recipients `channel:<id>` (Business plan)');
  channels
    .command('list')
    .option('--json', 'print JSON')
    .action(async (_o: unknown, cmd: Command) => {
      const data = await client(cmd).channels.list();
      print(cmd, { data }, table(data));
    });
  channels
    .command('create')
    .requiredOption('--name <name>')
    .addOption(new Option('--type <type>', 'slack or teams').choices(CHANNEL_TYPES).makeOptionMandatory())
    .requiredOption('--webhook-url <url>', 'the incoming webhook URL Slack or Teams gave you')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; type: ChatChannelName; webhookUrl: string }, cmd: Command) => {
      const data = await client(cmd).channels.create({
        name: opts.name,
        type: opts.type,
        webhook_url: opts.webhookUrl,
      });
      print(cmd, { data }, table([data]));
    });
  channels
    .command('get <id>')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const data = await client(cmd).channels.get(id);
      print(cmd, { data }, table([data]));
    });
  channels
    .command('update <id>')
    .option('--name <name>')
    .option('--webhook-url <url>')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { name?: string; webhookUrl?: string }, cmd: Command) => {
      if (opts.name === undefined && opts.webhookUrl === undefined)
        throw new UsageError('give --name and/or --webhook-url');
      const data = await client(cmd).channels.update(id, {
        ...(opts.name !== undefined ? { name: opts.name } : {}),
        ...(opts.webhookUrl !== undefined ? { webhook_url: opts.webhookUrl } : {}),
      });
      print(cmd, { data }, table([data]));
    });
  channels
    .command('delete <id>')
    .option('--json', 'print JSON')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      await client(cmd).channels.delete(id);
      if (cmd.optsWithGlobals().json) print(cmd, { deleted: id });
      else process.stdout.write(`deleted ${id}\n`);
    });
}
