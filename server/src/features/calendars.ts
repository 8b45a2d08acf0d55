import { apiContract } from '@sched/contract';
import { calendarsHandlers } from '../http/handlers/calendars.js';
import type { Feature } from './feature.js';

/** Calendars: business hours and closed days that schedules skip. */
export const calendarsFeature: Feature = {
  name: 'calendars',
  async routes(_app, http, { shared }) {
    await http.contract(apiContract.calendars, calendarsHandlers(shared.calendars));
  },
};
