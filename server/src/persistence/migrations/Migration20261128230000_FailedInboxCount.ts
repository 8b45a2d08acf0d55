import { Migration } from '@mikro-orm/migrations';

/**
 * The failed inbox's total kept by the database (entities/failed-inbox.ts): a base per account, the deltas its row
 * triggers on `actions` append, and the base filled from the rows already there. The triggers are created before the
 * count, in this migration's one transaction: creating a trigger locks `actions` against writes until the commit, so
 * no failure can land between the count and the first delta.
 */
export class Migration20261128230000_FailedInboxCount extends Migration {
  override name = 'Migration20261128230000_FailedInboxCount';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "failed_inbox_counts" ("account_id" uuid not null, "total" bigint not null, primary key ("account_id"));`,
    );
    this.addSql(
      `create table "failed_inbox_deltas" ("account_id" uuid not null, "n" bigserial, "delta" int not null, primary key ("account_id", "n"));`,
    );
    this.addSql(
      `create or replace function "failed_inbox_delta"() returns trigger as $$ begin if tg_op <> 'INSERT' and (case when old.phase = 'failed' and old.chain_id is null then old.account_id end) is not null then insert into failed_inbox_deltas (account_id, delta) values (old.account_id, -1); end if; if tg_op <> 'DELETE' and (case when new.phase = 'failed' and new.chain_id is null then new.account_id end) is not null then insert into failed_inbox_deltas (account_id, delta) values (new.account_id, 1); end if; return null; end; $$ language plpgsql;`,
    );
    this.addSql(
      `create trigger "failed_inbox_insert" after insert on "actions" for each row when ((case when new.phase = 'failed' and new.chain_id is null then new.account_id end) is not null) execute function "failed_inbox_delta"();`,
    );
    this.addSql(
      `create trigger "failed_inbox_update" after update of phase, chain_id, account_id on "actions" for each row when ((case when old.phase = 'failed' and old.chain_id is null then old.account_id end) is distinct from (case when new.phase = 'failed' and new.chain_id is null then new.account_id end)) execute function "failed_inbox_delta"();`,
    );
    this.addSql(
      `create trigger "failed_inbox_delete" after delete on "actions" for each row when ((case when old.phase = 'failed' and old.chain_id is null then old.account_id end) is not null) execute function "failed_inbox_delta"();`,
    );
    this.addSql(
      `insert into "failed_inbox_counts" ("account_id", "total") select "account_id", count(*) from "actions" where "phase" = 'failed' and "chain_id" is null group by "account_id";`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "failed_inbox_insert" on "actions";`);
    this.addSql(`drop trigger if exists "failed_inbox_update" on "actions";`);
    this.addSql(`drop trigger if exists "failed_inbox_delete" on "actions";`);
    this.addSql(`drop function if exists "failed_inbox_delta"();`);
    this.addSql(`drop table if exists "failed_inbox_deltas";`);
    this.addSql(`drop table if exists "failed_inbox_counts";`);
  }
}
