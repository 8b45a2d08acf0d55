import { Migration } from '@mikro-orm/migrations';

/**
 * The origins each account's actions aim at, one row each (entities/destination.ts `ActionOriginSchema`), filled from
 * the actions already there: the destinations list pages through them instead of finding them among the actions, one
 * index probe a host. From here on the create's insert adds an origin's row and retention removes it.
 */
export class Migration20261130050000_ActionOrigins extends Migration {
  override name = 'Migration20261130050000_ActionOrigins';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "action_origins" ("account_id" uuid not null, "origin" varchar(300) not null, primary key ("account_id", "origin"));`,
    );
    this.addSql(
      `alter table "action_origins" add constraint "action_origins_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );
    this.addSql(
      `insert into "action_origins" ("account_id", "origin") select distinct "account_id", "destination_origin" from "actions" where "destination_origin" is not null;`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "action_origins";`);
  }
}
