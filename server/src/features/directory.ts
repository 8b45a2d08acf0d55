import { apiContract } from '@sched/contract';
import { NotificationChannelService, TeamMemberService } from '../app/directory/chat-and-team.js';
import { ContactService } from '../app/directory/contacts.js';
import { channelsHandlers, teamMembersHandlers } from '../http/handlers/approvals.js';
import { contactsHandlers } from '../http/handlers/contacts.js';
import type { Feature } from './feature.js';

/** The directory approvals are sent to: contacts, chat channels, team members. */
export const directoryFeature: Feature = {
  name: 'directory',
  async routes(_app, http, { ctx }) {
    const store = ctx.db.main;
    await http.contract(apiContract.contacts, contactsHandlers(new ContactService(store)));
    const channels = new NotificationChannelService(store, {
      allowPrivateDestinations: ctx.config.allowPrivateDestinations,
    });
    await http.contract(apiContract.channels, channelsHandlers(channels));
    await http.contract(apiContract.teamMembers, teamMembersHandlers(new TeamMemberService(store)));
  },
};
