import type { AccountService, Database } from '@sched/server';

/** The server package is loaded only by the verbs that need it: importing it takes about a second. */
export const serverModule = () => import('@sched/server');

/**
 * Admin verbs talk to the database directly, so they work whether or not a server runs.
 * With the embedded PostgreSQL they join the instance a running server started, or start it themselves.
 */
export async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
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
