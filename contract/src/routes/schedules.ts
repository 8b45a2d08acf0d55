import { initContract } from '@ts-rest/core';
import { authErrors, single } from '../schemas/common.js';
import { SchedulePreview, SchedulePreviewBody } from '../schemas/schedule.js';

const c = initContract();

export const schedulesContract = c.router({
  preview: {
    method: 'POST',
    path: '/v1/schedules/preview',
    body: SchedulePreviewBody,
    responses: { 200: single(SchedulePreview), ...authErrors },
    summary: 'Preview when a schedule runs',
    description:
      'Takes the schedule fields of `POST /v1/actions` (`schedule`, `scheduled_for`, `timezone`, `recurrence`, `dst_policy`) and lists the next `count` runs ' +
      'with their wall time, offset and how DST touched each, and warnings in words. Calendar times: `SCHED_TIME_SCALE` never changes them. ' +
      "Nothing is created; a time beyond the plan's schedule horizon is a warning here (a create would answer 422).",
  },
});
