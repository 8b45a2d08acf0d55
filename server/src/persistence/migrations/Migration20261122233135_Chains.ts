import { Migration } from '@mikro-orm/migrations';

/** Chains and their steps; an action that runs a chain's step names its chain and step index. */
export class Migration20261122233135_Chains extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "chains" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "status" varchar(16) not null, "current_step" int not null default 0, "input" jsonb not null, "error_handling" varchar(16) not null, "callback_url" varchar(2048) null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "completed_at" timestamptz null, primary key ("id"))`,
    );
    this.addSql(`create index "chains_account_id_created_at_index" on "chains" ("account_id", "created_at")`);
    this.addSql(
      `create table "chain_steps" ("id" uuid not null, "chain_id" uuid not null, "index" int not null, "name" varchar(255) not null, "type" varchar(16) not null, "definition" jsonb not null, "status" varchar(16) not null, "outcome" varchar(16) null, "response" text null, "error" text null, "due_at" timestamptz null, "started_at" timestamptz null, "completed_at" timestamptz null, "action_id" uuid null, primary key ("id"))`,
    );
    this.addSql(
      `create index "chain_steps_running_index" on "chain_steps" ("due_at") where "status" = 'running'`,
    );
    this.addSql(`create index "chain_steps_action_id_index" on "chain_steps" ("action_id")`);
    this.addSql(
      `alter table "chain_steps" add constraint "chain_steps_chain_id_index_unique" unique ("chain_id", "index")`,
    );
    this.addSql(`alter table "actions" add "chain_id" uuid null, add "chain_step_index" int null`);
    this.addSql(
      `alter table "chains" add constraint "chains_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "chain_steps" add constraint "chain_steps_chain_id_foreign" foreign key ("chain_id") references "chains" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "chain_steps" add constraint "chain_steps_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete set null`,
    );
  }
}
