import { Migration } from '@mikro-orm/migrations';

/**
 * pg-boss jobs are now written only when an attempt comes within the look-ahead window; `job_due_at` records the
 * due time a job exists for. Pending actions created before this migration already have their jobs.
 */
export class Migration20261121153000_JobDueAt extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "actions" add "job_due_at" timestamptz null`);
    this.addSql(
      `update "actions" set "job_due_at" = "next_attempt_at" where "status" in ('scheduled', 'resolved')`,
    );
  }
}
