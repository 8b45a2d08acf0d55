import { Migration } from '@mikro-orm/migrations';

/**
 * `audit_append` (persistence/entities/audit.ts `AuditAppendRoutine`): an append to the audit log in one statement,
 * so no round trip happens under an account's head lock and a plain create stays one statement. `audit_events.id`
 * (a random UUID) loses its unique index: one index entry less per event (docs/performance.md, audit writes).
 */
export class Migration20261126190221_AuditAppend extends Migration {
  override name = 'Migration20261126190221_AuditAppend';

  override up(): void | Promise<void> {
    this.addSql(`alter table "audit_events" drop constraint "audit_events_id_unique";`);

    this.addSql(`create or replace function "audit_append"("batch" jsonb) returns void language plpgsql as $$ begin declare g jsonb; e jsonb; account uuid; n int; prev varchar(64); prevs varchar(64)[]; hashes varchar(64)[]; begin
  for g in select value from jsonb_array_elements(batch) loop
    account := (g->>'account_id')::uuid;     insert into audit_heads as h (account_id, seq, hash, anchor_seq, anchor_hash)
      values (account, 0, repeat('0', 64), 0, repeat('0', 64))
      on conflict (account_id) do update set seq = h.seq
      returning h.seq, h.hash into n, prev;     prevs := '{}';     hashes := '{}';     for e in select value from jsonb_array_elements(g->'events') loop
      prevs := prevs || prev;       prev := encode(sha256(convert_to(prev || (e->>'before') || (n + cardinality(prevs))::text || (e->>'after'), 'UTF8')), 'hex');       hashes := hashes || prev;     end loop;     insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
      resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
    select account, n + x.ord, x.id, x.at, x.action, x.actor_type, x.actor_id, x.actor_email, x.resource_type,
      x.resource_id, x.channel, x.ip, x.user_agent, x.request_id, x.details, prevs[x.ord], hashes[x.ord]
    from rows from (jsonb_to_recordset(g->'events') as (id uuid, at timestamptz, action varchar, actor_type varchar,
      actor_id varchar, actor_email varchar, resource_type varchar, resource_id varchar, channel varchar, ip varchar,
      user_agent varchar, request_id varchar, details jsonb)) with ordinality as x(id, at, action, actor_type, actor_id,
      actor_email, resource_type, resource_id, channel, ip, user_agent, request_id, details, ord);     update audit_heads set seq = n + cardinality(hashes), hash = prev where account_id = account;   end loop; end; end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "audit_events" add constraint "audit_events_id_unique" unique ("id");`);

    this.addSql(`drop function if exists "audit_append"(jsonb);`);
  }
}
