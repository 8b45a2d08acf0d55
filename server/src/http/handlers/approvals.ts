import { apiContract as contract } from '@sched/contract';
import { initServer } from '@ts-rest/fastify';
import type { ActionQueries } from '../../app/actions/queries.js';
import type { NotificationChannelService, TeamMemberService } from '../../app/directory/chat-and-team.js';
import type { PendingApprovals } from '../../app/approvals/pending.js';
import type { Reassignments } from '../../app/approvals/reassign.js';
import type { ReminderRequests } from '../../app/approvals/remind.js';
import { seesCredentials } from '../../domain/auth/api-key.js';
import { principalOf } from '../auth.js';

const s = initServer();

export function channelsHandlers(channels: NotificationChannelService) {
  return s.router(contract.channels, {
    list: async ({ request }) => {
      const p = principalOf(request);
      return { status: 200, body: { data: await channels.list(p.accountId, p.scopes) } };
    },
    create: async ({ request, body }) => {
      const p = principalOf(request);
      return { status: 201, body: { data: await channels.create(p.accountId, p.plan, body) } };
    },
    get: async ({ request, params }) => {
      const p = principalOf(request);
      return { status: 200, body: { data: await channels.get(p.accountId, params.id, p.scopes) } };
    },
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await channels.update(principalOf(request).accountId, params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await channels.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
  });
}

export function teamMembersHandlers(members: TeamMemberService) {
  return s.router(contract.teamMembers, {
    list: async ({ request }) => {
      const p = principalOf(request);
      return { status: 200, body: { data: await members.list(p.accountId, p.scopes) } };
    },
    create: async ({ request, body }) => ({
      status: 201,
      body: { data: await members.create(principalOf(request).accountId, body, principalOf(request).plan) },
    }),
    get: async ({ request, params }) => {
      const p = principalOf(request);
      return { status: 200, body: { data: await members.get(p.accountId, params.id, p.scopes) } };
    },
    update: async ({ request, params, body }) => ({
      status: 200,
      body: { data: await members.update(principalOf(request).accountId, params.id, body) },
    }),
    delete: async ({ request, params }) => {
      await members.delete(principalOf(request).accountId, params.id);
      return { status: 204, body: undefined };
    },
  });
}

export function remindersHandlers(
  reminders: ReminderRequests,
  reassignments: Reassignments,
  actionQueries: ActionQueries,
  pending: PendingApprovals,
) {
  return s.router(contract.reminders, {
    pending: async ({ request, query }) => ({
      status: 200,
      body: await pending.list(
        principalOf(request).accountId,
        query,
        seesCredentials(principalOf(request).scopes),
      ),
    }),
    remind: async ({ request, params }) => {
      const p = principalOf(request);
      await reminders.remind(p.accountId, params.id);
      return {
        status: 200,
        body: { data: await actionQueries.get(p.accountId, params.id, seesCredentials(p.scopes)) },
      };
    },
    reassign: async ({ request, params, body }) => {
      const p = principalOf(request);
      await reassignments.reassign(p, params.id, params.recipient_id, body);
      return {
        status: 200,
        body: { data: await actionQueries.get(p.accountId, params.id, seesCredentials(p.scopes)) },
      };
    },
  });
}
