import { Migration } from '@mikro-orm/migrations';

/**
 * The columns of `actions` that a delivery never changes, and the wide ones above all (the request, the signing
 * secret, the dedup keys), move behind the ones it changes. PostgreSQL logs an update whose new version stays on its
 * page as the bytes between the first and the last byte that changed, so with `request` lying between `status` and
 * `lease_until` every promote, claim and record wrote it to the WAL again (docs/performance.md, "The request out of the
 * way of the updates").
 *
 * Each column is added again at the end under a temporary name, filled from the old one and the old one dropped in one
 * `alter table`, which rewrites the table once (the rewrite leaves no copy of a dropped column behind, and packs the
 * pages to the table's fillfactor); then the names, defaults and the indexes the drop took with it come back as they
 * were. All in the migration's one transaction: interrupted, nothing of it stays. On a million rows it holds the
 * table's exclusive lock for the rewrite and the index builds (measured in docs/performance.md).
 */
export class Migration20261129030000_ColdColumnsLast extends Migration {
  override name = 'Migration20261129030000_ColdColumnsLast';

  override up(): void {
    const moving = (c: Moved) => `"${c.name}${SUFFIX}"`;
    this.addSql(
      `alter table "actions" ${MOVED.map(
        (c) =>
          `add column ${moving(c)} ${c.type}${c.notNull ? ` not null default ${c.default ?? c.placeholder}` : ''}`,
      ).join(', ')};`,
    );
    this.addSql(
      `alter table "actions" ${MOVED.map((c) => `alter column ${moving(c)} type ${c.type} using "${c.name}"`).join(', ')}, ${MOVED.map(
        (c) => `drop column "${c.name}"`,
      ).join(', ')};`,
    );
    for (const c of MOVED) this.addSql(`alter table "actions" rename column ${moving(c)} to "${c.name}";`);
    const placeholders = MOVED.filter((c) => c.notNull && c.default === undefined);
    this.addSql(
      `alter table "actions" ${placeholders.map((c) => `alter column "${c.name}" drop default`).join(', ')};`,
    );
    for (const index of INDEXES) this.addSql(`${index};`);
  }

  override down(): void {
    // Where a column lies in the row is no part of the schema: nothing to undo.
  }
}

const SUFFIX = '_moved';

interface Moved {
  name: string;
  type: string;
  notNull?: boolean;
  /** The column's default, kept. */
  default?: string;
  /** For a required column without a default: a value of its type that the rewrite replaces at once. */
  placeholder?: string;
}

// In the order they had, which they keep behind the others.
const MOVED: readonly Moved[] = [
  { name: 'timezone', type: 'varchar(64)', notNull: true, placeholder: `''` },
  { name: 'idempotency_key', type: 'varchar(255)' },
  { name: 'dedup_keys', type: 'text[]', notNull: true, default: `'{}'` },
  { name: 'max_attempts', type: 'int', notNull: true, placeholder: '0' },
  { name: 'retry_strategy', type: 'varchar(16)', notNull: true, placeholder: `''` },
  { name: 'manual_retry_count', type: 'int', notNull: true, default: '0' },
  { name: 'request', type: 'jsonb' },
  { name: 'webhook_secret', type: 'varchar(255)' },
  { name: 'callback_url', type: 'varchar(2048)' },
  { name: 'coordination', type: 'jsonb' },
  { name: 'recurrence', type: 'jsonb' },
  { name: 'gate', type: 'jsonb' },
  { name: 'destination_host', type: 'varchar(255)' },
  { name: 'traceparent', type: 'varchar(55)' },
  { name: 'created_via', type: 'varchar(16)', notNull: true, default: `'api'` },
  { name: 'delivery_window', type: 'jsonb' },
  { name: 'destination_origin', type: 'varchar(300)' },
];

// The indexes on moved columns, which their drop removed, as the entity declares them.
const INDEXES = [
  `create unique index "actions_live_idempotency_key_unique" on "actions" ("account_id", "idempotency_key") where "idempotency_key" is not null and "phase" in ('pending', 'awaiting_response', 'paused')`,
  `create index "actions_dedup_keys_index" on "actions" using gin ("dedup_keys") where "dedup_keys" <> '{}'`,
  `create index "actions_account_destination_host_index" on "actions" ("account_id", "destination_host", "created_at")`,
  `create index "actions_held_index" on "actions" ("account_id", "destination_origin", "next_attempt_at") where "held_since" is not null and "phase" = 'pending'`,
];
