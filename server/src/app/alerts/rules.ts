import { randomUUID } from 'node:crypto';
import {
  ALERT_LIMITS,
  type AlertChannelInput,
  type AlertRule,
  type AlertRuleCreateParsed,
  type AlertRuleSummary,
  type AlertRuleUpdateParsed,
  type AlertTestResult,
} from '@sched/contract';
import { definitionErrors, exampleEvent, type RuleDefinition } from '../../domain/alerts/definition.js';
import { SAMPLE_SIZE, storedEvent } from '../../domain/alerts/rules.js';
import { parseDestination } from '../../domain/destinations/origin.js';
import { checkDestinationUrl, type PrivateAccess } from '../../domain/destinations/policy.js';
import { planLimits } from '../../domain/quota/plans.js';
import {
  type AlertRuleRow,
  announceRuleChange,
  countAlertRules,
  deleteAlertRule,
  findAlertRule,
  insertAlertNotifications,
  insertAlertRule,
  listAlertRules,
  lockAlertRuleCount,
  recentNotifications,
  trimNotifications,
  updateAlertRule,
} from '../../persistence/alerts.js';
import type { Sql } from '../../persistence/database.js';
import { channelWebhook } from '../../persistence/directory.js';
import type { Principal } from '../accounts.js';
import { recordAudit } from '../audit.js';
import { type CountDestination, DestinationThresholdError } from '../domains/guard.js';
import { NotFoundError, RateLimitedError, ValidationError } from '../errors.js';
import type { RateLimiter } from '../rate-limiter.js';
import { rule } from '../../domain/rate-limit/policy.js';
import { type Page, pageOf, pageWindow } from '../pagination.js';
import type { AlertJobs, Clock, Store } from '../ports.js';
import { KEPT_NOTIFICATIONS } from './evaluate.js';
import { notificationView, ruleSummary, ruleView } from './view.js';

/** Messages a rule's view lists. */
const RECENT_NOTIFICATIONS = 20;

export interface AlertRulesDeps {
  store: Store;
  clock: Clock;
  jobs: AlertJobs;
  allowPrivateDestinations: PrivateAccess;
  /** The destination threshold: a channel whose unverified host has no room left is refused at save (a peek). */
  countDestination?: CountDestination | undefined;
  /** Counts tests per rule in PostgreSQL, so the limit holds across API processes. */
  rateLimiter?: Pick<RateLimiter, 'check'> | undefined;
}

type Fields = Partial<Omit<AlertRuleCreateParsed, 'channels'>> & { channels?: AlertChannelInput[] };

/** An empty filter is no filter; an origin is spelled the one way (422 when it is none). */
function filterOf(filter: RuleDefinition['filter'] | undefined): RuleDefinition['filter'] {
  if (!filter || Object.keys(filter).length === 0) return null;
  if (filter.destination_origin === undefined) return filter;
  const key = parseDestination(filter.destination_origin);
  if (!key)
    throw ValidationError.field(
      'filter.destination_origin',
      'must be an origin (scheme://host[:port]) or a host name',
    );
  return { ...filter, destination_origin: key.origin };
}

/** `/v1/alert-rules`: every query names the caller's account, so another account's id answers 404. */
export class AlertRules {
  constructor(private readonly deps: AlertRulesDeps) {}

  async create(principal: Principal, body: AlertRuleCreateParsed): Promise<AlertRule> {
    const definition: RuleDefinition = {
      enabled: body.enabled ?? true,
      events: body.events,
      filter: filterOf(body.filter),
      threshold: body.threshold ?? null,
      group_wait: body.group_wait ?? null,
      repeat_every: body.repeat_every ?? null,
      late_after: body.late_after ?? null,
    };
    const now = this.deps.clock();
    const row = await this.deps.store.transaction(async (db) => {
      await this.check(db, principal, definition, body.channels);
      await lockAlertRuleCount(db, principal.accountId);
      const max = ALERT_LIMITS.rules_per_account;
      if ((await countAlertRules(db, principal.accountId)) >= max)
        throw ValidationError.field('alert_rules', `an account has at most ${max} alert rules`);
      const inserted = await insertAlertRule(db, {
        id: randomUUID(),
        account_id: principal.accountId,
        name: body.name,
        ...definition,
        channels: body.channels,
        state: null,
        next_alert_at: null,
        last_alerted_at: null,
        created_at: now,
        updated_at: now,
      });
      await announceRuleChange(db, principal.accountId);
      await recordAudit(db, principal.accountId, {
        action: 'alert_rule.create',
        resource: { type: 'alert_rule', id: inserted.id },
        // Channel types only: a webhook URL or a chat channel may carry a token.
        details: {
          name: inserted.name,
          events: inserted.events,
          channels: inserted.channels.map((c) => c.type),
        },
      });
      return inserted;
    });
    return ruleView(row, []);
  }

