import { AlertRuleCreateBody } from '@sched/contract';
import type { Command } from 'commander';
import { client, parseOptions, printText } from '../../runtime.js';
import { createBody, type RuleOptions, ruleOptions } from './request.js';
import { describeRule } from './show.js';

export function configureAlertsCreateCommand(alerts: Command): void {
  ruleOptions(
    alerts
      .command('create')
      .description('create an alert rule: --event (repeatable) and at least one channel')
      .requiredOption('--name <name>'),
  ).action(async (opts: RuleOptions, cmd: Command) => {
    const data = await client(cmd).alertRules.create(parseOptions(AlertRuleCreateBody, createBody(opts)));
    printText(cmd, { data }, describeRule(data));
  });
}
