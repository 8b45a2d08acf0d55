import type { AccountService, OpenDatabase } from '@sched/server';

import type { Command } from 'commander';
import { UsageError } from './runtime.js';

/**
 * Whether the server package can be loaded here: the one check that decides if the admin verbs (serve, migrate,
 * accounts, admin keys, purge) are offered at all, and whether `outbox list` reads the database or the API.
 * Resolving does not load it (loading takes a second).
 */
export function serverInstalled(): boolean {
  try {
    import.meta.resolve('@sched/server');
    return true;
  } catch {
    return false;
  }
}

/**
 * The server package is loaded only by the admin verbs (and `outbox`'s database path): importing it takes
 * about a second, and an installed CLI works without it for every API verb.
 */
export async function serverModule(): Promise<typeof import('@sched/server')> {
  try {
    return await import('@sched/server');
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes('@sched/server'))
      throw err;
    throw new UsageError(ADMIN_VERB_MISSING);
  }
}

const ADMIN_VERB_MISSING =
  'this is an admin verb: it needs the sched server package, which this installation of the CLI does not ' +
  'include. Run it from a checkout of the repository (npm run --silent sched -- <verb>) or where the ' +
  'server is installed; the API verbs (actions, approvals, contacts, channels, team-members, keys, quota) work here.';

/** The admin verbs, for an installation without the server package. */
const ADMIN_VERBS = ['serve', 'migrate', 'accounts', 'admin', 'purge'] as const;

/**
 * Without the server package the admin verbs are not offered (`--help` does not list them), but asking for one by
 * name says what is missing rather than "unknown command".
 */
export function configureMissingAdminVerbs(program: Command): void {
  for (const verb of ADMIN_VERBS) {
    program
      .command(verb, { hidden: true })
      .allowUnknownOption()
      .allowExcessArguments()
      .helpOption(false)
      .action(() => {
        throw new UsageError(ADMIN_VERB_MISSING);
      });
  }
}

/**
 * Admin verbs talk to the database directly, so they work whether or not a server runs.
 * With the embedded PostgreSQL they join the instance a running server started, or start it themselves.
 */
export async function withDatabase<T>(fn: (db: OpenDatabase) => Promise<T>): Promise<T> {
  const { loadConfig, openDatabase } = await serverModule();
  const database = await openDatabase(loadConfig(), { appName: 'sched-cli', poolSize: 2 });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}

export async function withAccounts<T>(fn: (accounts: AccountService) => Promise<T>): Promise<T> {
  const { AccountService } = await serverModule();
  return withDatabase((d) => fn(new AccountService(d.database)));
}
