import { NotificationChannelUpdate } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, print, UsageError } from '../../runtime.js';
import { table } from './show.js';

export function configureChannelsUpdateCommand(channels: Command): void {
  channels
    .command('update <id>')
    .description('rename a destination or change its webhook URL')
    .option('--name <name>')
    .option('--webhook-url <url>')
    .option('--slack-channel-id <id>', 'Slack app mode: post to this channel instead of a webhook')
    .action(
      async (
        id: string,
        opts: { name?: string; webhookUrl?: string; slackChannelId?: string },
        cmd: Command,
      ) => {
        if (opts.name === undefined && opts.webhookUrl === undefined && opts.slackChannelId === undefined)
          throw new UsageError('give --name, --webhook-url or --slack-channel-id');
        const body = parseOptions(NotificationChannelUpdate, {
          ...(opts.name !== undefined ? { name: opts.name } : {}),
          ...(opts.webhookUrl !== undefined ? { webhook_url: opts.webhookUrl } : {}),
          ...(opts.slackChannelId !== undefined ? { slack_channel_id: opts.slackChannelId } : {}),
        });
        const data = await client(cmd).channels.update(id, body);
        print(cmd, { data }, table([data]));
      },
    );
}
