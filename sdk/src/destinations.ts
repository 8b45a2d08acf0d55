import type {
  BulkDryRun,
  BulkOperation,
  Destination,
  DestinationPauseBody,
  DestinationRecoverBody,
  DestinationSummary,
  DestinationUpdate,
} from '@sched/contract';
import type { z } from 'zod';
import type { createRawClient } from './client.js';
import { unwrap } from './unwrap.js';

type RawClient = ReturnType<typeof createRawClient>;

export type { Destination, DestinationSummary, DestinationUpdate };
export type DestinationRecoverInput = z.input<typeof DestinationRecoverBody>;

/**
 * Destinations (`/v1/destinations`), keyed by host: settings, pause, load and recovery of one receiver.
 * `await sched.destinations.pause('api.example.com', { note: 'maintenance' })`, later `resume`, then
 * `await sched.destinations.recover('api.example.com', { since, dry_run: false })`.
 */
export function destinationsApi(raw: RawClient) {
  return {
    list: async (): Promise<DestinationSummary[]> => unwrap(await raw.destinations.list(), 200).data,
    get: async (host: string): Promise<Destination> =>
      unwrap(await raw.destinations.get({ params: { host } }), 200).data,
    update: async (host: string, body: DestinationUpdate): Promise<Destination> =>
      unwrap(await raw.destinations.update({ params: { host }, body }), 200).data,
    /** Holds every delivery to the host (no attempt spent) until `resume` or `until`. */
    pause: async (host: string, body: DestinationPauseBody = {}): Promise<Destination> =>
      unwrap(await raw.destinations.pause({ params: { host }, body }), 200).data,
    resume: async (host: string): Promise<Destination> =>
      unwrap(await raw.destinations.resume({ params: { host } }), 200).data,
    /** A bulk retry of the host's actions that failed since `since`: a dry run (the default) or the operation. */
    async recover(host: string, body: DestinationRecoverInput): Promise<BulkDryRun | BulkOperation> {
      const result = await raw.destinations.recover({ params: { host }, body });
      if (result.status === 200) return result.body.data;
      return unwrap(result, 202).data;
    },
  };
}
