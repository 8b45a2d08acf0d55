import { ActionCreateBody, type McpToolBackend, SchedToolError } from '@sched/contract';
import type { Principal } from '../app/accounts.js';
import type { ActionChanges } from '../app/actions/cancel-retry.js';
import type { ActionQueries } from '../app/actions/queries.js';
import type { ActionService } from '../app/actions/service.js';
import type { ActionWaits } from '../app/actions/wait.js';
import type { PendingApprovals } from '../app/approvals/pending.js';
import { AppError, errorBody, issuesToErrors } from '../app/errors.js';
import { seesCredentials } from '../domain/auth/api-key.js';

export interface McpUseCases {
  actions: ActionService;
  queries: ActionQueries;
  changes: ActionChanges;
  waits: ActionWaits;
  pending: PendingApprovals;
}

/** A use case's refusal as a tool error: the API's code, message and dotted field paths. */
async function asTool<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const body = errorBody(err);
    throw new SchedToolError(body.code, body.message, body.errors);
  }
}

/** The MCP tools over this server's use cases, as `principal`: the same account scoping and views as the API. */
export function serverBackend(uc: McpUseCases, principal: Principal): McpToolBackend {
  const { accountId } = principal;
  const credentials = seesCredentials(principal.scopes);
  return {
    create: (body) =>
      asTool(async () => {
        const parsed = ActionCreateBody.safeParse(body);
        if (!parsed.success)
          throw new SchedToolError(
            'validation_failed',
            'the arguments are invalid',
            issuesToErrors(parsed.error.issues, 'body'),
          );
        // The one create core, as `POST /v1/actions`.
        return (await uc.actions.create(principal, parsed.data)).action;
      }),
    wait: (id, timeoutSeconds) =>
      asTool(async () => {
        const held = await uc.waits.wait(accountId, id, { for: 'decision', timeoutSeconds, credentials });
        return { action: held.action, timedOut: held.timedOut };
      }),
    get: (id) => asTool(() => uc.queries.get(accountId, id, credentials)),
    cancel: (id) => asTool(() => uc.changes.cancel(accountId, id)),
    pending: (limit) =>
      asTool(async () => (await uc.pending.list(accountId, { page: 1, per_page: limit }, credentials)).data),
  };
}
