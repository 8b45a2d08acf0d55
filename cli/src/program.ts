import { Command } from 'commander';
import { configureAccountsCommands } from './commands/accounts.js';
import { configureActionsCommands } from './commands/actions.js';
import { configureApprovalsCommands } from './commands/approvals.js';
import { configureChannelsCommands } from './commands/channels.js';
import { configureContactsCommands } from './commands/contacts.js';
import { configureDomainsCommands } from './commands/domains.js';
import { configureOutboxCommands } from './commands/outbox.js';
import { configurePurgeCommand } from './commands/purge.js';
import { configureQuotaCommand } from './commands/quota.js';
import { configureMigrateCommand, configureServeCommand } from './commands/serve.js';
import { configureTeamMembersCommands } from './commands/team-members.js';
import { EXIT, reportError } from './runtime.js';

export function buildProgram(): Command {
  const program = new Command('sched')
    .version('0.1.0')
    .description('sched: scheduled webhooks and human approvals')
    .option('--api-url <url>', 'service root URL (SCHED_API_URL)')
    .option('--api-key <key>', 'API key (SCHED_API_KEY)')
    .showHelpAfterError()
    .exitOverride();
  configureServeCommand(program);
  configureMigrateCommand(program);
  configureAccountsCommands(program);
  configureContactsCommands(program);
  configureActionsCommands(program);
  configureApprovalsCommands(program);
  configureChannelsCommands(program);
  configureTeamMembersCommands(program);
  configureOutboxCommands(program);
  configureQuotaCommand(program);
  configureDomainsCommands(program);
  configurePurgeCommand(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help')
      return EXIT.ok;
    if (typeof code === 'string' && code.startsWith('commander.')) return EXIT.usage;
    return reportError(err);
  }
}
