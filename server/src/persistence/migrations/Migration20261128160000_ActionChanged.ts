import { Migration } from '@mikro-orm/migrations';

/** An approval's every state change and any action's end are announced (entities/action.ts `action_changed`). */
export class Migration20261128160000_ActionChanged extends Migration {
  override name = 'Migration20261128160000_ActionChanged';

  override up(): void | Promise<void> {
    this.addSql(
      `create or replace function "actions_action_changed_fn"() returns trigger as $$ begin if new.gate is not null or new.status in ('executed', 'failed', 'expired', 'cancelled') then perform pg_notify('sched_action_changed', new.id::text); end if; return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "action_changed" AFTER UPDATE on "actions" for each ROW
  when (((new.status)::text IS DISTINCT FROM (old.status)::text)) execute function "actions_action_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "action_changed" on "actions";`);
    this.addSql(`drop function if exists "actions_action_changed_fn"();`);
  }
}
