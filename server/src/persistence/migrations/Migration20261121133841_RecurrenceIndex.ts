import { Migration } from '@mikro-orm/migrations';

export class Migration20261121133841_RecurrenceIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "actions" add "recurrence_index" int not null default 0`);
  }
}
