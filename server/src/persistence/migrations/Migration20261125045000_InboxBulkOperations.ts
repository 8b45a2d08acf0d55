import { Migration } from '@mikro-orm/migrations';

export class Migration20261125045000_InboxBulkOperations extends Migration {
  override name = 'Migration20261125045000_InboxBulkOperations';

  override up(): void | Promise<void> {
    this.addSql(
      `create table "bulk_operations" ("id" uuid not null, "account_id" uuid not null, "operation" varchar(16) not null, "status" varchar(16) not null, "filter" jsonb null, "options" jsonb null, "note" varchar(1000) null, "matched" int not null default 0, "processed" int not null default 0, "affected" int not null default 0, "skipped" int not null default 0, "failed" int not null default 0, "cursor" uuid null, "lease_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "finished_at" timestamptz null, primary key ("id"));`,
    );
    this.addSql(
      `create index "bulk_operations_account_id_created_at_index" on "bulk_operations" ("account_id", "created_at");`,
    );
    this.addSql(
      `create index "bulk_operations_running_index" on "bulk_operations" ("lease_until") where "status" = 'running';`,
    );

    this.addSql(
      `create table "bulk_operation_items" ("operation_id" uuid not null, "action_id" uuid not null, "outcome" varchar(16) null, "detail" text null, "processed_at" timestamptz null, primary key ("operation_id", "action_id"));`,
    );
    this.addSql(
      `create index "bulk_operation_items_action_id_index" on "bulk_operation_items" ("action_id");`,
    );

    this.addSql(
      `alter table "actions" add "destination_host" varchar(255) null, add "last_attempt_at" timestamptz null, add "last_status_code" int null, add "last_error_class" varchar(16) null, add "last_lateness_ms" int null, add "replay_of" uuid null;`,
    );
    this.addSql(
      `create index "actions_account_status_index" on "actions" ("account_id", "status", "created_at");`,
    );
    this.addSql(
      `create index "actions_account_destination_host_index" on "actions" ("account_id", "destination_host", "created_at");`,
    );
    this.addSql(
      `create index "actions_failed_index" on "actions" ("account_id", "updated_at") where "status" = 'failed';`,
    );
    this.addSql(
      `create index "actions_last_error_index" on "actions" ("account_id", "last_error_class", "last_status_code") where "last_error_class" is not null;`,
    );
    this.addSql(
      `create index "actions_replay_of_index" on "actions" ("replay_of") where "replay_of" is not null;`,
    );

    this.addSql(`alter table "delivery_attempts" add "error_class" varchar(16) null;`);

    // Rows written before this migration: the host from the stored URL, the error class as far as the attempt log
    // tells it, and each action's latest attempt.
    this.addSql(
      `update "actions" set "destination_host" = lower(rtrim(substring("request"->>'url' from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?(\\[[^]]*\\]|[^/?#:]+)'), '.')) where "request" is not null;`,
    );
    this.addSql(
      `update "delivery_attempts" set "error_class" = case when "status_code" is not null then 'http' when "error" ilike 'destination%' or "error" ilike 'invalid request%' then 'blocked' when "error" ~* 'timeout|timed out' then 'timeout' when "error" ~ 'ENOTFOUND|EAI_AGAIN|getaddrinfo' then 'dns' when "error" ~* 'tls|ssl|certificate' then 'tls' else 'connect' end where "outcome" <> 'success';`,
    );
    this.addSql(
      `update "actions" a set "last_attempt_at" = d."started_at", "last_status_code" = d."status_code", "last_error_class" = d."error_class", "last_lateness_ms" = d."lateness_ms" from (select distinct on ("action_id") "action_id", "started_at", "status_code", "error_class", "lateness_ms" from "delivery_attempts" order by "action_id", "started_at" desc, "attempt_number" desc) d where d."action_id" = a."id";`,
    );

    this.addSql(
      `alter table "bulk_operations" add constraint "bulk_operations_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade;`,
    );

    this.addSql(
      `alter table "bulk_operation_items" add constraint "bulk_operation_items_operation_id_foreign" foreign key ("operation_id") references "bulk_operations" ("id") on delete cascade;`,
    );
  }
}
