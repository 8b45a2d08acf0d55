import { RetentionService } from '../app/retention.js';
import { workRetention } from '../jobs/retention.js';
import type { Feature } from './feature.js';

/** History retention: the daily purge of what is past each plan's retention (no routes). */
export const retentionFeature: Feature = {
  name: 'retention',
  async workers({ ctx }) {
    const retention = new RetentionService(ctx.db.main, ctx.clock);
    return [await workRetention(ctx.queue, retention, ctx.metrics, ctx.logger)];
  },
};
