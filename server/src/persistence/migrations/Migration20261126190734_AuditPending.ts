import { Migration } from '@mikro-orm/migrations';

/**
 * `audit_pending`: audit events written by their change's transaction and chained by the sealer a moment later, so a
 * change takes no lock of the log (docs/performance.md, audit writes). `audit_events.id` (a random UUID) loses its
 * unique index: one index entry less per event.
 */
export class Migration20261126190734_AuditPending extends Migration {
  override name = 'Migration20261126190734_AuditPending';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "audit_pending" ("n" bigserial primary key, "account_id" uuid not null, "at" timestamptz not null, "action" varchar(64) not null, "actor_type" varchar(16) not null, "actor_id" varchar(255) not null, "actor_email" varchar(320) null, "resource_type" varchar(32) not null, "resource_id" varchar(255) not null, "channel" varchar(16) null, "ip" varchar(64) null, "user_agent" varchar(512) null, "request_id" varchar(128) null, "details" jsonb not null);`,
    );
    this.addSql(`create index "audit_pending_account_id_n_index" on "audit_pending" ("account_id", "n");`);

    this.addSql(`alter table "audit_events" drop constraint "audit_events_id_unique";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "audit_pending" cascade;`);

    this.addSql(`alter table "audit_events" add constraint "audit_events_id_unique" unique ("id");`);
  }
}
