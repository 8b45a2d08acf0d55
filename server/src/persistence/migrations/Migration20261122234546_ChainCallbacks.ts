import { Migration } from '@mikro-orm/migrations';

/** Chain callbacks go through the callback outbox: a row names an action or a chain; chains sign with their own secret. */
export class Migration20261122234546_ChainCallbacks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "callback_deliveries" add "chain_id" uuid null`);
    this.addSql(`alter table "callback_deliveries" alter column "action_id" drop not null`);
    this.addSql(`alter table "chains" add "webhook_secret" varchar(255) null`);
  }
}
