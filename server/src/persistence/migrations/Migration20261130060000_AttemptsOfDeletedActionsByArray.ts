import { Migration } from '@mikro-orm/migrations';

const BY_JOIN = `delete from delivery_attempts where action_id in (select id from deleted_actions)`;
const BY_ARRAY = `delete from delivery_attempts where action_id = any (array(select id from deleted_actions))`;
const fn = (body: string) =>
  `create or replace function "attempts_of_deleted_actions"() returns trigger as $$ begin ${body}; return null; end; $$ language plpgsql;`;

/**
 * The trigger that deletes the attempts of a statement's deleted actions looks them up with one array of ids per month
 * of attempts, as retention's own delete does, instead of joining the deleted rows: the join descended every month's
 * key once per deleted action (15,000 descents for a batch of 1,000 over fifteen months, 16 ms), the array walks each
 * month's key once in order.
 */
export class Migration20261130060000_AttemptsOfDeletedActionsByArray extends Migration {
  override name = 'Migration20261130060000_AttemptsOfDeletedActionsByArray';

  override up(): void | Promise<void> {
    this.addSql(fn(BY_ARRAY));
  }

  override down(): void | Promise<void> {
    this.addSql(fn(BY_JOIN));
  }
}
