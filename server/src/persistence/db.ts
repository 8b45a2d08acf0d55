import { CompiledQuery } from 'kysely';
import type { QueryResultRow } from 'pg';
import type { Database, Sql as Typed } from './database.js';

/** The one-method port the hot paths talk to: plain SQL with parameters. */
export interface Sql {
  query<R extends QueryResultRow = QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
  /** The typed SQL of the same connection (and transaction), for statements already moved to persistence/. */
  readonly typed: Typed;
}

export interface Db extends Sql {
  /** Runs `fn` in one transaction: everything it writes, including queued jobs, commits or rolls back together. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

/**
 * The untyped port of the code not yet moved to typed SQL (`Database.sql`): it runs on the same connection and
 * transaction as `Database`, so both kinds of statement commit together. Goes when nothing uses it.
 */
/** The typed SQL behind either port, for functions called from both kinds of code while the move lasts. */
export function typedOf(db: Typed | Sql): Typed {
  return 'typed' in db ? db.typed : db;
}

export function createDb(database: Database): Db {
  const query = async <R extends QueryResultRow>(text: string, params?: unknown[]): Promise<R[]> =>
    (await database.sql.executeQuery<R>(CompiledQuery.raw(text, params ?? []))).rows;
  const port = {
    query,
    get typed() {
      return database.sql;
    },
  };
  return Object.assign(Object.create(port) as typeof port, {
    transaction: <T>(fn: (tx: Sql) => Promise<T>) => database.transaction(() => fn(port)),
  });
}

/** The ORM's pool hands timestamps back as text; rows read through it normalise here. */
export function asDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : asDate(value).toISOString();
}
