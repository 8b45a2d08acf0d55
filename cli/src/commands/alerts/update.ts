import { AlertRuleUpdateBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, collectOption, parseOptions, printText } from '../../runtime.js';
import { type RuleOptions, ruleOptions, updateBody } from './request.js';
import { describeRule } from './show.js';

export function configureAlertsUpdateCommand(alerts: Command): void {
  ruleOptions(
    alerts
      .command('update <id>')
      .description('change the given fields of a rule (channels and events are replaced whole)')
      .option('--name <name>')
      .option('--enabled', 'enable the rule')
      .option(
        '--clear <field>',
        'reset filter, threshold, group_wait, repeat_every or late_after',
        collectOption,
      ),
  ).action(async (id: string, opts: RuleOptions, cmd: Command) => {
    const data = await client(cmd).alertRules.update(id, parseOptions(AlertRuleUpdateBody, updateBody(opts)));
    printText(cmd, { data }, describeRule(data));
  });
}
