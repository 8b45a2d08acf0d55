import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (docs/audit.md): `audit_events`, one hash chain per account, and `audit_heads`, each account's head
 * and retention anchor. A trigger makes the events append-only: UPDATE and DELETE are refused unless the
 * transaction set `sched.audit_retention` to `prefix` (persistence/audit-events.ts `dropAuditPrefix`, the one path
 * that drops, and only a whole prefix).
 */
export class Migration20261125051000_AuditEvents extends Migration {
  override name = 'Migration20261125051000_AuditEvents';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_events" ("account_id" uuid not null, "seq" int not null, "id" uuid not null, "at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(255) not null, "actor_email" varchar(320) null, "resource_type" varchar(32) not null, "resource_id" varchar(255) not null, "channel" varchar(16) null, "ip" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, "details" jsonb not null, "prev_hash" varchar(64) not null, "hash" varchar(64) not null, primary key ("account_id", "seq"))`,
    );
    this.addSql(`alter table "audit_events" add constraint "audit_events_id_unique" unique ("id")`);
    this.addSql(
      `create index "audit_events_account_id_resource_id_seq_index" on "audit_events" ("account_id", "resource_id", "seq")`,
    );
    this.addSql(`create index "audit_events_account_id_at_index" on "audit_events" ("account_id", "at")`);
    this.addSql(
      `create table "audit_heads" ("account_id" uuid not null, "seq" int not null default 0, "hash" varchar(64) not null, "anchor_seq" int not null default 0, "anchor_hash" varchar(64) not null, primary key ("account_id"))`,
    );
    this.addSql(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as $$ begin if tg_op = 'DELETE' and current_setting('sched.audit_retention', true) = 'prefix' then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "audit_events_append_only" BEFORE UPDATE OR DELETE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_events" cascade`);
    this.addSql(`drop table if exists "audit_heads" cascade`);
    this.addSql(`drop function if exists "audit_events_audit_events_append_only_fn"()`);
  }
}
