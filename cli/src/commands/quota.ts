import type { Quota } from '@sched/sdk';
import type { Command } from 'commander';
import { client, formatTable, printText } from '../runtime.js';

export function configureQuotaCommand(program: Command): void {
  program
    .command('quota')
    .description("this month's usage against the plan")
    .action(async (_o: unknown, cmd: Command) => {
      const quota = await client(cmd).quota.get();
      printText(cmd, { data: quota }, describeQuota(quota));
    });
}

/** A heading with the plan and period, then used / limit per counted resource (`unlimited` for a null limit). */
export function describeQuota(quota: Quota): string {
  const rows = [
    { resource: 'actions', used: quota.actions.used, limit: quota.actions.limit ?? 'unlimited' },
    { resource: 'emails', used: quota.emails.used, limit: quota.emails.limit },
    { resource: 'sms', used: quota.sms.used, limit: quota.sms.limit },
    { resource: 'chat_messages', used: quota.chat_messages.used, limit: quota.chat_messages.limit },
    { resource: 'team_members', used: quota.team_members.used, limit: quota.team_members.limit },
  ];
  const l = quota.limits;
  return [
    `plan ${quota.plan}, ${quota.period.month_name} ${quota.period.year}; resets ${quota.resets_at}`,
    formatTable(rows, ['resource', 'used', 'limit']),
    `max_attempts ${l.max_attempts}, schedule horizon ${l.schedule_horizon_days} days, history ${l.retention_days} days, ` +
      `${l.max_recipients} recipients per action, ${l.templates} templates, chains ${l.chains ? 'yes' : 'no'}, ` +
      `Slack/Teams ${l.slack_teams ? 'yes' : 'no'}`,
  ].join('\n');
}
