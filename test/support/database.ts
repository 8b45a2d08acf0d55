import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { isAlive } from '../../server/src/embedded/host.js';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Names look like test_<prefix>_<pid>_<random>: the pid lets a later run drop what a crashed one left. */
const TEST_DATABASE_NAME = /^test_[a-z0-9_]*_(\d+)_[0-9a-f]{8}$/;

/**
 * A fresh database on the test server (see global-setup.ts), so every test file works in its own: a copy of the
 * migrated template, or with `empty`, one without any table (for a test that migrates it step by step).
 * Call drop() in afterAll.
 */
export async function createTestDatabase(
  prefix: string,
  opts: { empty?: boolean } = {},
): Promise<TestDatabase> {
  const adminUrl = inject('adminDatabaseUrl');
  const label = prefix
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 30);
  const name = `test_${label}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const template = opts.empty ? '' : ` TEMPLATE ${pg.escapeIdentifier(inject('migratedTemplate'))}`;
  await withAdminClient(adminUrl, (client) =>
    client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${template}`),
  );

  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    url: url.toString(),
    drop() {
      // FORCE: a pool the test forgot to close must not keep the database alive.
      dropped ??= withAdminClient(adminUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      });
      return dropped;
    },
  };
}

/** Whether a database name is one createTestDatabase made in a process that no longer runs. */
export function isTestDatabaseOfDeadProcess(name: string) {
  const pid = Number(TEST_DATABASE_NAME.exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 && !isAlive(pid);
}

/**
 * `fn` holding the test server's advisory lock `name`, on an admin client (the lock goes with it): the build of
 * something the files share (the migrated template, the SDK's bundle) runs once while the others wait for it.
 */
export function withSharedLock<T>(
  adminUrl: string,
  name: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  return withAdminClient(adminUrl, async (client) => {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    return fn(client);
  });
}

/** `fn` with a client of the test server's `postgres` database (creating, copying and dropping databases). */
export async function withAdminClient<T>(
  adminUrl: string,
  fn: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'test-admin' });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