  /** `credentials`: whether the caller's key has `write` (else channel URLs and addresses are masked). */
  async list(
    accountId: string,
    q: { page: number; per_page: number },
    credentials = true,
  ): Promise<Page<AlertRuleSummary>> {
    const { rows, ...counted } = await listAlertRules(this.deps.store.sql, accountId, pageWindow(q));
    return pageOf(
      rows.map((r) => ruleSummary(r, credentials)),
      counted,
      q,
    );
  }

  async get(accountId: string, id: string, credentials = true): Promise<AlertRule> {
    const row = await this.load(this.deps.store.sql, accountId, id);
    return ruleView(
      row,
      await recentNotifications(this.deps.store.sql, row.id, RECENT_NOTIFICATIONS),
      credentials,
    );
  }

  /**
   * Only the fields given change; `channels` and `events` are replaced whole. A webhook channel given without a
   * secret keeps the secret of the stored webhook channel with the same URL (a secret is never shown, so it could
   * not be restated). The rule is evaluated again at once: a changed `group_wait` or `repeat_every` moves its next
   * message.
   */
  async update(principal: Principal, id: string, body: AlertRuleUpdateParsed): Promise<AlertRule> {
    const row = await this.deps.store.transaction(async (db) => {
      const current = await this.load(db, principal.accountId, id, true);
      const fields = body as Fields;
      const definition: RuleDefinition = {
        enabled: fields.enabled ?? current.enabled,
        events: fields.events ?? current.events,
        filter: body.filter === undefined ? current.filter : filterOf(body.filter),
        threshold: body.threshold === undefined ? current.threshold : body.threshold,
        group_wait: body.group_wait === undefined ? current.group_wait : body.group_wait,
        repeat_every: body.repeat_every === undefined ? current.repeat_every : body.repeat_every,
        late_after: body.late_after === undefined ? current.late_after : body.late_after,
      };
      const channels = fields.channels ? keepSecrets(fields.channels, current.channels) : current.channels;
      await this.check(db, principal, definition, channels, current.channels);
      const updated = await updateAlertRule(db, id, {
        ...(fields.name !== undefined ? { name: fields.name } : {}),
        ...definition,
        channels,
        updated_at: this.deps.clock(),
      });
      await announceRuleChange(db, principal.accountId);
      await recordAudit(db, principal.accountId, {
        action: 'alert_rule.update',
        resource: { type: 'alert_rule', id },
        details: { fields: Object.keys(body).sort() },
      });
      await this.deps.jobs.evaluate(db, principal.accountId);
      return updated;
    });
    return ruleView(row, await recentNotifications(this.deps.store.sql, row.id, RECENT_NOTIFICATIONS));
  }

  /** The rule goes, with its messages not yet sent. */
  async delete(accountId: string, id: string): Promise<void> {
    await this.deps.store.transaction(async (db) => {
      if (!(await deleteAlertRule(db, accountId, id))) throw new NotFoundError('alert rule');
      await announceRuleChange(db, accountId);
      await recordAudit(db, accountId, { action: 'alert_rule.delete', resource: { type: 'alert_rule', id } });
    });
  }

