import { Migration } from '@mikro-orm/migrations';

/**
 * An action's attempts go with it by a trigger of `actions` instead of a foreign key of `delivery_attempts`. The key
 * checked every attempt's action as it was written (a query and a lock on the action's row, about 54 bytes of WAL,
 * per delivery), cascaded each deleted action's delete into every month of attempts one row at a time, and made each
 * new month of attempts lock `actions` against writes while it was created. The trigger deletes the attempts of a
 * whole statement's actions at once, after it: a retention batch, an account's delete (its cascade to `actions` is a
 * statement too). Attempts are written only by the delivery that updates their action in the same transaction.
 */
export class Migration20261129190000_AttemptsOfDeletedActions extends Migration {
  override name = 'Migration20261129190000_AttemptsOfDeletedActions';

  override up(): void | Promise<void> {
    this.addSql(`alter table "delivery_attempts" drop constraint "delivery_attempts_action_id_foreign";`);
    this.addSql(
      `create or replace function "attempts_of_deleted_actions"() returns trigger as $$ begin delete from delivery_attempts where action_id in (select id from deleted_actions); return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "attempts_of_deleted_actions" after delete on "actions" referencing old table as deleted_actions for each statement execute function "attempts_of_deleted_actions"();`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "attempts_of_deleted_actions" on "actions";`);
    this.addSql(`drop function if exists "attempts_of_deleted_actions"();`);
    this.addSql(
      `delete from "delivery_attempts" d where not exists (select 1 from "actions" a where a.id = d.action_id);`,
    );
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade;`,
    );
  }
}
