import { type Database, loadConfig, openDatabase } from '@sched/server';

/**
 * Admin verbs talk to the database directly, so they work whether or not a server runs.
 * With the embedded PostgreSQL they join the instance a running server started, or start it themselves.
 */
export async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = await openDatabase(config, { appName: 'sched-cli', poolSize: 2 });
  try {
    return await fn(database);
  } finally {
    await database.close();
  }
}
