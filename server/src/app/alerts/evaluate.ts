import { randomUUID } from 'node:crypto';
import { termsOf } from '../../domain/alerts/definition.js';
import { type AlertEvent, evaluateRule, ruleStateOf } from '../../domain/alerts/rules.js';
import {
  insertAlertNotifications,
  lockAccountRules,
  takeOperatorEvents,
  trimNotifications,
  updateAlertRule,
} from '../../persistence/alerts.js';
import type { Sql } from '../../persistence/database.js';
import type { AlertJobs, Clock, Store } from '../ports.js';
import type { Waits } from '../waits.js';

/** Messages kept per rule (its `recent_notifications` and what an operator may look into); older ones go. */
export const KEPT_NOTIFICATIONS = 100;
/** Events read per transaction; a longer backlog takes several, each committed whole. */
const EVENTS_PER_PASS = 1000;
/** A wake-up that came early looks again no sooner than this, so clocks apart by a second cost a few jobs. */
const EARLY_WAKE_RETRY_MS = 200;

export interface AlertEvaluationDeps {
  store: Store;
  clock: Clock;
  waits: Waits;
  jobs: AlertJobs;
}

/**
 * Evaluates an account's alert rules (jobs/alerts.ts runs it when events are recorded, and at the times a waiting
 * group is due). One transaction locks the account's rules, takes its recorded events, applies the pure rules of
 * domain/alerts/rules.ts, stores each rule's new state and writes the messages that are due with their send jobs:
 * a crash anywhere rolls all of it back, so no event is lost and no alert is written twice; a second evaluation
 * of the same account waits for the lock, then finds nothing left to do.
 */
export class AlertEvaluation {
  constructor(private readonly deps: AlertEvaluationDeps) {}

  /** `wakeAt`: set when this is the wake-up of a group due then (it is set again if it came too early). */
  async evaluate(accountId: string, wakeAt?: Date): Promise<void> {
    for (;;) {
      const more = await this.deps.store.transaction((db) => this.pass(db, accountId, wakeAt));
      if (!more) return;
    }
  }

  private async pass(db: Sql, accountId: string, wakeAt: Date | undefined): Promise<boolean> {
    const rules = await lockAccountRules(db, accountId);
    const taken = await takeOperatorEvents(db, accountId, EVENTS_PER_PASS);
    const events: AlertEvent[] = taken.map((e) => ({
      type: e.type,
      at: e.at,
      destination_host: e.destination_host,
      subject: e.subject,
      details: e.details,
    }));
    const now = this.deps.clock();
    const wakes = new Set<number>();
    for (const rule of rules) {
      const terms = termsOf(rule, rule.created_at, (ms) => this.deps.waits.wait(ms));
      const before = ruleStateOf(rule.state);
      const { state, alert, nextAt } = evaluateRule(before, terms, events, now);
      const previous = rule.next_alert_at?.getTime() ?? null;
      const next = nextAt?.getTime() ?? null;
      // A wake-up that came before its time (clocks differ by a hair) sets itself again.
      const early = wakeAt !== undefined && previous !== null && previous <= wakeAt.getTime();
      if (next !== null && (next !== previous || early))
        wakes.add(Math.max(next, now.getTime() + (early ? EARLY_WAKE_RETRY_MS : 0)));
      if (!alert && next === previous && JSON.stringify(state) === JSON.stringify(before)) continue;
      await updateAlertRule(db, rule.id, {
        state,
        next_alert_at: nextAt,
        ...(alert ? { last_alerted_at: now } : {}),
        updated_at: rule.updated_at,
      });
      if (!alert) continue;
      const ids = await insertAlertNotifications(
        db,
        rule.channels.map((channel, index) => ({
          id: randomUUID(),
          account_id: accountId,
          rule_id: rule.id,
          test: false,
          channel_index: index,
          channel,
          message: {
            rule_name: rule.name,
            count: alert.count,
            first_at: alert.firstAt.toISOString(),
            last_at: alert.lastAt.toISOString(),
            threshold: rule.threshold,
            sample: alert.sample,
          },
          created_at: now,
        })),
      );
      await this.deps.jobs.send(db, ids);
      await trimNotifications(db, rule.id, KEPT_NOTIFICATIONS);
    }
    for (const at of wakes) await this.deps.jobs.evaluate(db, accountId, new Date(at));
    return taken.length === EVENTS_PER_PASS;
  }
}
