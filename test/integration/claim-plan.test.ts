import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DueIndex } from '../../server/src/app/due-index.js';
import { claimBatchStatement } from '../../server/src/persistence/delivery-scan.js';
import { dueIndexName } from '../../server/src/persistence/due-index.js';
import { dueIndexBound } from '../../server/src/domain/action/due-horizon.js';
import { openTestDatabase } from '../support/in-process.js';
import { seedActions } from '../support/seed.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

// A worker's claim reads its candidates from the due index in due order and stops at its limit. Planned on a table
// just filled and never analyzed (a burst created moments before it falls due), the held filter outside the index
// once made the planner read every due row by a bitmap scan and sort them, at each claim: 9 ms against 0.3 ms for
// 5,000 due (docs/performance.md). The plan must not depend on statistics: checked with none, both as a one-off
// (custom) plan and as the generic plan a prepared statement settles on.
describe('the claim statement reads the due index in order, without statistics', () => {
  let t: Awaited<ReturnType<typeof openTestDatabase>>;
  let client: pg.Client;

  beforeAll(async () => {
    t = await openTestDatabase('claim-plan');
    const accountId = await t.newAccount();
    await seedActions(t.url, {
      accountId,
      count: 3_000,
      status: 'scheduled',
      url: 'https://example.com/hook',
      host: 'example.com',
      scheduledFor: new Date(Date.now() - 1_000),
    });
    client = new pg.Client({ connectionString: t.url });
    await client.connect();
    // No statistics, whatever autovacuum did meanwhile (the test database's owner is a superuser).
    await client.query(`delete from pg_statistic where starelid = 'actions'::regclass`);
  });
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  // The unbounded index of the migrations first, then the day's bounded one that replaces it at start.
  let dueIndex = 'actions_due_index';
  function dueIndexReads(plan: PlanNode): PlanNode[] {
    return nodes(plan).filter(
      (n) =>
        n['Index Name'] === dueIndex || (n['Relation Name'] === 'actions' && n['Node Type'] === 'Seq Scan'),
    );
  }

  async function customPlanReads(): Promise<PlanNode[]> {
    const now = new Date();
    const { rows } = await client.query(`explain (format json) ${claimBatchStatement(now).text}`, [
      new Date(now.getTime() + 70),
      now,
      128,
      1,
      0,
      new Date(now.getTime() - 5_000),
      [],
      160,
      128,
      [],
      [],
      new Date(now.getTime() + 45_000),
    ]);
    return dueIndexReads(rows[0]['QUERY PLAN'][0].Plan);
  }

  async function genericPlanReads(): Promise<PlanNode[]> {
    const { rows } = await client.query(
      `explain (format json, generic_plan) ${claimBatchStatement(new Date()).text}`,
    );
    return dueIndexReads(rows[0]['QUERY PLAN'][0].Plan);
  }

  it('with the claim parameters (a custom plan)', async () => {
    const reads = await customPlanReads();
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((n) => n['Node Type'])).toEqual(reads.map(() => 'Index Scan'));
  });

  it('as a generic plan', async () => {
    const reads = await genericPlanReads();
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((n) => n['Node Type'])).toEqual(reads.map(() => 'Index Scan'));
  });

  it('through the day’s bounded due index once it replaces the unbounded one, in both plans', async () => {
    const done = await new DueIndex(t.database, () => new Date()).maintain({ wait: true });
    dueIndex = dueIndexName(dueIndexBound(new Date()));
    expect(done).toEqual({ built: dueIndex, dropped: ['actions_due_index'] });
    for (const reads of [await customPlanReads(), await genericPlanReads()]) {
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.map((n) => n['Node Type'])).toEqual(reads.map(() => 'Index Scan'));
    }
  });
});
