import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import {
  Calendar,
  CalendarCreate,
  CalendarDays,
  CalendarDaysQuery,
  CalendarListQuery,
  CalendarUpdate,
} from '../schemas/calendar.js';
import { authErrors, ErrorBody, paginated, single, Uuid } from '../schemas/common.js';

const c = initContract();
const idParams = z.object({ id: Uuid });

export const calendarsContract = c.router({
  list: {
    method: 'GET',
    path: '/v1/calendars',
    query: CalendarListQuery,
    responses: { 200: paginated(Calendar), ...authErrors },
    summary: 'List calendars',
    description: 'Newest first, paginated (`page`, `per_page` up to 100).',
  },
  create: {
    method: 'POST',
    path: '/v1/calendars',
    body: CalendarCreate,
    responses: { 201: single(Calendar), ...authErrors },
    summary: 'Create a calendar',
    description:
      "Closed days: the owner's `dates` merged with a country's public `holidays`. Built-in `holidays:US` style references need no calendar.",
  },
  get: {
    method: 'GET',
    path: '/v1/calendars/:id',
    pathParams: idParams,
    responses: { 200: single(Calendar), 404: ErrorBody, ...authErrors },
    summary: 'Get a calendar',
    description: '404 for an unknown id or one of another account.',
  },
  update: {
    method: 'PUT',
    path: '/v1/calendars/:id',
    pathParams: idParams,
    body: CalendarUpdate,
    responses: { 200: single(Calendar), 404: ErrorBody, ...authErrors },
    summary: 'Update a calendar',
    description:
      'Only supplied fields change. Due times already placed stay; windows naming it read it again at their next placement.',
  },
  delete: {
    method: 'DELETE',
    path: '/v1/calendars/:id',
    pathParams: idParams,
    body: c.noBody(),
    responses: { 204: c.noBody(), 404: ErrorBody, ...authErrors },
    summary: 'Delete a calendar',
    description:
      'Permanent. A window still naming it has no closed days of its own from then on (its days and hours still apply).',
  },
  days: {
    method: 'GET',
    path: '/v1/calendars/:id/days',
    pathParams: idParams,
    query: CalendarDaysQuery,
    responses: { 200: CalendarDays, 404: ErrorBody, ...authErrors },
    summary: 'List closed days',
    description: 'The closed days from `from` to `to` (inclusive), in order, with where each comes from.',
  },
});
