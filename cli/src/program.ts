import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { configureAccountsCommands } from './commands/accounts.js';
import { configureMissingAdminVerbs, serverInstalled } from './commands/admin.js';
import { configureAdminCommand } from './commands/admin-keys/index.js';
import { configureActionsCommands } from './commands/actions/index.js';
import { configureAlertsCommand } from './commands/alerts/index.js';
import { configureApprovalsCommands } from './commands/approvals/index.js';
import { configureBulkCommands } from './commands/bulk/index.js';
import { configureChainsCommands } from './commands/chains/index.js';
import { configureChannelsCommands } from './commands/channels/index.js';
import { configureCompletionCommand } from './commands/completion.js';
import { configureConfigCommands } from './commands/config/index.js';
import { configureContactsCommand } from './commands/contacts/index.js';
import { configureDestinationsCommands } from './commands/destinations.js';
import { configureDomainsCommands } from './commands/domains/index.js';
import { configureKeysCommand } from './commands/keys/index.js';
import { configureOutboxCommands } from './commands/outbox.js';
import { configurePurgeCommand } from './commands/purge.js';
import { configureQuotaCommand } from './commands/quota.js';
import { configureScheduleCommands } from './commands/schedule/preview.js';
import { configureMigrateCommand, configureServeCommand } from './commands/serve.js';
import { configureTeamMembersCommands } from './commands/team-members/index.js';
import { configureTemplatesCommands } from './commands/templates/index.js';
import { EXIT, reportError } from './runtime.js';

/** The package's version: package.json sits one level above both dist/ (the repository) and bundle/ (installed). */
function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function buildProgram(): Command {
  const program = new Command('sched')
    .version(cliVersion())
    .description('sched: scheduled webhooks and human approvals')
    .option('--api-url <url>', 'service root URL (SCHED_API_URL)')
    .option('--api-key <key>', 'API key (SCHED_API_KEY)')
    .option('--json', 'print JSON (for scripts) instead of tables')
    .showHelpAfterError()
    .exitOverride();
  // The admin verbs run the server or talk to its database: offered only where the server package is installed.
  const admin = serverInstalled();
  if (admin) {
    configureServeCommand(program);
    configureMigrateCommand(program);
    configureAccountsCommands(program);
    configureAdminCommand(program);
  }
  configureContactsCommand(program);
  configureActionsCommands(program);
  configureBulkCommands(program);
  configureApprovalsCommands(program);
  configureChainsCommands(program);
  configureChannelsCommands(program);
  configureTeamMembersCommands(program);
  if (admin) configureOutboxCommands(program);
  configureQuotaCommand(program);
  configureKeysCommand(program);
  configureScheduleCommands(program);
  configureConfigCommands(program);
  configureCompletionCommand(program);
  configureTemplatesCommands(program);
  configureDomainsCommands(program);
  configureDestinationsCommands(program);
  configureAlertsCommand(program);
  if (admin) configurePurgeCommand(program);
  else configureMissingAdminVerbs(program);
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
