import { Migration } from '@mikro-orm/migrations';
import { SEAL as SEAL_BEFORE } from './Migration20261126200626_AuditSealInDatabase.js';

/**
 * A pending audit event is stored once: as its canonical JSON (`canon_head`, `canon_tail`), which every pending row
 * already carries, and from which `audit_seal` now reads the chained row's columns. The columns that held the same
 * event a second time go, about a third of the WAL an event wrote before it was chained (docs/audit.md, what it
 * costs). The function's DDL is what MikroORM generates from the routine (persistence/entities/audit.ts).
 */
export class Migration20261129020000_AuditPendingOnce extends Migration {
  override name = 'Migration20261129020000_AuditPendingOnce';

  override async up(): Promise<void> {
    // The function first: a seal between the two statements would otherwise read columns that are gone.
    await this.execute(SEAL);
    await this.execute(
      `alter table "audit_pending" drop column "id", drop column "at", drop column "action", drop column "actor_type", drop column "actor_id", drop column "actor_email", drop column "resource_type", drop column "resource_id", drop column "channel", drop column "ip", drop column "user_agent", drop column "request_id", drop column "details";`,
    );
  }

  override async down(): Promise<void> {
    // Events still pending when going back are chained first, so none needs the columns back filled in.
    await this.execute(
      `select audit_seal(a.account_id, 2147483647) from (select distinct account_id from audit_pending) a;`,
    );
    await this.execute(
      `alter table "audit_pending" add column "id" uuid not null, add column "at" timestamptz not null, add column "action" varchar(64) not null, add column "actor_type" varchar(16) not null, add column "actor_id" varchar(255) not null, add column "actor_email" varchar(320) null, add column "resource_type" varchar(32) not null, add column "resource_id" varchar(255) not null, add column "channel" varchar(16) null, add column "ip" varchar(64) null, add column "user_agent" varchar(512) null, add column "request_id" varchar(128) null, add column "details" jsonb not null;`,
    );
    await this.execute(SEAL_BEFORE);
  }
}

const SEAL = `create or replace function "audit_seal"("p_account" uuid, "p_limit" integer) returns integer language sql as $$ insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
  values (p_account, 0, repeat('0', 64), 0, repeat('0', 64))
  on conflict (account_id) do update set seq = audit_heads.seq; with head as (
  select h.seq, h.hash from audit_heads h where h.account_id = p_account
), taken as (
  delete from audit_pending
  where account_id = p_account and n <= (
    select max(oldest.n) from (
      select p.n from audit_pending p where p.account_id = p_account order by p.n limit p_limit) oldest)
  returning *
), numbered as (
  select taken.*, (taken.canon_head || '0' || taken.canon_tail)::jsonb as e,
    head.seq + row_number() over (order by taken.n) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), appended as (
  insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
    resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
  select account_id, seq, (e->>'id')::uuid, (e->>'at')::timestamptz, e->>'action', e->'actor'->>'type',
    e->'actor'->>'id', e->'actor'->>'email', e->'resource'->>'type', e->'resource'->>'id', e->>'channel', e->>'ip',
    e->>'user_agent', e->>'request_id', e->'details', coalesce(lag(hash) over (order by seq), head_hash), hash
  from chained
  returning audit_events.seq, audit_events.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select a.seq, a.hash from appended a order by a.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from appended; $$;`;