  /**
   * Queues a sample message on each of the rule's channels now: an example event of each type it watches, marked
   * as a test. They go through the same outbox, allowances and adapters as real alerts.
   */
  async test(accountId: string, id: string): Promise<AlertTestResult> {
    const now = this.deps.clock();
    // A test sends on every channel at once: one a minute per rule, so it cannot be turned on a third party's host.
    const limit = await this.deps.rateLimiter?.check(
      [rule('alertRuleTests', `${accountId}:${id}`, 1)],
      1,
      now,
    );
    if (limit && !limit.allowed) throw new RateLimitedError(limit.retryAfterSeconds);
    const notifications = await this.deps.store.transaction(async (db) => {
      const rule = await this.load(db, accountId, id);
      const sample = rule.events
        .slice(0, SAMPLE_SIZE)
        .map((type) => storedEvent(exampleEvent(type, now, rule.filter ?? null)));
      const ids = await insertAlertNotifications(
        db,
        rule.channels.map((channel, index) => ({
          id: randomUUID(),
          account_id: accountId,
          rule_id: rule.id,
          test: true,
          channel_index: index,
          channel,
          message: {
            rule_name: rule.name,
            count: sample.length,
            first_at: now.toISOString(),
            last_at: now.toISOString(),
            threshold: rule.threshold,
            sample,
          },
          created_at: now,
        })),
      );
      await this.deps.jobs.send(db, ids);
      await trimNotifications(db, rule.id, KEPT_NOTIFICATIONS);
      await recordAudit(db, accountId, {
        action: 'alert_rule.test',
        resource: { type: 'alert_rule', id },
        details: { channels: rule.channels.map((c) => c.type) },
      });
      return (await recentNotifications(db, rule.id, RECENT_NOTIFICATIONS)).filter((n) => ids.includes(n.id));
    });
    return {
      rule_id: id,
      notifications: notifications.sort((a, b) => a.channel_index - b.channel_index).map(notificationView),
    };
  }

  /** What the schema cannot check: timings, destinations (SSRF policy), chat channels and the plan. */
  private async check(
    db: Sql,
    principal: Principal,
    definition: RuleDefinition,
    channels: readonly AlertChannelInput[],
    /** The rule's channels before an update: one kept as it was is not refused for its host's threshold. */
    stored: readonly AlertChannelInput[] = [],
  ): Promise<void> {
    const errors = definitionErrors(definition);
    const add = (path: string, message: string) => {
      errors[path] = [...(errors[path] ?? []), message];
    };
    // Alert sends count against their host's threshold as the owner's own sends (app/alerts/send.ts), so a new
    // channel to a host with no room left is refused; a kept one is not (its own alerts may have spent the room).
    const overThreshold = async (path: string, url: string, c: AlertChannelInput) => {
      if (stored.some((s) => sameDestination(s, c))) return;
      try {
        await this.deps.countDestination?.(db, principal.accountId, url, this.deps.clock(), {
          field: path,
          peek: true,
        });
      } catch (error) {
        if (!(error instanceof DestinationThresholdError)) throw error;
        add(path, error.reason);
      }
    };
    for (const [i, c] of channels.entries()) {
      if (c.type === 'webhook') {
        const checked = checkDestinationUrl(c.url, { allowPrivate: this.deps.allowPrivateDestinations });
        if (!checked.ok) add(`channels.${i}.url`, checked.message);
        else await overThreshold(`channels.${i}.url`, c.url, c);
      } else if (c.type === 'slack' || c.type === 'teams') {
        if (!planLimits(principal.plan).slackTeams) {
          add(
            `channels.${i}.type`,
            `${c.type} alerts need the business plan (this account is on ${principal.plan})`,
          );
          continue;
        }
        const found = await channelWebhook(db, principal.accountId, c.channel);
        if (found?.type !== c.type) add(`channels.${i}.channel`, `no ${c.type} channel with this id`);
        else if (found.webhook_url !== null)
          await overThreshold(`channels.${i}.channel`, found.webhook_url, c);
      }
    }
    if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  }

  private async load(db: Sql, accountId: string, id: string, forUpdate = false): Promise<AlertRuleRow> {
    const row = await findAlertRule(db, accountId, id, { forUpdate });
    if (!row) throw new NotFoundError('alert rule');
    return row;
  }
}

/** Whether two channels send to the same place (a webhook's URL, a chat channel resource). */
function sameDestination(a: AlertChannelInput, b: AlertChannelInput): boolean {
  if (a.type === 'webhook' && b.type === 'webhook') return a.url === b.url;
  if ((a.type === 'slack' || a.type === 'teams') && a.type === b.type) return a.channel === b.channel;
  return false;
}

/** Webhook channels given without a secret keep the stored one of the same URL. */
function keepSecrets(given: AlertChannelInput[], stored: AlertChannelInput[]): AlertChannelInput[] {
  return given.map((c) => {
    if (c.type !== 'webhook' || c.secret !== undefined) return c;
    const previous = stored.find((s) => s.type === 'webhook' && s.url === c.url);
    return previous?.type === 'webhook' && previous.secret !== undefined
      ? { ...c, secret: previous.secret }
      : c;
  });
}
