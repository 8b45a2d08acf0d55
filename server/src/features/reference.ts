import { registerApiReference } from '../http/api-reference.js';
import { registerServiceIndex } from '../http/service-index.js';
import type { Feature } from './feature.js';

/** The service's own description: `/` (the index of its links), `/openapi.json` and `/docs` (Swagger UI). */
export const referenceFeature: Feature = {
  name: 'reference',
  routes(app, http, { ctx }) {
    const { config } = ctx;
    // SCHED_PUBLIC_URL when set; otherwise the document names a relative server.
    const publicUrl = () => (config.publicUrlExplicit ? config.publicUrl : undefined);
    registerApiReference(app, { publicUrl, limit: http.probeLimit, docs: config.docs });
    registerServiceIndex(app, { publicUrl, limit: http.probeLimit, docs: config.docs });
  },
};
