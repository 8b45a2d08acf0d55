import { apiContract } from '@sched/contract';
import { TemplateService } from '../app/templates/service.js';
import { TemplateTrigger } from '../app/templates/trigger.js';
import { templatesHandlers } from '../http/handlers/templates.js';
import { registerTriggerRoute } from '../http/trigger.js';
import type { Feature } from './feature.js';

/** Templates, and their public trigger `POST /t/<token>` (an action or a chain made from the template). */
export const templatesFeature: Feature = {
  name: 'templates',
  async routes(app, http, { ctx, shared }) {
    const { config, clock } = ctx;
    const store = ctx.db.main;
    await registerTriggerRoute(app, {
      trigger: new TemplateTrigger({ store, clock, actions: ctx.actions, chains: shared.chains }),
      rateLimiter: http.rateLimiter,
      rateLimitFactor: http.rateLimitFactor,
    });
    const templates = new TemplateService({
      store,
      clock,
      publicUrl: ctx.publicUrl,
      allowPrivateDestinations: config.allowPrivateDestinations,
    });
    await http.contract(apiContract.templates, templatesHandlers(templates));
  },
};
