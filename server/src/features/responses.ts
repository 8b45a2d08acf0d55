import { registerResponseRoutes } from '../http/responses.js';
import type { Feature } from './feature.js';

/** The response pages: a recipient's login-free link `/r/<token>`, its page, its answer and its attachments. */
export const responsesFeature: Feature = {
  name: 'responses',
  async routes(app, http, { shared }) {
    await registerResponseRoutes(app, {
      responses: shared.responses,
      rateLimiter: http.rateLimiter,
      rateLimitFactor: http.rateLimitFactor,
    });
  },
};
