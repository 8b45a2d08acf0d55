import type { Pool, PoolClient, QueryResultRow } from 'pg';

/** The one-method port the hot paths talk to: plain SQL with parameters. */
export interface Sql {
  query<R extends QueryResultRow = QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
}

export interface Db extends Sql {
  /** Runs `fn` in one transaction: everything it writes, including queued jobs, commits or rolls back together. */
  transaction<T>(fn: (tx: Sql & { client: PoolClient }) => Promise<T>): Promise<T>;
  pool: Pool;
}

export function createDb(pool: Pool): Db {
  return {
    pool,
    async query(text, params) {
      return (await pool.query(text, params as unknown[])).rows;
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          client,
          async query(text, params) {
            return (await client.query(text, params as unknown[])).rows;
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** The ORM's pool hands timestamps back as text; rows read through it normalise here. */
export function asDate(value: Date | string): Date {
  return value instanceof Date ? value : new Date(value);
}

export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : asDate(value).toISOString();
}
