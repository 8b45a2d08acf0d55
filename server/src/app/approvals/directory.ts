import { randomUUID } from 'node:crypto';
import type { NotificationChannel, TeamMember } from '@sched/contract';
import { type Plan, planLimits } from '../../domain/quota/plans.js';
import { assertTeamMemberRoom } from '../quota.js';
import { checkDestinationUrl } from '../../outbound/destination-policy.js';
import { asDate, type Db } from '../../persistence/db.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.js';

interface ChannelRow {
  id: string;
  name: string;
  type: 'slack' | 'teams';
  webhook_url: string;
  created_at: Date | string;
  updated_at: Date | string;
}

interface MemberRow {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  push_subscriptions: TeamMember['push_subscriptions'];
  created_at: Date | string;
  updated_at: Date | string;
}

const channelView = (r: ChannelRow): NotificationChannel => ({
  id: r.id,
  name: r.name,
  type: r.type,
  webhook_url: r.webhook_url,
  created_at: asDate(r.created_at).toISOString(),
  updated_at: asDate(r.updated_at).toISOString(),
});

const memberView = (r: MemberRow): TeamMember => ({
  id: r.id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  push_subscriptions: r.push_subscriptions,
  created_at: asDate(r.created_at).toISOString(),
  updated_at: asDate(r.updated_at).toISOString(),
});

/** Slack and Teams destinations (`channel:<id>` recipients). Business plan only, like the channels themselves. */
export class NotificationChannelService {
  constructor(
    private readonly db: Db,
    private readonly options: { allowPrivateDestinations: boolean },
  ) {}

  async list(accountId: string) {
    return (
      await this.db.query<ChannelRow>(
        'select * from notification_channels where account_id = $1 order by name, created_at',
        [accountId],
      )
    ).map(channelView);
  }

  async get(accountId: string, id: string) {
    const [row] = await this.db.query<ChannelRow>(
      'select * from notification_channels where id = $1 and account_id = $2',
      [id, accountId],
    );
    if (!row) throw new NotFoundError('channel');
    return channelView(row);
  }

  async create(
    accountId: string,
    plan: Plan,
    input: { name: string; type: 'slack' | 'teams'; webhook_url: string },
  ) {
    if (!planLimits(plan).slackTeams) throw new ForbiddenError('Slack and Teams are Business-plan features');
    this.checkUrl(input.webhook_url);
    const [row] = await this.db.query<ChannelRow>(
      `insert into notification_channels (id, account_id, name, type, webhook_url, created_at, updated_at)
       values ($1, $2, $3, $4, $5, now(), now()) returning *`,
      [randomUUID(), accountId, input.name, input.type, input.webhook_url],
    );
    return channelView(row!);
  }

  async update(
    accountId: string,
    id: string,
    input: { name?: string | undefined; webhook_url?: string | undefined },
  ) {
    if (input.webhook_url) this.checkUrl(input.webhook_url);
    const [row] = await this.db.query<ChannelRow>(
      `update notification_channels set name = coalesce($3, name), webhook_url = coalesce($4, webhook_url), updated_at = now()
       where id = $1 and account_id = $2 returning *`,
      [id, accountId, input.name ?? null, input.webhook_url ?? null],
    );
    if (!row) throw new NotFoundError('channel');
    return channelView(row);
  }

  async delete(accountId: string, id: string) {
    const rows = await this.db.query(
      'delete from notification_channels where id = $1 and account_id = $2 returning id',
      [id, accountId],
    );
    if (rows.length === 0) throw new NotFoundError('channel');
  }

  private checkUrl(url: string) {
    const check = checkDestinationUrl(url, { allowPrivate: this.options.allowPrivateDestinations });
    if (!check.ok) throw ValidationError.field('webhook_url', check.message);
  }
}

/** Team members whose ids can be recipients. */
export class TeamMemberService {
  constructor(private readonly db: Db) {}

  async list(accountId: string) {
    return (
      await this.db.query<MemberRow>(
        'select * from team_members where account_id = $1 order by name, created_at',
        [accountId],
      )
    ).map(memberView);
  }

  async get(accountId: string, id: string) {
    const [row] = await this.db.query<MemberRow>(
      'select * from team_members where id = $1 and account_id = $2',
      [id, accountId],
    );
    if (!row) throw new NotFoundError('team member');
    return memberView(row);
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
    if (plan) await assertTeamMemberRoom(this.db.typed, accountId, plan);
    const [row] = await this.db.query<MemberRow>(
      `insert into team_members (id, account_id, name, email, phone, push_subscriptions, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, now(), now()) returning *`,
      [
        randomUUID(),
        accountId,
        input.name,
        input.email ?? null,
        input.phone ?? null,
        JSON.stringify(input.push_subscriptions),
      ],
    );
    return memberView(row!);
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
    const current = await this.get(accountId, id);
    const next = {
      name: input.name ?? current.name,
      email: input.email === undefined ? current.email : input.email,
      phone: input.phone === undefined ? current.phone : input.phone,
      push_subscriptions: input.push_subscriptions ?? current.push_subscriptions,
    };
    if (!next.email && !next.phone && next.push_subscriptions.length === 0) {
      throw ValidationError.field('email', 'give at least one of email, phone or a push subscription');
    }
    const [row] = await this.db.query<MemberRow>(
      `update team_members set name = $3, email = $4, phone = $5, push_subscriptions = $6, updated_at = now()
       where id = $1 and account_id = $2 returning *`,
      [id, accountId, next.name, next.email, next.phone, JSON.stringify(next.push_subscriptions)],
    );
    return memberView(row!);
  }

  async delete(accountId: string, id: string) {
    const rows = await this.db.query(
      'delete from team_members where id = $1 and account_id = $2 returning id',
      [id, accountId],
    );
    if (rows.length === 0) throw new NotFoundError('team member');
  }
}
