import { Migration } from '@mikro-orm/migrations';

/**
 * The approvals waiting for an answer get an index of their own: `GET /v1/approvals` read every action of the account
 * to find them (272 ms with none waiting among a million). Building it reads `actions` once, with writes held meanwhile
 * (about half a minute per ten million rows on a small machine); the index itself holds only the approvals waiting.
 */
export class Migration20261129140000_AwaitingIndex extends Migration {
  override name = 'Migration20261129140000_AwaitingIndex';

  override up(): void | Promise<void> {
    this.addSql(
      `create index "actions_awaiting_index" on "actions" ("account_id", "created_at") where "phase" = 'awaiting_response';`,
    );
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "actions_awaiting_index";`);
  }
}
