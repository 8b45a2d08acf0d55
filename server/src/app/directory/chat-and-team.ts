import type { NotificationChannel, TeamMember } from '@sched/contract';
import { type Scope, seesCredentials, shownAddress, shownUrl } from '../../domain/auth/api-key.js';
import { type Plan, planLimits } from '../../domain/quota/plans.js';
import { assertTeamMemberRoom } from '../quota.js';
import { checkDestinationUrl, type PrivateAccess } from '../../domain/destinations/policy.js';
import { chatChannelWarnings } from '../../domain/approval/chat-urls.js';
import type { Database } from '../../persistence/database.js';
import { channelRecords, lockTeamMemberCount, teamMemberRecords } from '../../persistence/directory.js';
import type { NotificationChannelEntity, TeamMemberEntity } from '../../persistence/entities/approval.js';
import { auditFields, recordAudit } from '../audit.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';

const MASK = '***';

function channelView(c: NotificationChannelEntity, credentials = true): NotificationChannel {
  const webhookUrl = c.webhookUrl ?? null;
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    webhook_url: webhookUrl === null ? null : shownUrl(webhookUrl, credentials),
    slack_channel_id: c.slackChannelId ?? null,
    warnings: chatChannelWarnings({ type: c.type, webhook_url: webhookUrl }),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

function memberView(m: TeamMemberEntity, credentials = true): TeamMember {
  return {
    id: m.id,
    name: m.name,
    email: shownAddress(m.email ?? null, credentials),
    phone: shownAddress(m.phone ?? null, credentials),
    push_subscriptions: credentials
      ? m.pushSubscriptions
      : m.pushSubscriptions.map((s) => ({
          endpoint: shownUrl(s.endpoint, false),
          keys: { p256dh: MASK, auth: MASK },
        })),
    created_at: m.createdAt.toISOString(),
    updated_at: m.updatedAt.toISOString(),
  };
}

/** Slack and Teams destinations (`channel:<id>` recipients). Business plan only, like the channels themselves. */
export class NotificationChannelService {
  constructor(
    private readonly database: Database,
    private readonly options: { allowPrivateDestinations: PrivateAccess },
  ) {}

  private get records() {
    return channelRecords(this.database);
  }

  async list(accountId: string, scopes: readonly Scope[]) {
    const credentials = seesCredentials(scopes);
    return (await this.records.list(accountId)).map((c) => channelView(c, credentials));
  }

  async get(accountId: string, id: string, scopes: readonly Scope[]) {
    const row = await this.records.find(accountId, id);
    if (!row) throw new NotFoundError('channel');
    return channelView(row, seesCredentials(scopes));
  }

  async create(
    accountId: string,
    plan: Plan,
    input: {
      name: string;
      type: NotificationChannel['type'];
      webhook_url?: string | undefined;
      slack_channel_id?: string | undefined;
    },
  ) {
    if (!planLimits(plan).slackTeams)
      throw new ForbiddenError('Slack and Teams are Business-plan features', 'plan_required');
    if (input.webhook_url !== undefined) this.checkUrl(input.webhook_url);
    return this.database.transaction(async (db) => {
      const channel = await this.records.create(accountId, {
        name: input.name,
        type: input.type,
        webhookUrl: input.webhook_url ?? null,
        slackChannelId: input.slack_channel_id ?? null,
      });
      // The webhook URL is the channel's credential: never recorded.
      await recordAudit(db, accountId, {
        action: 'channel.create',
        resource: { type: 'channel', id: channel.id },
        details: { name: channel.name, type: channel.type },
      });
      return channelView(channel);
    });
  }

  async update(
    accountId: string,
    id: string,
    input: {
      name?: string | undefined;
      webhook_url?: string | undefined;
      slack_channel_id?: string | undefined;
    },
  ) {
    if (input.webhook_url) this.checkUrl(input.webhook_url);
    return this.database.transaction(async (db) => {
      let wrongType = false;
      const row = await this.records.update(accountId, id, (c) => {
        if (input.slack_channel_id !== undefined && c.type !== 'slack') {
          wrongType = true;
          return;
        }
        if (input.name !== undefined) c.name = input.name;
        // A channel is reached one way: setting one of the two clears the other.
        if (input.webhook_url !== undefined) {
          c.webhookUrl = input.webhook_url;
          c.slackChannelId = null;
        }
        if (input.slack_channel_id !== undefined) {
          c.slackChannelId = input.slack_channel_id;
          c.webhookUrl = null;
        }
      });
      if (!row) throw new NotFoundError('channel');
      if (wrongType) throw ValidationError.field('slack_channel_id', 'applies to Slack channels only');
      await recordAudit(db, accountId, {
        action: 'channel.update',
        resource: { type: 'channel', id },
        details: { name: row.name, type: row.type, fields: auditFields(input) },
      });
      return channelView(row);
    });
  }

  async delete(accountId: string, id: string) {
    await this.database.transaction(async (db) => {
      if (!(await this.records.delete(accountId, id))) throw new NotFoundError('channel');
      await recordAudit(db, accountId, { action: 'channel.delete', resource: { type: 'channel', id } });
    });
  }

  private checkUrl(url: string) {
    const check = checkDestinationUrl(url, { allowPrivate: this.options.allowPrivateDestinations });
    if (!check.ok) throw ValidationError.field('webhook_url', check.message);
  }
}

/** Team members whose ids can be recipients. */
export class TeamMemberService {
  constructor(private readonly database: Database) {}

  private get records() {
    return teamMemberRecords(this.database);
  }

  async list(accountId: string, scopes: readonly Scope[]) {
    const credentials = seesCredentials(scopes);
    return (await this.records.list(accountId)).map((m) => memberView(m, credentials));
  }

  async get(accountId: string, id: string, scopes: readonly Scope[]) {
    const row = await this.records.find(accountId, id);
    if (!row) throw new NotFoundError('team member');
    return memberView(row, seesCredentials(scopes));
  }

  async create(
    accountId: string,
    input: {
      name: string;
      email?: string | null | undefined;
      phone?: string | null | undefined;
      push_subscriptions: TeamMember['push_subscriptions'];
    },
    /** The caller's plan: its team-member count is enforced (app/quota.ts). */
    plan?: Plan,
  ) {
    // Count and insert under one per-account lock: two racing creates cannot both see room for one.
    return this.database.transaction(async (db) => {
      if (plan) {
        await lockTeamMemberCount(db, accountId);
        await assertTeamMemberRoom(db, accountId, plan);
      }
      const member = await this.records.create(accountId, {
        name: input.name,
        email: input.email ?? null,
        phone: input.phone ?? null,
        pushSubscriptions: input.push_subscriptions,
      });
      // Field names only: addresses are personal data and push subscriptions are credentials.
      await recordAudit(db, accountId, {
        action: 'team_member.create',
        resource: { type: 'team_member', id: member.id },
        details: {
          name: member.name,
          fields: auditFields({
            name: input.name,
            email: input.email ?? undefined,
            phone: input.phone ?? undefined,
            push_subscriptions: input.push_subscriptions.length ? input.push_subscriptions : undefined,
          }),
        },
      });
      return memberView(member);
    });
  }

  async update(
    accountId: string,
    id: string,
    input: {
      name?: string | undefined;
      email?: string | null | undefined;
      phone?: string | null | undefined;
      push_subscriptions?: TeamMember['push_subscriptions'] | undefined;
    },
  ) {
    return this.database.transaction(async (db) => {
      const row = await this.records.update(accountId, id, (m) => {
        if (input.name !== undefined) m.name = input.name;
        if (input.email !== undefined) m.email = input.email;
        if (input.phone !== undefined) m.phone = input.phone;
        if (input.push_subscriptions !== undefined) m.pushSubscriptions = input.push_subscriptions;
        if (!m.email && !m.phone && m.pushSubscriptions.length === 0) {
          throw ValidationError.field('email', 'give at least one of email, phone or a push subscription');
        }
      });
      if (!row) throw new NotFoundError('team member');
      await recordAudit(db, accountId, {
        action: 'team_member.update',
        resource: { type: 'team_member', id },
        details: { name: row.name, fields: auditFields(input) },
      });
      return memberView(row);
    });
  }

  async delete(accountId: string, id: string) {
    await this.database.transaction(async (db) => {
      if (!(await this.records.delete(accountId, id))) throw new NotFoundError('team member');
      await recordAudit(db, accountId, {
        action: 'team_member.delete',
        resource: { type: 'team_member', id },
      });
    });
  }
}
