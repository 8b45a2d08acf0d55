import { createHmac } from 'node:crypto';
import pg from 'pg';

/**
 * The role the service connects as: the owner of its database and of everything in it, but no superuser, so a
 * statement run with its credentials cannot turn triggers off for a session (`session_replication_role`, which would
 * silence the audit log's append-only trigger) nor reach the operating system (`COPY ... PROGRAM`).
 */
export const SERVICE_ROLE = 'sched_service';

/** The service role's password: derived from the superuser's, which it does not reveal (one file keeps both). */
export function servicePassword(password: string): string {
  return createHmac('sha256', password).update(SERVICE_ROLE).digest('base64url');
}

/**
 * Makes the service role (creating it when missing) the owner of `database` and of every object in it that the
 * superuser owns: a data directory made before the role existed is moved over on its next start, and later
 * migrations run as the role, so they create what it owns. The superuser keeps administering the cluster.
 */
export async function ensureServiceRole(
  connect: (database: string) => Promise<pg.Client>,
  password: string,
  database: string,
): Promise<void> {
  const admin = await connect('postgres');
  try {
    const role = pg.escapeIdentifier(SERVICE_ROLE);
    const found = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [SERVICE_ROLE]);
    if (!found.rowCount) {
      await admin
        .query(
          `CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD ${pg.escapeLiteral(servicePassword(password))}`,
        )
        .catch((err: unknown) => {
          if ((err as { code?: unknown }).code !== '42710') throw err; // created meanwhile by another process
        });
    }
    await admin.query(`ALTER DATABASE ${pg.escapeIdentifier(database)} OWNER TO ${role}`);
  } finally {
    await admin.end().catch(() => {});
  }
  const db = await connect(database);
  try {
    await db.query(TRANSFER_OWNERSHIP);
  } finally {
    await db.end().catch(() => {});
  }
}

/**
 * Hands every object the superuser owns in the current database (outside the system schemas) to the service role:
 * schemas, tables, views, sequences not owned by a column, routines, and types that are not a table's row or an
 * array. Indexes, a table's own sequences and its row type follow their table. Nothing to do: nothing changes.
 */
const TRANSFER_OWNERSHIP = `DO $$
DECLARE
  r record;
  su oid := (SELECT oid FROM pg_roles WHERE rolname = 'sched');
BEGIN
  FOR r IN SELECT n.nspname FROM pg_namespace n
            WHERE n.nspowner = su AND n.nspname NOT LIKE 'pg_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO ${SERVICE_ROLE}', r.nspname);
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relowner = su AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
              AND n.nspname NOT LIKE 'pg_%' AND n.nspname <> 'information_schema'
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.classid = 'pg_class'::regclass
                                AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i'))
            ORDER BY c.relkind = 'S' LOOP
    EXECUTE format(CASE r.relkind WHEN 'v' THEN 'ALTER VIEW %s OWNER TO ${SERVICE_ROLE}'
                                  WHEN 'm' THEN 'ALTER MATERIALIZED VIEW %s OWNER TO ${SERVICE_ROLE}'
                                  WHEN 'S' THEN 'ALTER SEQUENCE %s OWNER TO ${SERVICE_ROLE}'
                                  WHEN 'f' THEN 'ALTER FOREIGN TABLE %s OWNER TO ${SERVICE_ROLE}'
                                  ELSE 'ALTER TABLE %s OWNER TO ${SERVICE_ROLE}' END, r.name);
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
            WHERE p.proowner = su AND n.nspname NOT LIKE 'pg_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ${SERVICE_ROLE}', r.name);
  END LOOP;
  FOR r IN SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
            WHERE t.typowner = su AND t.typtype IN ('e', 'd', 'r', 'm', 'c')
              AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
              AND n.nspname NOT LIKE 'pg_%' AND n.nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO ${SERVICE_ROLE}', r.name);
  END LOOP;
END $$`;
