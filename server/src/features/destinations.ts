import { apiContract } from '@sched/contract';
import { Destinations } from '../app/destinations/service.js';
import { destinationsHandlers } from '../http/handlers/destinations.js';
import { workDestinationWakes } from '../jobs/destination-wakes.js';
import type { Feature } from './feature.js';

/** Destinations: each host's circuit, flow control and held deliveries, woken when the host may take them. */
export const destinationsFeature: Feature = {
  name: 'destinations',
  async routes(_app, http, { ctx, shared }) {
    const destinations = new Destinations(
      ctx.db.main,
      shared.bulkOperations,
      ctx.clock,
      ctx.breaker,
      ctx.destinationWakes,
    );
    await http.contract(apiContract.destinations, destinationsHandlers(destinations));
  },
  async workers({ ctx, engine, failedJob }) {
    return [
      await workDestinationWakes(
        ctx.queue,
        (job) => ctx.breaker.wake(job),
        (ids, accountId) => engine.dispatcher.fireHeld(ids, accountId),
        failedJob('destination wake'),
      ),
    ];
  },
};
