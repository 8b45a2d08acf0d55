import { Migration } from '@mikro-orm/migrations';

const COLUMNS = `"account_id" uuid not null, "id" uuid not null, "at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(255) not null, "actor_email" varchar(320) null, "resource_type" varchar(32) not null, "resource_id" varchar(255) not null, "channel" varchar(16) null, "ip" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, "details" jsonb not null, "seq" int not null`;

const COPIED =
  'account_id, id, at, action, actor_type, actor_id, actor_email, resource_type, resource_id, channel, ip, user_agent, request_id, details, seq, prev_hash, hash';

/**
 * Each audit event stored once (docs/audit.md, what it costs): a change inserts its event straight into
 * `audit_events` as pending (negative provisional `seq`, canonical text, no hash) and `audit_seal` seals a batch in
 * place with one UPDATE, instead of writing it to `audit_pending` and moving it. Every event still pending is chained
 * first by the sealer it was written for, then the log is copied into the new layout unchanged (same seq, hashes,
 * head and anchor), so the chain holds across the upgrade. The columns the seal writes come last and the table keeps
 * room on its pages (fillfactor 60), so a sealed version is written beside its pending one and the WAL carries only
 * what changed; `(account_id, at)` becomes a BRIN on `at`; a partial index finds the pending rows.
 */
export class Migration20261128170000_AuditStoredOnce extends Migration {
  override name = 'Migration20261128170000_AuditStoredOnce';

  override async up(): Promise<void> {
    await this.execute(
      'select audit_seal(p.account_id, 2147483647) from (select distinct account_id from audit_pending) p',
    );
    await this.execute(
      `create table "audit_events_next" (${COLUMNS}, "prev_hash" varchar(64) null, "hash" varchar(64) null, "canon_head" text null, "canon_tail" text null) with (fillfactor = 60);`,
    );
    await this.execute(
      `insert into "audit_events_next" (${COPIED}) select ${COPIED} from "audit_events" order by at, account_id, seq;`,
    );
    await this.execute(`drop table "audit_events" cascade;`);
    await this.execute(`drop function if exists "audit_events_audit_events_append_only_fn"();`);
    await this.execute(`drop table "audit_pending" cascade;`);
    await this.execute(`alter table "audit_events_next" rename to "audit_events";`);
    await this.execute(
      `alter table "audit_events" add constraint "audit_events_pkey" primary key ("account_id", "seq");`,
    );
    await this.execute(
      `create index "audit_events_account_id_resource_id_seq_index" on "audit_events" ("account_id", "resource_id", "seq");`,
    );
    await this.execute(`create index "audit_events_at_brin" on "audit_events" using brin ("at");`);
    await this.execute(
      `create index "audit_events_pending_index" on "audit_events" ("account_id", "seq") where "seq" < 0;`,
    );
    await this.execute(`create sequence "audit_events_pending_seq" as integer cycle;`);
    await this.execute(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as $$ begin ${TRIGGER}; end; $$ language plpgsql;`,
    );
    await this.execute(
      `create trigger "audit_events_append_only" BEFORE UPDATE OR DELETE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );
    await this.execute(SEAL);
  }

