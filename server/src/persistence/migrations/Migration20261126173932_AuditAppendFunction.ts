import { Migration } from '@mikro-orm/migrations';

/** `audit_append` (persistence/entities/audit.ts `AuditAppendRoutine`): an append to the audit log in one statement. */
export class Migration20261126173932_AuditAppendFunction extends Migration {
  override name = 'Migration20261126173932_AuditAppendFunction';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "audit_append"("batch" jsonb) returns void language plpgsql as $$ begin declare g jsonb; e jsonb; account uuid; n int; prev varchar(64); cur varchar(64); begin
  for g in select value from jsonb_array_elements(batch) loop
    account := (g->>'account_id')::uuid;     insert into audit_heads as h (account_id, seq, hash, anchor_seq, anchor_hash)
      values (account, 0, repeat('0', 64), 0, repeat('0', 64))
      on conflict (account_id) do update set seq = h.seq
      returning h.seq, h.hash into n, prev;     for e in select value from jsonb_array_elements(g->'events') loop
      n := n + 1;       cur := encode(sha256(convert_to(prev || (e->>'before') || n::text || (e->>'after'), 'UTF8')), 'hex');       insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
        resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
      values (account, n, (e->>'id')::uuid, (e->>'at')::timestamptz, e->>'action', e->>'actor_type',
        e->>'actor_id', e->>'actor_email', e->>'resource_type', e->>'resource_id', e->>'channel', e->>'ip',
        e->>'user_agent', e->>'request_id', e->'details', prev, cur);       prev := cur;     end loop;     update audit_heads set seq = n, hash = prev where account_id = account;   end loop; end; end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop function if exists "audit_append"(jsonb);`);
  }
}
