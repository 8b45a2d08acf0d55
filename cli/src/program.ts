import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { configureAccountsCommand } from './commands/accounts/index.js';
import { configureActionsCommand } from './commands/actions/index.js';
import { configureAlertsCommand } from './commands/alerts/index.js';
import { configureAdminCommand } from './commands/admin/index.js';
import { configureApprovalsCommand } from './commands/approvals/index.js';
import { configureBulkCommand } from './commands/bulk/index.js';
import { configureChainsCommand } from './commands/chains/index.js';
import { configureChannelsCommand } from './commands/channels/index.js';
import { configureCompletionCommand } from './commands/completion.js';
import { configureConfigCommand } from './commands/config/index.js';
import { configureContactsCommand } from './commands/contacts/index.js';
import { configureCalendarsCommand } from './commands/calendars/index.js';
import { configureDestinationsCommand } from './commands/destinations/index.js';
import { configureDomainsCommand } from './commands/domains/index.js';
import { configureKeysCommand } from './commands/keys/index.js';
import { configureListenCommand } from './commands/listen.js';
import { configureMigrateCommand } from './commands/migrate.js';
import { configureAuditCommand } from './commands/audit/index.js';
import { configureOutboxCommand } from './commands/outbox/index.js';
import { configurePurgeCommand } from './commands/purge.js';
import { configureGrantsCommand } from './commands/grants/index.js';
import { configureMcpCommand } from './commands/mcp.js';
import { configureQuotaCommand } from './commands/quota.js';
import { configureScheduleCommand } from './commands/schedule/index.js';
import { configureServeCommand } from './commands/serve.js';
import { configureSigningSecretCommand } from './commands/signing-secret/index.js';
import { configureTeamMembersCommand } from './commands/team-members/index.js';
import { configureTemplatesCommand } from './commands/templates/index.js';
import { configureTriggerCommand } from './commands/trigger.js';
import { EXIT, reportError } from './runtime.js';
import { configureMissingAdminVerbs, serverInstalled } from './server-package.js';

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
    configureAccountsCommand(program);
    configureAdminCommand(program);
  }
  configureContactsCommand(program);
  configureCalendarsCommand(program);
  configureActionsCommand(program);
  configureBulkCommand(program);
  configureApprovalsCommand(program);
  configureChainsCommand(program);
  configureChannelsCommand(program);
  configureTeamMembersCommand(program);
  // Over the API (--api) it works without the server package too.
  configureOutboxCommand(program);
  configureGrantsCommand(program);
  configureMcpCommand(program);
  configureQuotaCommand(program);
  configureKeysCommand(program);
  configureSigningSecretCommand(program);
  configureAuditCommand(program);
  configureScheduleCommand(program);
  configureConfigCommand(program);
  configureCompletionCommand(program);
  configureTemplatesCommand(program);
  configureTriggerCommand(program);
  configureListenCommand(program);
  configureDomainsCommand(program);
  configureDestinationsCommand(program);
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
