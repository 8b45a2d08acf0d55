import { defineEntity, p, type TriggerDef } from '@mikro-orm/core';
import type { ActionState } from '../../domain/action/states.js';

const FAILED: ActionState = 'failed';

/**
 * The failed inbox's total (`GET /v1/actions?status=failed`, chain steps left out, as every list leaves them), kept by
 * PostgreSQL so that it is read in two small lookups instead of counting a million index entries. A row of `actions`
 * is in an account's failed inbox while its phase is `failed` and it has no `chain_id`: its "inbox key" is then its
 * account id, and null otherwise.
 *
 * Row triggers on `actions` append a delta (+1, -1) to `failed_inbox_deltas` whenever a row's inbox key changes,
 * whatever statement changed it (a delivery's batched record, a retry, a bulk page, retention, an account's delete).
 * Appending takes no lock another writer waits for: one counter row per account, updated by the trigger, would make
 * two batched record statements failing actions of the same accounts in different row orders deadlock. A periodic
 * fold (persistence/failed-inbox.ts) moves the deltas into `failed_inbox_counts`; the read adds the account's base and
 * its unfolded deltas. Neither table has a foreign key: an account's delete cascades to its actions, whose triggers
 * then append deltas for an account that no longer exists (they net its base to zero).
 */
export const FailedInboxCountSchema = defineEntity({
  name: 'FailedInboxCount',
  tableName: 'failed_inbox_counts',
  properties: {
    accountId: p.uuid().primary(),
    total: p.bigint(),
  },
});

/** Changes to accounts' failed-inbox totals not yet folded into `failed_inbox_counts`; the primary key is the read's. */
export const FailedInboxDeltaSchema = defineEntity({
  name: 'FailedInboxDelta',
  tableName: 'failed_inbox_deltas',
  properties: {
    accountId: p.uuid().primary(),
    n: p.bigint().autoincrement().primary(),
    delta: p.integer(),
  },
});

/** A row's inbox key (its account while it is in the failed inbox, else null), for `new` or `old`. */
const key = (row: 'new' | 'old') =>
  `case when ${row}.phase = '${FAILED}' and ${row}.chain_id is null then ${row}.account_id end`;

/**
 * The triggers' one function: -1 for the old row's account when it was in the inbox, +1 for the new row's when it is.
 * Each trigger's WHEN already established that the key changed.
 */
const FAILED_INBOX_FUNCTION = `create or replace function "failed_inbox_delta"() returns trigger as $$ begin if tg_op <> 'INSERT' and (${key('old')}) is not null then insert into failed_inbox_deltas (account_id, delta) values (old.account_id, -1); end if; if tg_op <> 'DELETE' and (${key('new')}) is not null then insert into failed_inbox_deltas (account_id, delta) values (new.account_id, 1); end if; return null; end; $$ language plpgsql`;

/**
 * Three row triggers, because a WHEN may not name `old` on an insert nor `new` on a delete. The update trigger fires
 * only for statements that set `status` (`phase` is generated from it, and PostgreSQL counts a generated column as
 * set when a column it depends on is), `chain_id` or `account_id`; then its WHEN, evaluated without calling any
 * function, lets through only rows whose inbox key changed: a delivery's promote, claim, retry and success cost that
 * one comparison. Declared raw (`expression`, with `UPDATE OF`, which MikroORM's trigger fields cannot say): the
 * schema diff then checks only that each exists; the migration FailedInboxCount writes the same text, and
 * test/integration/failed-inbox-count.test.ts checks that the two agree.
 */
export const FAILED_INBOX_TRIGGERS: TriggerDef[] = [
  {
    name: 'failed_inbox_insert',
    timing: 'after',
    events: ['insert'],
    expression: `${FAILED_INBOX_FUNCTION};\ncreate trigger "failed_inbox_insert" after insert on "actions" for each row when ((${key('new')}) is not null) execute function "failed_inbox_delta"()`,
  },
  {
    name: 'failed_inbox_update',
    timing: 'after',
    events: ['update'],
    expression: `create trigger "failed_inbox_update" after update of phase, chain_id, account_id on "actions" for each row when ((${key('old')}) is distinct from (${key('new')})) execute function "failed_inbox_delta"()`,
  },
  {
    name: 'failed_inbox_delete',
    timing: 'after',
    events: ['delete'],
    expression: `create trigger "failed_inbox_delete" after delete on "actions" for each row when ((${key('old')}) is not null) execute function "failed_inbox_delta"()`,
  },
];