  override async down(): Promise<void> {
    await this.execute(
      'select audit_seal(p.account_id, 2147483647) from (select distinct account_id from audit_events where seq < 0) p',
    );
    await this.execute(
      `create table "audit_events_prev" ("account_id" uuid not null, "seq" int not null, "id" uuid not null, "at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(255) not null, "actor_email" varchar(320) null, "resource_type" varchar(32) not null, "resource_id" varchar(255) not null, "channel" varchar(16) null, "ip" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, "details" jsonb not null, "prev_hash" varchar(64) not null, "hash" varchar(64) not null);`,
    );
    await this.execute(`insert into "audit_events_prev" (${COPIED}) select ${COPIED} from "audit_events";`);
    await this.execute(`drop table "audit_events" cascade;`);
    await this.execute(`drop sequence if exists "audit_events_pending_seq";`);
    await this.execute(`alter table "audit_events_prev" rename to "audit_events";`);
    await this.execute(
      `alter table "audit_events" add constraint "audit_events_pkey" primary key ("account_id", "seq");`,
    );
    await this.execute(
      `create index "audit_events_account_id_resource_id_seq_index" on "audit_events" ("account_id", "resource_id", "seq");`,
    );
    await this.execute(
      `create index "audit_events_account_id_at_index" on "audit_events" ("account_id", "at");`,
    );
    await this.execute(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as $$ begin if tg_op = 'DELETE' and current_setting('sched.audit_retention', true) = 'prefix' and old.seq <= (select h.anchor_seq from audit_heads h where h.account_id = old.account_id) then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'; end; $$ language plpgsql;`,
    );
    await this.execute(
      `create trigger "audit_events_append_only" BEFORE UPDATE OR DELETE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );
    await this.execute(
      `create table "audit_pending" ("n" bigserial, "account_id" uuid not null, "at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(255) not null, "actor_email" varchar(320) null, "resource_type" varchar(32) not null, "resource_id" varchar(255) not null, "channel" varchar(16) null, "ip" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, "details" jsonb not null, "id" uuid not null, "canon_head" text not null, "canon_tail" text not null, primary key ("account_id", "n"));`,
    );
    await this.execute(PREVIOUS_SEAL);
  }
}

const TRIGGER = `if tg_op = 'UPDATE' and old.seq < 0 and old.hash is null and new.seq > 0 and new.hash is not null then return new; end if; if tg_op = 'DELETE' and old.seq > 0 and current_setting('sched.audit_retention', true) = 'prefix' and old.seq <= (select h.anchor_seq from audit_heads h where h.account_id = old.account_id) then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'`;

const SEAL = `create or replace function "audit_seal"("p_account" uuid, "p_limit" integer) returns integer language sql as $$ insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
  values (p_account, 0, repeat('0', 64), 0, repeat('0', 64))
  on conflict (account_id) do update set seq = audit_heads.seq; with head as (
  select h.seq, h.hash from audit_heads h where h.account_id = p_account
), taken as (
  select e.seq as pending, e.canon_head, e.canon_tail from audit_events e
  where e.account_id = p_account and e.seq < 0 order by e.seq desc limit p_limit
), numbered as (
  select taken.*, head.seq + row_number() over (order by taken.pending desc) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), linked as (
  select pending, seq, coalesce(lag(hash) over (order by seq), head_hash) as prev_hash, hash from chained
), sealed as (
  update audit_events e set seq = l.seq, prev_hash = l.prev_hash, hash = l.hash, canon_head = null, canon_tail = null
  from linked l where e.account_id = p_account and e.seq = l.pending
  returning e.seq, e.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select s.seq, s.hash from sealed s order by s.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from sealed; $$;`;

const PREVIOUS_SEAL = `create or replace function "audit_seal"("p_account" uuid, "p_limit" integer) returns integer language sql as $$ insert into audit_heads (account_id, seq, hash, anchor_seq, anchor_hash)
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
  select taken.*, head.seq + row_number() over (order by taken.n) as seq, head.hash as head_hash
  from taken cross join head
), chained as (
  select numbered.*, audit_chain(canon_head, seq, canon_tail, head_hash) over (order by seq) as hash
  from numbered
), appended as (
  insert into audit_events (account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type,
    resource_id, channel, ip, user_agent, request_id, details, prev_hash, hash)
  select account_id, seq, id, at, action, actor_type, actor_id, actor_email, resource_type, resource_id, channel,
    ip, user_agent, request_id, details, coalesce(lag(hash) over (order by seq), head_hash), hash
  from chained
  returning audit_events.seq, audit_events.hash
), moved as (
  update audit_heads set seq = last.seq, hash = last.hash
  from (select a.seq, a.hash from appended a order by a.seq desc limit 1) last
  where audit_heads.account_id = p_account
)
select count(*)::integer from appended; $$;`;
