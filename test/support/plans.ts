import type { CompiledQuery } from 'kysely';
import type { Sql } from '../../server/src/persistence/database.js';
import { rawQuery } from './in-process.js';

/** One node of an `EXPLAIN (FORMAT JSON)` plan, with the members the plan tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** The plan of a built statement as PostgreSQL runs it (`EXPLAIN ANALYZE`), every node of it, the root first. */
export async function executedPlan(db: Sql, query: CompiledQuery): Promise<PlanNode[]> {
  const [plan] = await rawQuery<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
    db,
    `explain (analyze, format json) ${query.sql}`,
    [...query.parameters],
  );
  const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];
  return nodes(plan!['QUERY PLAN'][0]!.Plan);
}
