import { defineEntity, p } from '@mikro-orm/core';
import type { CircuitSettings, FlowSettings } from '@sched/contract';
import type { CircuitState } from '../../domain/destinations/circuit.js';
import { AccountSchema } from './account.js';

/**
 * One destination of one account, named by its origin (scheme, host and port; domain/destinations/origin.ts): its
 * flow and circuit settings and its pause. An origin without a row has the defaults; the delivery claim looks a row up only by its primary key, inside its one statement.
 */
export const DestinationSchema = defineEntity({
  name: 'Destination',
  tableName: 'destinations',
  properties: {
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade').primary(),
    origin: p.string().length(300).primary(),
    flow: p.json<FlowSettings>().nullable(),
    circuit: p.json<CircuitSettings>().nullable(),
    /** Set while every delivery to the host is held; `pausedUntil` ends it by itself. */
    pausedAt: p.datetime().nullable(),
    pausedUntil: p.datetime().nullable(),
    pauseNote: p.string().length(1000).nullable(),
    /** Flow control's rate window: when it began and how many requests it started (taken under the row lock). */
    rateWindowStart: p.datetime().nullable(),
    rateWindowCount: p.integer().default(0),
    /**
     * The circuit breaker (domain/destinations/circuit.ts `CircuitRecord`), changed under the row lock; the claim
     * reads `circuitState` and `circuitNextProbeAt` in its one statement.
     */
    circuitState: p.string().length(16).$type<CircuitState>().default('closed'),
    circuitOpenedAt: p.datetime().nullable(),
    circuitNextProbeAt: p.datetime().nullable(),
    circuitReopens: p.integer().default(0),
    circuitProbeUntil: p.datetime().nullable(),
    circuitWindowStart: p.datetime().nullable(),
    circuitWindowFailures: p.integer().default(0),
    circuitCheckAt: p.integer().default(0),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

/**
 * The origins an account's actions aim at, one row each, kept by the database beside the actions: what the
 * destinations list pages through past the counting limit, one short index range however many hosts the account's
 * actions reach (finding them among the actions took one index probe a host: 652 ms a page at 5,000 hosts). The
 * create's insert adds the row of an origin the account has none for, in its one statement (action-insert.ts);
 * retention removes it with the last action to that origin (persistence/action-origins.ts).
 */
export const ActionOriginSchema = defineEntity({
  name: 'ActionOrigin',
  tableName: 'action_origins',
  properties: {
    account: () => p.manyToOne(AccountSchema).deleteRule('cascade').primary(),
    origin: p.string().length(300).primary(),
  },
});
