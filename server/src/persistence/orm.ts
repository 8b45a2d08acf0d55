import type { MikroORM } from '@mikro-orm/postgresql';
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

export async function migrateUp(orm: Orm): Promise<string[]> {
  const done = await orm.migrator.up();
  return done.map((m) => m.name);
}

export async function pendingMigrations(orm: Orm): Promise<string[]> {
  return (await orm.migrator.getPending()).map((m) => m.name);
}
