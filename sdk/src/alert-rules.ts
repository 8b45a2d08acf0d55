import type {
  AlertRule,
  AlertRuleCreateBody,
  AlertRuleSummary,
  AlertRuleUpdateBody,
  AlertTestResult,
} from '@sched/contract';
import { collect, paginate } from './pagination.js';
import { callArgs, type RawClient } from './raw.js';
import type { CallOptions } from './transport.js';
import type { Page } from './types.js';
import { unwrap } from './unwrap.js';

export type { AlertRule, AlertRuleCreateBody, AlertRuleSummary, AlertRuleUpdateBody, AlertTestResult };

export interface AlertRuleListQuery {
  page?: number;
  per_page?: number;
}

/**
 * Alert rules (`/v1/alert-rules`, docs/alerts.md): operator events told by email, SMS, Slack, Teams or a signed
 * webhook. `await sched.alertRules.create({ name, events: ['action.failed'], channels: [{ type: 'email', to }] })`,
 * then `await sched.alertRules.test(rule.id)` to see a sample arrive.
 */
export interface AlertRulesApi {
  create(body: AlertRuleCreateBody, options?: CallOptions): Promise<AlertRule>;
  list(query?: AlertRuleListQuery, options?: CallOptions): Promise<Page<AlertRuleSummary>>;
  /** Every rule across all pages. */
  listAll(options?: CallOptions): Promise<AlertRuleSummary[]>;
  /** The rule with its last messages (`recent_notifications`). */
  get(id: string, options?: CallOptions): Promise<AlertRule>;
  /** Only the given fields change; `channels` and `events` are replaced whole; `null` clears. */
  update(id: string, body: AlertRuleUpdateBody, options?: CallOptions): Promise<AlertRule>;
  delete(id: string, options?: CallOptions): Promise<void>;
  /** Queues a sample message on each channel now (202); outcomes show in `get(id).recent_notifications`. */
  test(id: string, options?: CallOptions): Promise<AlertTestResult>;
}

export function alertRulesApi(raw: RawClient): AlertRulesApi {
  const list = async (query: AlertRuleListQuery = {}, o?: CallOptions): Promise<Page<AlertRuleSummary>> =>
    unwrap(await raw.alertRules.list({ query, ...callArgs(o) }), 200);
  return {
    create: async (body, o) => unwrap(await raw.alertRules.create({ body, ...callArgs(o) }), 201).data,
    list,
    listAll: (o) => collect(paginate((q: AlertRuleListQuery) => list(q, o), {})),
    get: async (id, o) => unwrap(await raw.alertRules.get({ params: { id }, ...callArgs(o) }), 200).data,
    update: async (id, body, o) =>
      unwrap(await raw.alertRules.update({ params: { id }, body, ...callArgs(o) }), 200).data,
    delete: async (id, o) => {
      unwrap(await raw.alertRules.delete({ params: { id }, ...callArgs(o) }), 204);
    },
    test: async (id, o) => unwrap(await raw.alertRules.test({ params: { id }, ...callArgs(o) }), 202).data,
  };
}
