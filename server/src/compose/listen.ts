import type { Logger } from 'pino';
import type { DatabaseAvailability } from '../persistence/availability.js';
import { type Notifications, openNotifications } from '../persistence/notifications.js';
import type { Shutdown } from './shutdown.js';

/**
 * The process's one LISTEN connection, shared by its roles: a worker opens it at start (holding the member lock) and
 * hands it over here; an API-only process opens one at the first held request that needs it.
 */
export class ProcessListen {
  private opened: Promise<Notifications> | null = null;

  constructor(
    private readonly deps: {
      url: string;
      logger: Logger;
      availability: DatabaseAvailability;
      shutdown: Shutdown;
    },
  ) {}

  /** The worker's connection becomes the process's. */
  adopt(notifications: Notifications): void {
    this.opened ??= Promise.resolve(notifications);
  }

  get(): Promise<Notifications> {
    const { url, logger, availability, shutdown } = this.deps;
    this.opened ??= openNotifications(url, {
      lost: (err) => {
        if (!availability.absorbs(err)) logger.warn({ err }, 'LISTEN connection lost; reconnecting');
      },
      retryFailed: (err, nextDelayMs) => {
        if (!availability.absorbs(err)) logger.warn({ err, nextDelayMs }, 'LISTEN reconnection failed');
      },
    }).then(
      (n) => {
        shutdown.add("the API's LISTEN connection", () => n.close());
        return n;
      },
      (err: unknown) => {
        this.opened = null;
        throw err;
      },
    );
    return this.opened;
  }
}
