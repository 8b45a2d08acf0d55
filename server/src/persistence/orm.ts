import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { entities } from './entities/index.js';
import { migrationsList } from './migrations/index.js';

export type Orm = MikroORM;

/** Adds `application_name` so the embedded launcher can tell our connections apart. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('application_name')) u.searchParams.set('application_name', name);
  return u.toString();
}

export async function createOrm(opts: {
  databaseUrl: string;
  poolSize?: number;
  debug?: boolean;
  log?: (m: string) => void;
}): Promise<Orm> {
  return MikroORM.init({
    clientUrl: opts.databaseUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: opts.poolSize ?? 20 },
    debug: opts.debug ?? false,
    logger: (message: string) => opts.log?.(message),
    allowGlobalContext: false,
    migrations: {
      tableName: 'sched_migrations',
      migrationsList,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
    },
  });
}

/** The `pg` pool behind the ORM: hot paths and job-queue transactions use it directly. */
export async function nativePool(orm: Orm): Promise<Pool> {
  return (await orm.em.getConnection().getNativeClient()) as Pool;
}

export async function migrateUp(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.migrator.getPending()).map((m) => m.name);
}
