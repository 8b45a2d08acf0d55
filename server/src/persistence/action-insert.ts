import type { Insertable, Selectable } from 'kysely';
import { phaseOf } from '../domain/action/states.js';
import { destinationOrigin } from '../domain/destinations/origin.js';
import { destinationHost } from '../domain/domains/rules.js';
import { accountSigningSecretSql } from './accounts.js';
import { registerOriginsOf } from './action-origins.js';
import { pendingAuditInsert } from './audit-events.js';
import { fixedStatement, type Sql, type Tables } from './database.js';
import { DUE_CHANNEL, duePayloadSql } from './schedule.js';

// The create's insert: the one statement that inserts actions (app/actions/create.ts and create-batch.ts run it).

/** An `actions` row (persistence/actions.ts `ActionRow`). */
type ActionRow = Selectable<Tables['actions']>;

/** The columns a create writes; the others start at their defaults. */
const CREATE_COLUMNS = [
  'id',
  'account_id',
  'name',
  'description',
  'mode',
  'status',
  'timezone',
  'scheduled_for',
  'next_attempt_at',
  'idempotency_key',
  'dedup_keys',
  'max_attempts',
  'retry_strategy',
  'request',
  'webhook_secret',
  'callback_url',
  'coordination',
  'recurrence',
  'recurrence_anchor',
  'gate',
  'chain_id',
  'chain_step_index',
  'traceparent',
  'created_via',
  'counted_occurrence',
  'recurrence_index',
  'delivery_window',
  'window_state',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Insertable<Tables['actions']>)[];
/** Columns a create may leave out (a row made before delivery windows, a test's row): their defaults apply. */
const OPTIONAL_COLUMNS = ['recurrence_index', 'delivery_window', 'window_state'] as const;
type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number];
export type NewAction = Required<
  Pick<Insertable<Tables['actions']>, Exclude<(typeof CREATE_COLUMNS)[number], OptionalColumn>>
> &
  Partial<Pick<Insertable<Tables['actions']>, OptionalColumn>>;
const OPTIONAL_DEFAULTS: Pick<ActionRow, OptionalColumn> = {
  recurrence_index: 0,
  delivery_window: null,
  window_state: null,
};

// Every create runs it, alone or with the other creates of its turn of the event loop (app/tick-batch.ts): the rows
// travel as one JSON parameter, so the text stays fixed whatever their number (see fixedStatement).
// `destination_host` and `destination_origin` are derived here from the request, so whatever path creates an action
// the inbox can filter it and its delivery obeys its destination.
// An action without a secret of its own takes its account's signing secret, when the account has one.
const INSERTED_COLUMNS = [...CREATE_COLUMNS, 'destination_host', 'destination_origin'] as const;
const SELECTED_COLUMNS = INSERTED_COLUMNS.map((c) =>
  c === 'webhook_secret'
    ? `coalesce(r.webhook_secret, ${accountSigningSecretSql('r.account_id')}) as webhook_secret`
    : `r.${c}`,
);

/**
 * What the insert answers: what the database decides (the signing secret, which may be the account's) and the JSON
 * columns, whose key order jsonb decides and the answer shows. The rest of the row is known before the insert
 * (`insertedRow`): parsing the fifty columns of `returning *` had cost a create about 15 µs in a profile.
 */
const RETURNED_COLUMNS = [
  'id',
  'webhook_secret',
  'request',
  'coordination',
  'recurrence',
  'gate',
  'delivery_window',
  'window_state',
] as const satisfies readonly (keyof ActionRow)[];
type Returned = Pick<ActionRow, (typeof RETURNED_COLUMNS)[number]>;

// Each insert registers the origins of its rows that their accounts had none of (persistence/action-origins.ts).
const insertActionsStatement = fixedStatement<Returned>(
  `with inserted as (
     insert into actions (${INSERTED_COLUMNS.join(', ')})
     select ${SELECTED_COLUMNS.join(', ')} from json_populate_recordset(null::actions, $1::json) r
     returning account_id, destination_origin, ${RETURNED_COLUMNS.join(', ')}
   ),
   ${registerOriginsOf('inserted')}
   select ${RETURNED_COLUMNS.join(', ')} from inserted`,
);

/** A new row as it is inserted: its columns, those derived from its request, and the optional ones' defaults. */
type InsertedAction = NewAction & Pick<ActionRow, 'destination_host' | 'destination_origin' | OptionalColumn>;

