import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from './database.js';
import { withUrlParam } from './hosts.js';

export type Orm = MikroORM;

/** Adds `application_name` so the embedded launcher can tell our connections apart. */
export function withApplicationName(url: string, name: string): string {
  return withUrlParam(url, 'application_name', name);
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
