import { Migration } from '@mikro-orm/migrations';

/**
 * The circuit breaker of each destination (domain/destinations/circuit.ts): its state and failure window
 * on the host's row, and an index over the deliveries held by their destination, by host.
 */
export class Migration20261125060000_DestinationCircuit extends Migration {
  override name = 'Migration20261125060000_DestinationCircuit';

  override up(): void | Promise<void> {
    this.addSql(
      `alter table "destinations" add "circuit_state" varchar(16) not null default 'closed', add "circuit_opened_at" timestamptz null, add "circuit_next_probe_at" timestamptz null, add "circuit_reopens" int not null default 0, add "circuit_probe_until" timestamptz null, add "circuit_window_start" timestamptz null, add "circuit_window_failures" int not null default 0, add "circuit_check_at" int not null default 0;`,
    );
    this.addSql(
      `create index "actions_held_index" on "actions" ("account_id", "destination_host", "next_attempt_at") where "held_since" is not null and "status" in ('scheduled', 'resolved');`,
    );
  }
}
