import { AttemptPartitions } from '../app/partitions.js';
import { RetentionService } from '../app/retention.js';
import { workRetention } from '../jobs/retention.js';
import type { Feature } from './feature.js';

/** History retention: the daily purge of what is past each plan's retention (no routes). */
export const retentionFeature: Feature = {
  name: 'retention',
  async workers({ ctx }) {
    // The attempt log's months at start too (the daily run does it again): a worker that was down for months
    // drops what is past retention now, not at 03:17. A failure (a lock not had in time) waits for that run.
    await new AttemptPartitions(ctx.db.main, ctx.clock)
      .maintain()
      .then((p) => ctx.logger.info(p, 'attempt partitions at start'))
      .catch((err) =>
        ctx.logger.warn({ err }, 'attempt partitions at start failed; the daily run tries again'),
      );
    const retention = new RetentionService(ctx.db.main, ctx.clock);
    return [await workRetention(ctx.queue, retention, ctx.metrics, ctx.logger)];
  },
};
