import { apiContract } from '@sched/contract';
import { Destinations } from '../app/destinations/service.js';
import { DestinationTests } from '../app/destinations/test-send.js';
import { createOutboundClient } from '../outbound/http-client.js';
import { destinationsHandlers } from '../http/handlers/destinations.js';
import { workDestinationWakes } from '../jobs/destination-wakes.js';
import type { Feature } from './feature.js';

/** Destinations: each origin's circuit, flow control, held deliveries (woken when it may take them) and test-sends. */
export const destinationsFeature: Feature = {
  name: 'destinations',
  async routes(_app, http, { ctx, shared, shutdown }) {
    const destinations = new Destinations(
      ctx.db.main,
      shared.bulkOperations,
      ctx.clock,
      ctx.breaker,
      ctx.destinationWakes,
      ctx.reads,
    );
    // Test-sends leave from the API process (the caller waits for the answer), through the same SSRF guard.
    const testOutbound = createOutboundClient({
      allowPrivate: ctx.config.allowPrivateDestinations,
      connections: 4,
    });
    shutdown.add('the test-send HTTP client', () => testOutbound.close());
    const tests = new DestinationTests({
      store: ctx.db.main,
      clock: ctx.clock,
      outbound: testOutbound,
      signing: ctx.accounts.signing,
      allowPrivateDestinations: ctx.config.allowPrivateDestinations,
      rateLimiter: ctx.rateLimiter,
    });
    await http.contract(apiContract.destinations, destinationsHandlers(destinations, tests));
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
