import { type ChatChannelName, NotificationChannelCreate } from '@sched/contract';
import { type Command, Option } from 'commander';
import { client, parseOptions, print } from '../../runtime.js';
import { CHANNEL_TYPES, table } from './show.js';

export function configureChannelsCreateCommand(channels: Command): void {
  channels
    .command('create')
    .description('add a Slack or Teams destination: a webhook URL, or a Slack channel the Slack app posts to')
    .requiredOption('--name <name>')
    .addOption(new Option('--type <type>', 'slack or teams').choices(CHANNEL_TYPES).makeOptionMandatory())
    .option('--webhook-url <url>', 'the Slack incoming webhook, or the Teams Workflows URL')
    .option(
      '--slack-channel-id <id>',
      'Slack app mode: the channel id (C…) the bot posts to, instead of a webhook',
    )
    .action(
      async (
        opts: { name: string; type: ChatChannelName; webhookUrl?: string; slackChannelId?: string },
        cmd: Command,
      ) => {
        const body = parseOptions(NotificationChannelCreate, {
          name: opts.name,
          type: opts.type,
          ...(opts.webhookUrl !== undefined ? { webhook_url: opts.webhookUrl } : {}),
          ...(opts.slackChannelId !== undefined ? { slack_channel_id: opts.slackChannelId } : {}),
        });
        const data = await client(cmd).channels.create(body);
        print(cmd, { data }, table([data]));
      },
    );
}