function inserted(a: NewAction): InsertedAction {
  return {
    ...a,
    recurrence_index: a.recurrence_index ?? OPTIONAL_DEFAULTS.recurrence_index,
    delivery_window: a.delivery_window ?? OPTIONAL_DEFAULTS.delivery_window,
    window_state: a.window_state ?? OPTIONAL_DEFAULTS.window_state,
    destination_host: a.request ? destinationHost(a.request.url) : null,
    destination_origin: a.request ? destinationOrigin(a.request.url) : null,
  };
}

/**
 * The rows as the one JSON parameter of the insert: a member a row lacks reads as null in the recordset, and one it
 * has beyond the inserted columns is not selected, so each row goes as it is but for its instants, given as ISO text
 * (JSON.stringify writes text several times faster than it converts a Date). Copying each row's thirty-two columns
 * into a new object first had cost a create about 12 µs, the Dates about 4 (a loop of 200,000 creates' rows).
 */
function actionsJson(actions: readonly InsertedAction[]): string {
  return JSON.stringify(
    actions.map((a) => ({
      ...a,
      scheduled_for: a.scheduled_for.toISOString(),
      next_attempt_at: a.next_attempt_at?.toISOString() ?? null,
      recurrence_anchor: a.recurrence_anchor?.toISOString() ?? null,
      created_at: a.created_at.toISOString(),
      updated_at: a.updated_at.toISOString(),
    })),
  );
}

/**
 * The row the database holds after the insert, from what was inserted and what the insert answered: every other
 * column starts at its default (the entity's; test/integration/create-row.test.ts reads the row back to compare).
 */
function insertedRow(a: InsertedAction, r: Returned): ActionRow {
  return {
    ...a,
    ...r,
    phase: phaseOf(a.status),
    executed_at: null,
    attempt_count: 0,
    manual_retry_count: 0,
    reschedule_count: 0,
    recurrence_count: 0,
    last_executed_at: null,
    lease_until: null,
    last_error: null,
    pause: null,
    last_attempt_at: null,
    last_status_code: null,
    last_error_class: null,
    last_lateness_ms: null,
    held_since: null,
    held_by: null,
    replay_of: null,
    failed_at: null,
  };
}

/** The rows in the order given, each from what was inserted and what the insert answered for it. */
function insertedRows(actions: readonly InsertedAction[], returned: readonly Returned[]): ActionRow[] {
  const byId = new Map(returned.map((r) => [r.id, r]));
  return actions.map((a) => insertedRow(a, byId.get(a.id)!));
}

// The plain creates of one turn and their audit events, in one statement (so it commits alone, as a plain create did
// before the audit log): the events go to `audit_pending`, a plain insert that takes no lock of the log; the sealer
// chains them a moment later (persistence/audit-events.ts). The rows due by $3 are announced to the workers
// (persistence/schedule.ts `announceDue`), at the commit; the cross join makes the announcing part run.
const insertActionsWithAuditStatement = fixedStatement<Returned>(
  `with audited as (${pendingAuditInsert('$2')}),
   inserted as (
     insert into actions (${INSERTED_COLUMNS.join(', ')})
     select ${SELECTED_COLUMNS.join(', ')} from json_populate_recordset(null::actions, $1::json) r
     returning next_attempt_at, account_id, destination_origin, ${RETURNED_COLUMNS.join(', ')}
   ),
   ${registerOriginsOf('inserted')},
   announced as (
     select count(pg_notify('${DUE_CHANNEL}', ${duePayloadSql('id', 'next_attempt_at')})) as n
       from inserted where next_attempt_at <= $3::timestamptz
   )
   select ${RETURNED_COLUMNS.map((c) => `inserted.${c}`).join(', ')} from inserted cross join announced`,
);

/**
 * `insertActions` and the audit events of those creates (`audit`, from persistence/audit-events.ts
 * `pendingAuditJson`) in one statement, announcing those due by `announceBefore`: the group-committed path of
 * `POST /v1/actions`.
 */
export async function insertActionsWithAudit(
  db: Sql,
  actions: readonly NewAction[],
  audit: string,
  announceBefore: Date,
): Promise<ActionRow[]> {
  const rows = actions.map(inserted);
  return insertedRows(
    rows,
    await insertActionsWithAuditStatement(db, [actionsJson(rows), audit, announceBefore]),
  );
}

/** Inserts one new action (the create core's `writeNewAction`); answers its row. */
export async function insertAction(db: Sql, a: NewAction): Promise<ActionRow> {
  const row = inserted(a);
  return insertedRows([row], await insertActionsStatement(db, [actionsJson([row])]))[0]!;
}
