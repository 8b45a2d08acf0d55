import { chmodSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { isAlive } from '../../server/src/embedded/host.js';
import { migrateUp, openOrm } from '../../server/src/persistence/database.js';
import { ensureEmbeddedPostgres } from '../../server/src/persistence/embedded-postgres.js';
import { contentHash } from './content-hash.js';
import { isTestDatabaseOfDeadProcess, withAdminClient, withSharedLock } from './database.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A URL to the `postgres` database of the test server, for creating and dropping databases. */
    adminDatabaseUrl: string;
    /** A database with every migration applied, which a test's database is copied from (database.ts). */
    migratedTemplate: string;
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
    provide('migratedTemplate', await ensureMigratedTemplate(fromEnv));
    return runTemporaryFolder();
  }
  const handle = await ensureEmbeddedPostgres({
    dataDir: path.join(repoRoot, 'test', '.tmp', 'pg-data'),
    database: 'postgres',
    // The tests create and drop databases: they administer the cluster as its superuser.
    serviceRole: false,
  });
  try {
    await dropLeftoverDatabases(handle.url);
    provide('migratedTemplate', await ensureMigratedTemplate(handle.url));
  } catch (err) {
    await handle.release();
    throw err;
  }
  provide('adminDatabaseUrl', handle.url);
  // After the shared PostgreSQL has started: it may outlive this run, and must not keep anything in its folder.
  const removeTemporaryFolder = runTemporaryFolder();
  return async () => {
    await handle.release();
    await removeTemporaryFolder();
  };
}

/**
 * One temporary folder for the run, removed when it ends. The tests make theirs with mkdtemp in os.tmpdir() (a
 * server's data folder, packed tarballs, a global npm install of a few hundred megabytes, a browser's profile), and
 * the processes they start inherit TMPDIR: without it every run left them behind in the system's folder.
 */
function runTemporaryFolder(): () => Promise<void> {
  const system = tmpdir();
  // Those of runs that were killed before their teardown (their process is gone), as dropLeftoverDatabases does.
  for (const name of readdirSync(system)) {
    const pid = Number(/^sched-run-(\d+)-/.exec(name)?.[1]);
    if (pid && !isAlive(pid)) rmSync(path.join(system, name), { recursive: true, force: true });
  }
  const folder = mkdtempSync(path.join(system, `sched-run-${process.pid}-`));
  // Others may pass through, as through the system's folder: the tests that run PostgreSQL as its own user (as root
  // does) give it a folder inside. Each file's own folders keep mkdtemp's owner-only mode.
  chmodSync(folder, 0o755);
  process.env.TMPDIR = folder;
  return async () => rmSync(folder, { recursive: true, force: true });
}

const MIGRATIONS = path.join(repoRoot, 'server', 'src', 'persistence', 'migrations');
const TEMPLATE_PREFIX = 'sched_template_';

/**
 * A database with every migration applied, made once per set of migrations (its name carries their hash) and
 * shared by the runs on this server: copying it (CREATE DATABASE ... TEMPLATE) costs a fraction of migrating a
 * fresh one, which every test file and every server it starts would otherwise do. It is built under another name
 * and renamed when complete, under an advisory lock, so that no run copies a half-migrated one.
 */
async function ensureMigratedTemplate(adminUrl: string): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${contentHash(MIGRATIONS, ['.'])}`;
  return withSharedLock(adminUrl, 'sched test template', async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`,
      [TEMPLATE_PREFIX],
    );
    // Templates of other migrations (and a build a run left unfinished): a run of an older checkout makes its own.
    for (const { datname } of rows.filter((row) => row.datname !== name))
      await client
        .query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`)
        .catch(() => undefined);
    if (rows.some((row) => row.datname === name)) return name;
    const building = `${name}_building`;
    await client.query(`CREATE DATABASE ${pg.escapeIdentifier(building)}`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const orm = await openOrm({ databaseUrl: url.toString(), poolSize: 1 });
    try {
      await migrateUp(orm);
    } finally {
      await orm.close();
    }
    await client.query(
      `ALTER DATABASE ${pg.escapeIdentifier(building)} RENAME TO ${pg.escapeIdentifier(name)}`,
    );
    return name;
  });
}

/** Databases of test processes that died before their drop() (a crash, a Ctrl+C) pile up otherwise. */
async function dropLeftoverDatabases(adminUrl: string) {
  await withAdminClient(adminUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'test\\_%'",
    );
    for (const { datname } of rows.filter((row) => isTestDatabaseOfDeadProcess(row.datname))) {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
    }
  });
}
