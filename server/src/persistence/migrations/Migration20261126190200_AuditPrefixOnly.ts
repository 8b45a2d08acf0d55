import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log's trigger lets retention delete only events at or before the chain's anchor (which it moves to the
 * last dropped event first): with the retention setting alone, a row past the anchor is still refused.
 */
export class Migration20261126190200_AuditPrefixOnly extends Migration {
  override name = 'Migration20261126190200_AuditPrefixOnly';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "audit_events_append_only" on "audit_events";`);
    this.addSql(`drop function if exists "audit_events_audit_events_append_only_fn"();`);
    this.addSql(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as $$ begin if tg_op = 'DELETE' and current_setting('sched.audit_retention', true) = 'prefix' and old.seq <= (select h.anchor_seq from audit_heads h where h.account_id = old.account_id) then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "audit_events_append_only" BEFORE UPDATE OR DELETE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "audit_events_append_only" on "audit_events";`);
    this.addSql(`drop function if exists "audit_events_audit_events_append_only_fn"();`);
    this.addSql(
      `create or replace function "audit_events_audit_events_append_only_fn"() returns trigger as $$ begin if tg_op = 'DELETE' and current_setting('sched.audit_retention', true) = 'prefix' then return old; end if; raise exception 'audit_events is append-only: % refused', tg_op using errcode = 'insufficient_privilege'; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "audit_events_append_only" BEFORE DELETE OR UPDATE on "audit_events" for each ROW execute function "audit_events_audit_events_append_only_fn"();`,
    );
  }
}
