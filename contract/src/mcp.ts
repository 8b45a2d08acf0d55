import { z } from 'zod';
import { type Action, ActionCreateBody, HttpRequestConfig } from './schemas/action.js';
import { type ApprovalSummary, GateInput } from './schemas/approval.js';
import { Uuid } from './schemas/common.js';
import { decisionOfState } from './vocabulary.js';

/*
 * The MCP tools of sched, declared once: names, inputs (the contract's own schemas, so their JSON schemas are
 * generated from them) and answers. The server's `POST /mcp` and the CLI's `sched mcp` (stdio, over the SDK) each
 * bind them to a `McpToolBackend`. No answer carries a response link or its token: an agent must never be able to
 * answer its own request. Glossary: a *read* tool only reads; a *write* tool creates or cancels and is not listed
 * for a `read` key.
 */

/** A failure a tool answers: the API's `code`, its message and, for a 422, the dotted field paths. */
export class SchedToolError extends Error {
  override name = 'SchedToolError';
  constructor(
    readonly code: string,
    message: string,
    readonly errors?: Record<string, string[]>,
  ) {
    super(message);
  }
}

/** What the tools need of sched: the server binds its use cases, the CLI the SDK. Each throws `SchedToolError`. */
export interface McpToolBackend {
  /** Through the one create core: `POST /v1/actions` with this body. */
  create(body: z.input<typeof ActionCreateBody>): Promise<Action>;
  /** `GET /v1/actions/{id}/wait?for=decision`. */
  wait(id: string, timeoutSeconds: number): Promise<{ action: Action; timedOut: boolean }>;
  get(id: string): Promise<Action>;
  cancel(id: string): Promise<{ id: string; status: string }>;
  pending(limit: number): Promise<ApprovalSummary[]>;
}

const ActionRef = z.object({ action_id: Uuid });

const gate = GateInput.shape;
const create = ActionCreateBody.shape;
const RequestApprovalInput = z.object({
  message: gate.message,
  recipients: gate.recipients,
  channels: gate.channels,
  timeout: gate.timeout,
  confirmation_mode: gate.confirmation_mode,
  min_approvals: gate.min_approvals,
  fields: gate.fields,
  grant: gate.grant,
  name: create.name,
  schedule: create.schedule.meta({ description: 'When to ask; default: now.' }),
  request: HttpRequestConfig.optional().meta({
    description: 'A webhook sent once the approval is confirmed.',
  }),
  callback_url: create.callback_url,
  idempotency_key: create.idempotency_key,
});
const ScheduleWebhookInput = z.object({
  request: HttpRequestConfig,
  schedule: create.schedule,
  scheduled_for: create.scheduled_for,
  timezone: create.timezone,
  name: create.name,
  description: create.description,
  callback_url: create.callback_url,
  idempotency_key: create.idempotency_key,
  max_attempts: create.max_attempts,
  retry_strategy: create.retry_strategy,
  recurrence: create.recurrence,
});
const WaitInput = ActionRef.extend({
  timeout_seconds: z
    .number()
    .int()
    .min(1)
    .max(60)
    .default(30)
    .meta({ description: 'Seconds to wait, 1-60.' }),
});
const PendingInput = z.object({ limit: z.number().int().min(1).max(100).default(25) });

/** The typed answer and who answered, as `wait_for_decision` tells them. */
function decisionAnswer(action: Action) {
  const decision = decisionOfState(action.status);
  const answered = action.recipients.filter((r) => r.status !== 'pending');
  // The values of the confirmations when confirmed (the later ones win), else of whoever answered.
  const sources = decision === 'confirmed' ? answered.filter((r) => r.status === 'confirmed') : answered;
  const withValues = sources.filter((r) => r.values);
  const values = withValues.length > 0 ? Object.assign({}, ...withValues.map((r) => r.values)) : null;
  return {
    action_id: action.id,
    status: action.status,
    decided: decision !== null,
    decision,
    values: values as Record<string, string | number | boolean> | null,
    responders: answered.map((r) => ({
      name: r.display_name,
      email: r.email,
      status: r.status,
      responded_at: r.responded_at,
      comment: r.response_comment,
      values: r.values,
    })),
  };
}

interface ToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  write: boolean;
  input: S;
  run(backend: McpToolBackend, args: z.output<S>): Promise<unknown>;
  /** Maps the create's error paths onto the tool's own names. */
  path?: (path: string) => string;
}

const tool = <S extends z.ZodType>(t: ToolDefinition<S>) => t as unknown as ToolDefinition<z.ZodType>;

