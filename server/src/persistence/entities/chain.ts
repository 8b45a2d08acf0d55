import { defineEntity, p } from '@mikro-orm/core';
import type {
  ChainState,
  ChainStepParsed,
  ErrorHandling,
  StepOutcome,
  StepStatus,
  StepType,
} from '@sched/contract';
import type { SendSource } from '../../domain/domains/rules.js';
import { AccountSchema } from './account.js';
import { ActionSchema } from './action.js';

/** A chain: its steps run one after the other, each through an internal action or a timer. */
export const ChainSchema = defineEntity({
  name: 'Chain',
  tableName: 'chains',
  indexes: [{ properties: ['account', 'createdAt'] }],
  properties: {
    id: p.uuid().primary(),
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade'),
    name: p.string().length(255),
    status: p.string().length(16).$type<ChainState>(),
    currentStep: p.integer().default(0),
    input: p.json<Record<string, unknown>>(),
    errorHandling: p.string().length(16).$type<ErrorHandling>(),
    callbackUrl: p.string().length(2048).nullable(),
    /** Signs the chain's callbacks, as an action's webhook_secret signs its own. */
    webhookSecret: p.string().length(255).nullable(),
    /** Whose act the chain is (`api`, or `trigger`: a chain template's public URL): its steps and callbacks count so. */
    createdVia: p.string().length(16).$type<SendSource>().default('api'),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
  },
});

/**
 * One step of a chain. `definition` is the step as created (expressions unresolved); `response` is the
 * whole response body of an HTTP step's 2xx (bounded), read by `{{steps.N.response...}}`. A running step waits on
 * its action (`action_id`) or, for a delay, on `due_at`.
 */
export const ChainStepSchema = defineEntity({
  name: 'ChainStep',
  tableName: 'chain_steps',
  indexes: [
    // The engine's scan: running steps only.
    {
      name: 'chain_steps_running_index',
      expression:
        'create index "chain_steps_running_index" on "chain_steps" ("due_at") where "status" = \'running\'',
    },
    { properties: ['action'] },
  ],
  uniques: [{ properties: ['chain', 'index'] }],
  properties: {
    id: p.uuid().primary(),
    chain: () => p.manyToOne(ChainSchema).deleteRule('cascade'),
    index: p.integer(),
    name: p.string().length(255),
    type: p.string().length(16).$type<StepType>(),
    definition: p.json<ChainStepParsed>(),
    status: p.string().length(16).$type<StepStatus>(),
    outcome: p.string().length(16).$type<StepOutcome>().nullable(),
    response: p.text().nullable(),
    error: p.text().nullable(),
    dueAt: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    action: () => p.manyToOne(ActionSchema).deleteRule('set null').nullable(),
  },
});
