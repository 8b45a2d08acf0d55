import { registerConsoleRoutes } from '../http/console.js';
import type { Feature } from './feature.js';

/** The operator console: its static files under `/console` and its session (`/console/session`). */
export const consoleFeature: Feature = {
  name: 'console',
  routes(app, http, { ctx, shared }) {
    registerConsoleRoutes(app, {
      sessions: shared.consoleSessions,
      rateLimiter: http.rateLimiter,
      rateLimitFactor: http.rateLimitFactor,
      publicUrl: ctx.publicUrl,
      production: ctx.config.env === 'production',
    });
  },
};
