import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  insertAction,
  listActions,
  matchingActions,
  type NewAction,
} from '../../server/src/persistence/actions.js';
import { timeOrderedId } from '../../server/src/persistence/ids.js';
import { openTestDatabase, rawQuery } from '../support/in-process.js';

/**
 * The failed inbox's `meta.total` counts every failed action of the account. It must read the account's phase index
 * alone (an index-only scan, no visit to the rows): with a million failed actions, a visit per row is what made the
 * inbox take half a second in the backlog benchmark.
 */
describe('the failed inbox counts from the index alone', { timeout: 60_000 }, () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let accountId = '';
  const FAILED = 20_000;
  const PENDING = 5_000;

  const seed = (status: NewAction['status'], at: Date): NewAction => ({
    id: timeOrderedId(at.getTime()),
    traceparent: null,
    created_via: 'api',
    counted_occurrence: null,
    account_id: accountId,
    name: status,
    description: null,
    mode: 'webhook',
    status,
    timezone: 'UTC',
    scheduled_for: at,
    next_attempt_at: status === 'scheduled' ? at : null,
    idempotency_key: null,
    dedup_keys: [],
    max_attempts: 3,
    retry_strategy: 'exponential',
    request: { url: 'http://127.0.0.1:9/hook', method: 'POST', headers: {}, body: null },
    webhook_secret: null,
    callback_url: null,
    coordination: null,
    recurrence: null,
    recurrence_anchor: null,
    gate: null,
    chain_id: null,
    chain_step_index: null,
    created_at: at,
    updated_at: at,
  });

  /** `n` copies of the action `templateId`, new ids and creation times, through the table's own columns. */
  async function copies(templateId: string, n: number): Promise<void> {
    const columns = (
      await rawQuery<{ c: string }>(
        t.database.sql,
        `select column_name as c from information_schema.columns
          where table_name = 'actions' and is_generated = 'NEVER' and column_name not in ('id', 'created_at')
          order by ordinal_position`,
      )
    ).map((r) => `"${r.c}"`);
    await rawQuery(
      t.database.sql,
      `insert into actions (id, created_at, ${columns.join(', ')})
       select gen_random_uuid(), a.created_at - make_interval(secs => g), ${columns.map((c) => `a.${c}`).join(', ')}
         from actions a, generate_series(1, $2::int) g where a.id = $1`,
      [templateId, n],
    );
  }

  beforeAll(async () => {
    t = await openTestDatabase('inbox_count');
    accountId = await t.newAccount('business');
    const now = new Date();
    const failed = await insertAction(t.database.sql, seed('failed', now));
    const pending = await insertAction(
      t.database.sql,
      seed('scheduled', new Date(now.getTime() + 3_600_000)),
    );
    await copies(failed.id, FAILED - 1);
    await copies(pending.id, PENDING - 1);
    // What the autovacuum does to a table that stopped changing: the visibility map lets a scan skip the rows.
    await rawQuery(t.database.sql, 'vacuum (analyze) actions');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers the total of the failed inbox without a visit to the rows, and its first page newest first', async () => {
    const count = matchingActions(t.database.sql, accountId, { status: 'failed' })
      .select((eb) => eb.fn.countAll<number>().as('total'))
      .compile();
    const [plan] = await rawQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      t.database.sql,
      `explain (analyze, format json) ${count.sql}`,
      [...count.parameters],
    );
    const scans = nodes(plan!['QUERY PLAN'][0]!.Plan).filter((n) => n['Relation Name'] === 'actions');
    expect(scans.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
      ['Index Only Scan', 'actions_account_phase_index'],
    ]);
    expect(scans[0]!['Heap Fetches']).toBe(0);

    const page = await listActions(
      t.database.sql,
      accountId,
      { status: 'failed' },
      { limit: 100, offset: 0 },
    );
    expect(page.total).toBe(FAILED);
    expect(page.rows).toHaveLength(100);
    expect(page.rows.every((r) => r.status === 'failed')).toBe(true);
    const times = page.rows.map((r) => r.created_at.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const pending = await listActions(
      t.database.sql,
      accountId,
      { status: 'scheduled' },
      { limit: 1, offset: 0 },
    );
    expect(pending.total).toBe(PENDING);
  });
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  Plans?: PlanNode[];
}

function nodes(n: PlanNode): PlanNode[] {
  return [n, ...(n.Plans ?? []).flatMap(nodes)];
}
