import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { openOrm } from './database.js';

export type Orm = MikroORM;

/** Adds `application_name` so the embedded launcher can tell our connections apart. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  if (!u.searchParams.has('application_name')) u.searchParams.set('application_name', name);
  return u.toString();
}

/** Opens the ORM on its own pool (see database.ts for how its connections are set up). */
export const createOrm = openOrm;

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
