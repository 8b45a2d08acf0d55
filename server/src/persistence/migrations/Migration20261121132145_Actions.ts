import { Migration } from '@mikro-orm/migrations';

export class Migration20261121132145_Actions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "actions" ("id" uuid not null, "account_id" uuid not null, "name" varchar(255) not null, "description" text null, "mode" varchar(16) not null, "status" varchar(32) not null, "timezone" varchar(64) not null, "scheduled_for" timestamptz not null, "next_attempt_at" timestamptz null, "executed_at" timestamptz null, "idempotency_key" varchar(255) null, "dedup_keys" text[] not null default '{}', "attempt_count" int not null default 0, "max_attempts" int not null, "retry_strategy" varchar(16) not null, "manual_retry_count" int not null default 0, "request" jsonb null, "webhook_secret" varchar(255) null, "callback_url" varchar(2048) null, "coordination" jsonb null, "reschedule_count" int not null default 0, "recurrence" jsonb null, "recurrence_anchor" timestamptz null, "recurrence_count" int not null default 0, "last_executed_at" timestamptz null, "lease_until" timestamptz null, "last_error" text null, "gate" jsonb null, "created_at" timestamptz not null, "updated_at" timestamptz not null, primary key ("id"))`,
    );
    this.addSql(
      `create index "actions_account_id_created_at_index" on "actions" ("account_id", "created_at")`,
    );
    this.addSql(
      `create index "actions_due_index" on "actions" ("next_attempt_at") where "status" in ('scheduled', 'resolved')`,
    );
    this.addSql(
      `create index "actions_lease_index" on "actions" ("lease_until") where "status" = 'executing'`,
    );
    this.addSql(`create index "actions_dedup_keys_index" on "actions" using gin ("dedup_keys")`);
    this.addSql(
      `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "status" in ('scheduled', 'resolved', 'executing', 'awaiting_response')`,
    );
    this.addSql(
      `create table "callback_deliveries" ("id" uuid not null, "account_id" uuid not null, "action_id" uuid not null, "event" varchar(64) not null, "url" varchar(2048) not null, "envelope" jsonb not null, "status" varchar(16) not null, "attempt_count" int not null default 0, "last_status_code" int null, "last_error" text null, "created_at" timestamptz not null, "delivered_at" timestamptz null, primary key ("id"))`,
    );
    this.addSql(
      `create index "callback_deliveries_action_id_created_at_index" on "callback_deliveries" ("action_id", "created_at")`,
    );
    this.addSql(
      `create table "delivery_attempts" ("id" uuid not null, "action_id" uuid not null, "attempt_number" int not null, "due_at" timestamptz not null, "started_at" timestamptz not null, "lateness_ms" int not null, "duration_ms" int not null, "status_code" int null, "outcome" varchar(16) not null, "error" text null, "response_excerpt" text null, "response_truncated" boolean not null default false, primary key ("id"))`,
    );
    this.addSql(
      `create index "delivery_attempts_action_id_attempt_number_index" on "delivery_attempts" ("action_id", "attempt_number")`,
    );
    this.addSql(
      `create table "usage_counters" ("account_id" uuid not null, "period" varchar(7) not null, "metric" varchar(32) not null, "used" int not null default 0, primary key ("account_id", "period", "metric"))`,
    );
    this.addSql(
      `alter table "actions" add constraint "actions_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "callback_deliveries" add constraint "callback_deliveries_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "callback_deliveries" add constraint "callback_deliveries_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_action_id_foreign" foreign key ("action_id") references "actions" ("id") on delete cascade`,
    );
    this.addSql(
      `alter table "usage_counters" add constraint "usage_counters_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on delete cascade`,
    );
  }
}
