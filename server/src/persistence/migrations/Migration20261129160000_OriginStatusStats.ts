import { Migration } from '@mikro-orm/migrations';

/**
 * PostgreSQL's statistics of the account, the origin and the state of actions together, so that its estimate of one
 * origin's actions in one state follows the data: the destinations list estimates its figures past 10,000 actions
 * instead of counting them (persistence/destinations.ts `destinationCounts`). Without them the planner takes the three
 * as independent and gives every origin the same mix of states. The list of the most common combinations keeps up to
 * 1,000 of them, so an analyze of `actions` samples 300,000 rows (30,000 before): a second or two at ten million.
 * The analyze here gathers them at once; later ones are autovacuum's.
 */
export class Migration20261129160000_OriginStatusStats extends Migration {
  override name = 'Migration20261129160000_OriginStatusStats';

  override up(): void | Promise<void> {
    this.addSql(
      `create statistics "actions_origin_status_stats" (mcv) on "account_id", "destination_origin", "status" from "actions";`,
    );
    this.addSql(`alter statistics "actions_origin_status_stats" set statistics 1000;`);
    this.addSql(`analyze "actions";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop statistics "actions_origin_status_stats";`);
  }
}
