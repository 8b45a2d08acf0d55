import { registerMcpRoute } from '../mcp/route.js';
import type { Feature } from './feature.js';

/** The Model Context Protocol at `POST /mcp`: the action and approval tools an agent may call. */
export const mcpFeature: Feature = {
  name: 'mcp',
  routes(app, http, { ctx, shared }) {
    registerMcpRoute(app, {
      auth: http.auth,
      useCases: {
        actions: ctx.actions,
        queries: ctx.actionQueries,
        changes: ctx.actionChanges,
        waits: shared.actionWaits,
        pending: shared.pendingApprovals,
      },
    });
  },
};
