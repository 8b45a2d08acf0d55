import { type ChatChannelName, NotificationChannelCreate } from '@sched/contract';
import { type Command, Option } from 'commander';
import { client, parseOptions, print } from '../../runtime.js';
import { CHANNEL_TYPES, table } from './show.js';

export function configureChannelsCreateCommand(channels: Command): void {
  channels
    .command('create')
    .description('add a Slack or Teams incoming webhook')
    .requiredOption('--name <name>')
    .addOption(new Option('--type <type>', 'slack or teams').choices(CHANNEL_TYPES).makeOptionMandatory())
    .requiredOption('--webhook-url <url>', 'the incoming webhook URL Slack or Teams gave you')
    .action(async (opts: { name: string; type: ChatChannelName; webhookUrl: string }, cmd: Command) => {
      const body = parseOptions(NotificationChannelCreate, {
        name: opts.name,
        type: opts.type,
        webhook_url: opts.webhookUrl,
      });
      const data = await client(cmd).channels.create(body);
      print(cmd, { data }, table([data]));
    });
}
