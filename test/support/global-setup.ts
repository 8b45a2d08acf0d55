import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { ensureEmbeddedPostgres } from '../../server/src/persistence/embedded-postgres.js';
import { isTestDatabaseOfDeadProcess } from './database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL to the `postgres` database of the test server, for creating and dropping databases. */
    adminDatabaseUrl: string;
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when set, else the embedded one in test/.tmp/pg-data,
 * shared with any other run on this checkout and stopped by the last one to finish.
 */
export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env.TEST_DATABASE_URL;
  if (fromEnv) {
    provide('adminDatabaseUrl', fromEnv);
    return async () => {};
  }
  const handle = await ensureEmbeddedPostgres({
    dataDir: path.join(repoRoot, 'test', '.tmp', 'pg-data'),
    database: 'postgres',
    // The tests create and drop databases: they administer the cluster as its superuser.
    serviceRole: false,
  });
  try {
    await dropLeftoverDatabases(handle.url);
  } catch (err) {
    await handle.release();
    throw err;
  }
  provide('adminDatabaseUrl', handle.url);
  return () => handle.release();
}

/** Databases of test processes that died before their drop() (a crash, a Ctrl+C) pile up otherwise. */
async function dropLeftoverDatabases(adminUrl: string) {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'test-global-setup' });
  client.on('error', () => {});
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'",
    );
    for (const { datname } of rows.filter((row) => isTestDatabaseOfDeadProcess(row.datname))) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
}