export const MCP_TOOLS: readonly ToolDefinition<z.ZodType>[] = Object.freeze([
  tool({
    name: 'request_approval',
    description:
      'Asks people to approve something (email, SMS, Slack, Teams or push, answered on a login-free page) and answers { action_id, status } at once. ' +
      '`fields` lets them check or change typed values (your proposal, as defaults) before confirming; wait for the answer with wait_for_decision.',
    write: true,
    input: RequestApprovalInput,
    run: async (backend, a: z.output<typeof RequestApprovalInput>) => {
      const { name, schedule, request, callback_url, idempotency_key, ...g } = a;
      const action = await backend.create({
        mode: 'approval',
        ...(schedule ? { schedule } : { scheduled_for: new Date().toISOString() }),
        ...(name ? { name } : {}),
        ...(request ? { request } : {}),
        ...(callback_url ? { callback_url } : {}),
        ...(idempotency_key ? { idempotency_key } : {}),
        gate: g,
      });
      return { action_id: action.id, status: action.status };
    },
    path: (p) => p.replace(/^gate\./, ''),
  }),
  tool({
    name: 'wait_for_decision',
    description:
      'Waits up to timeout_seconds (1-60, default 30) for the decision of an approval; answers { action_id, status, decided, decision, values, responders }. ' +
      '`decision` is confirmed, declined, expired, cancelled, or null while undecided (call again); `values` is the typed answer.',
    write: false,
    input: WaitInput,
    run: async (backend, a: z.output<typeof WaitInput>) =>
      decisionAnswer((await backend.wait(a.action_id, a.timeout_seconds)).action),
  }),
  tool({
    name: 'schedule_webhook',
    description:
      'Schedules an HTTP request (retries, signatures, SSRF guard) at a moment: `schedule` ({ wait: "1h" }, { preset: "tomorrow" }) or `scheduled_for`; answers { action_id, status, scheduled_for }.',
    write: true,
    input: ScheduleWebhookInput,
    run: async (backend, a: z.output<typeof ScheduleWebhookInput>) => {
      const action = await backend.create({ mode: 'webhook', ...a });
      return { action_id: action.id, status: action.status, scheduled_for: action.scheduled_for };
    },
  }),
  tool({
    name: 'get_action',
    description:
      'An action as the API shows it: status, schedule, attempts, and for an approval its gate, recipients and timeline.',
    write: false,
    input: ActionRef,
    run: async (backend, a: z.output<typeof ActionRef>) => ({ action: await backend.get(a.action_id) }),
  }),
  tool({
    name: 'cancel_action',
    description: 'Cancels a scheduled webhook or a waiting approval; answers { action_id, status }.',
    write: true,
    input: ActionRef,
    run: async (backend, a: z.output<typeof ActionRef>) => {
      const cancelled = await backend.cancel(a.action_id);
      return { action_id: cancelled.id, status: cancelled.status };
    },
  }),
  tool({
    name: 'list_pending_approvals',
    description:
      'The approvals still waiting for people, nearest timeout first, with where each recipient stands.',
    write: false,
    input: PendingInput,
    run: async (backend, a: z.output<typeof PendingInput>) => ({
      approvals: (await backend.pending(a.limit)).map((s) => ({
        action_id: s.id,
        name: s.name,
        status: s.status,
        expires_at: s.expires_at,
        overdue: s.overdue,
        recipients: s.recipients.map((r) => ({ name: r.display_name, email: r.email, status: r.status })),
      })),
    }),
  }),
]);

/** `tools/list`: the tools a key may use (write tools only with `write`), inputs as JSON schemas. */
export function listMcpTools(canWrite: boolean) {
  return MCP_TOOLS.filter((t) => canWrite || !t.write).map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: z.toJSONSchema(t.input, { target: 'draft-7', io: 'input' }) as {
      type: 'object';
      [key: string]: unknown;
    },
    annotations: { readOnlyHint: !t.write },
  }));
}

/** A tool's answer as MCP carries it: JSON text and the same object as structured content. */
function toolResult(value: Record<string, unknown>, isError = false) {
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(value) }],
    structuredContent: value,
    ...(isError ? { isError: true } : {}),
  };
}

/** `tools/call`: validates the arguments against the tool's input, runs it, and answers a result or a tool error. */
export async function callMcpTool(name: string, args: unknown, backend: McpToolBackend, canWrite: boolean) {
  const t = MCP_TOOLS.find((x) => x.name === name && (canWrite || !x.write));
  if (!t) return toolResult({ code: 'not_found', message: `no tool named ${name}` }, true);
  const parsed = t.input.safeParse(args ?? {});
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      const key = issue.path.map(String).join('.') || '_';
      errors[key] = [...(errors[key] ?? []), issue.message];
    }
    return toolResult({ code: 'validation_failed', message: 'the arguments are invalid', errors }, true);
  }
  try {
    return toolResult((await t.run(backend, parsed.data)) as Record<string, unknown>);
  } catch (err) {
    // By name: the server and the CLI may each hold their own copy of this module.
    if (!(err instanceof Error) || err.name !== 'SchedToolError') throw err;
    const failure = err as SchedToolError;
    const errors = failure.errors
      ? Object.fromEntries(Object.entries(failure.errors).map(([k, v]) => [t.path ? t.path(k) : k, v]))
      : undefined;
    return toolResult({ code: failure.code, message: failure.message, ...(errors ? { errors } : {}) }, true);
  }
}
