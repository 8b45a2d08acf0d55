import { Migration } from '@mikro-orm/migrations';

/** A chain step's action reaching a final state marks the running step due (entities/action.ts `triggers`). */
export class Migration20261123000813_ChainStepSettled extends Migration {
  override name = 'Migration20261123000813_ChainStepSettled';

  override up(): void | Promise<void> {
    this.addSql(
      `create or replace function "actions_chain_step_settled_fn"() returns trigger as $$ begin if new.status in ('executed', 'failed', 'expired', 'cancelled') and new.status is distinct from old.status then update chain_steps set due_at = 'epoch' where action_id = new.id and status = 'running'; perform pg_notify('sched_chain_due', new.chain_id::text); end if; return null; end; $$ language plpgsql;`,
    );
    this.addSql(`create trigger "chain_step_settled" AFTER UPDATE on "actions" for each ROW
  when ((new.chain_id IS NOT NULL)) execute function "actions_chain_step_settled_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "chain_step_settled" on "actions";`);
    this.addSql(`drop function if exists "actions_chain_step_settled_fn"();`);
  }
}
