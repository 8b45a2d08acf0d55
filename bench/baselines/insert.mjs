// Baseline "insert": Fastify 5 + zod validation of the action body + one INSERT of the row. No auth, no limits,
// no quota: the floor of a create on this stack and this PostgreSQL.
import { lib, args, serveActions } from './common.mjs';

const pg = lib('pg');
const pool = new pg.Pool({ connectionString: args.db, max: 20 });
pool.on('error', () => undefined);
await pool.query(`create table if not exists baseline_actions (
  id uuid primary key default gen_random_uuid(), url text not null, method text not null, headers jsonb,
  body jsonb, status text not null default 'scheduled', scheduled_for timestamptz not null,
  created_at timestamptz not null default now())`);
await pool.query(
  `create index if not exists baseline_actions_due on baseline_actions (scheduled_for) where status = 'scheduled'`,
);
await serveActions(async ({ request, scheduled_for }) => {
  const { rows } = await pool.query(
    `insert into baseline_actions (url, method, headers, body, scheduled_for) values ($1, $2, $3, $4, $5)
     returning id, status, scheduled_for`,
    [
      request.url,
      request.method,
      request.headers ?? null,
      JSON.stringify(request.body ?? null),
      scheduled_for,
    ],
  );
  return rows[0];
});
