import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  AlertRule,
  AlertRuleCreateBody,
  AlertRuleListQuery,
  AlertRuleSummary,
  AlertRuleUpdateBody,
  AlertTestResult,
} from '../schemas/alert.js';
import { authErrors, ErrorBody, paginated, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

/** Alert rules: operator events told through email, SMS, Slack, Teams or signed webhooks. */
export const alertRulesContract = c.router({
  create: {
    method: 'POST',
    path: '/v1/alert-rules',
    body: AlertRuleCreateBody,
    responses: { 201: single(AlertRule), ...authErrors },
    summary: 'Create an alert rule',
    description:
      'Which operator events to tell of (`events`, narrowed by `filter`, optionally only past a `threshold`) and ' +
      'where (`channels`). Events within `group_wait` go out as one message with their count and a sample; while ' +
      'the condition goes on, at most one message per `repeat_every`. docs/alerts.md.',
  },
  list: {
    method: 'GET',
    path: '/v1/alert-rules',
    query: AlertRuleListQuery,
    responses: { 200: paginated(AlertRuleSummary), ...authErrors },
    summary: 'List alert rules',
    description: 'Newest first, paginated (`page`, `per_page` up to 100).',
  },
  get: {
    method: 'GET',
    path: '/v1/alert-rules/:id',
    pathParams: idParams,
    responses: { 200: single(AlertRule), 404: ErrorBody, ...authErrors },
    summary: 'Get an alert rule with its recent messages',
    description: '404 for an unknown id or one of another account. Webhook secrets are never shown.',
  },
  update: {
    method: 'PUT',
    path: '/v1/alert-rules/:id',
    pathParams: idParams,
    body: AlertRuleUpdateBody,
    responses: { 200: single(AlertRule), 404: ErrorBody, ...authErrors },
    summary: 'Update an alert rule',
    description:
      'Only the fields given change; `channels` and `events` are replaced whole; `null` clears an optional field.',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/alert-rules/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Delete an alert rule',
    description: 'Permanent; messages not yet sent for it are dropped.',
  },
  test: {
    method: 'POST',
    path: '/v1/alert-rules/:id/test',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 202: single(AlertTestResult), 404: ErrorBody, ...authErrors },
    summary: 'Send a sample alert now',
    description:
      "202: one sample message per channel is queued at once (marked as a test), counted against the plan's " +
      "channel allowances like any alert, and each webhook, Slack or Teams send against its host's destination " +
      "threshold; each outcome shows in the rule's `recent_notifications`. At most one test per rule a minute " +
      '(429 with `Retry-After`).',
  },
});
