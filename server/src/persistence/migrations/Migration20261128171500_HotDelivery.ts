import { Migration } from '@mikro-orm/migrations';

const PHASE = `(case when status in ('scheduled', 'resolved', 'executing') then 'pending'::character varying else status end) stored`;
const FAILED_AT = `(case when status = 'failed' then updated_at else null::timestamp with time zone end) stored`;

/**
 * A delivery writes the action's index entries once. The indexes of `actions` read a generated `phase` (`pending`
 * from the schedule to the outcome) instead of `status`, the failure-time filter a generated `failed_at` instead of
 * `updated_at`, and the lease index is gone (the lease sweep reads the due index, where attempts in flight stay), so
 * the promote and the claim change no indexed column and are HOT updates; the fillfactor leaves each page room for
 * a new version of every row (a claim takes a page's rows in one statement). The attempt index on (action, attempt number) served no statement; the one on the start
 * time, read only as a range (the latest day), becomes a BRIN.
 */
export class Migration20261128171500_HotDelivery extends Migration {
  override name = 'Migration20261128171500_HotDelivery';

  override up(): void | Promise<void> {
    // Set first: adding the generated columns rewrites the table, and the rewrite packs its pages to the fillfactor.
    this.addSql(`alter table "actions" set (fillfactor = 50);`);
    this.addSql(
      `alter table "actions" add column "phase" varchar(32) generated always as ${PHASE} null, add column "failed_at" timestamptz generated always as ${FAILED_AT} null;`,
    );
    this.addSql(`drop index "actions_due_index";`);
    this.addSql(
      `create index "actions_due_index" on "actions" ("next_attempt_at") where "phase" = 'pending' and "held_since" is null;`,
    );
    this.addSql(`drop index "actions_lease_index";`);
    this.addSql(`drop index "actions_account_status_index";`);
    this.addSql(
      `create index "actions_account_phase_index" on "actions" ("account_id", "phase", "created_at");`,
    );
    this.addSql(`drop index "actions_failed_index";`);
    this.addSql(
      `create index "actions_failed_index" on "actions" ("account_id", "failed_at") where "failed_at" is not null;`,
    );
    this.addSql(`drop index "actions_held_index";`);
    this.addSql(
      `create index "actions_held_index" on "actions" ("account_id", "destination_origin", "next_attempt_at") where "held_since" is not null and "phase" = 'pending';`,
    );
    this.addSql(`drop index "actions_live_idempotency_key_unique";`);
    this.addSql(
      `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "phase" in ('pending', 'awaiting_response', 'paused');`,
    );
    this.addSql(`drop index "delivery_attempts_action_id_attempt_number_index";`);
    this.addSql(`drop index "delivery_attempts_started_at_index";`);
    this.addSql(
      `create index "delivery_attempts_started_at_index" on "delivery_attempts" using brin ("started_at");`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "delivery_attempts_started_at_index";`);
    this.addSql(`create index "delivery_attempts_started_at_index" on "delivery_attempts" ("started_at");`);
    this.addSql(
      `create index "delivery_attempts_action_id_attempt_number_index" on "delivery_attempts" ("action_id", "attempt_number");`,
    );
    this.addSql(`alter table "actions" set (fillfactor = 80);`);
    this.addSql(`drop index "actions_live_idempotency_key_unique";`);
    this.addSql(
      `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "status" in ('scheduled', 'resolved', 'executing', 'awaiting_response', 'paused');`,
    );
    this.addSql(`drop index "actions_held_index";`);
    this.addSql(
      `create index "actions_held_index" on "actions" ("account_id", "destination_origin", "next_attempt_at") where "held_since" is not null and "status" in ('scheduled', 'resolved');`,
    );
    this.addSql(`drop index "actions_failed_index";`);
    this.addSql(
      `create index "actions_failed_index" on "actions" ("account_id", "updated_at") where "status" = 'failed';`,
    );
    this.addSql(`drop index "actions_account_phase_index";`);
    this.addSql(
      `create index "actions_account_status_index" on "actions" ("account_id", "status", "created_at");`,
    );
    this.addSql(
      `create index "actions_lease_index" on "actions" ("lease_until") where "status" = 'executing';`,
    );
    this.addSql(`drop index "actions_due_index";`);
    this.addSql(
      `create index "actions_due_index" on "actions" ("next_attempt_at") where "status" in ('scheduled', 'resolved') and "held_since" is null;`,
    );
    this.addSql(`alter table "actions" drop column "phase", drop column "failed_at";`);
  }
}
