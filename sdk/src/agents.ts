import { type Action, type AgentDecision, decisionOfState, type GateField } from '@sched/contract';
import type { ApprovalInput } from './approvals.js';
import type { SchedClient } from './client.js';

/*
 * Agent frameworks pause a tool call for approval but do not reach a person. These helpers ask people through sched
 * (email, SMS, chat, push; a login-free page) and hand the decision back in each framework's own shape. They import
 * no framework: each takes the few fields it reads, so any version with that shape works.
 */

/** How to ask about one tool call: who, with what message, and which of its arguments people may change. */
export interface AskOptions<I = Record<string, unknown>> {
  to: string | string[];
  /** The question; default: the tool's name and its arguments as JSON. */
  message?: (toolName: string, input: I) => string;
  /**
   * Typed answer fields, prefilled from the call's arguments (`default: input[name]`): people may change them before
   * confirming, and the tool then runs with their values.
   */
  fields?: (toolName: string, input: I) => GateField[];
  /** `gate.timeout` (default `1h`). */
  timeout?: string;
  /** How long to wait for the decision (default 10 minutes; 0: for ever). */
  waitMs?: number;
  signal?: AbortSignal;
  /** Other gate options (channels, confirmation_mode, grant...), as `approvals.request` takes them. */
  approval?: Partial<Omit<ApprovalInput, 'to' | 'message'>>;
}

/** What people decided about one tool call. */
export interface PeopleDecision<I = Record<string, unknown>> {
  approved: boolean;
  /** `confirmed`, `declined`, `expired` or `cancelled`. */
  decision: AgentDecision;
  /** The arguments as approved: the call's, with the values people changed. */
  input: I;
  /** The first comment left with the answer, if any. */
  comment: string | null;
  actionId: string;
}

/** Asks people whether `toolName` may run with `input`, and waits for their decision. */
export async function askPeople<I extends Record<string, unknown>>(
  sched: Pick<SchedClient, 'approvals'>,
  toolName: string,
  input: I,
  options: AskOptions<I>,
): Promise<PeopleDecision<I>> {
  const fields = options.fields?.(toolName, input);
  const handle = await sched.approvals.request(
    {
      name: `Agent tool: ${toolName}`.slice(0, 255),
      message: (options.message ?? defaultMessage)(toolName, input),
      timeout: options.timeout ?? '1h',
      // Asked now, unless the options say when.
      scheduledFor: new Date(),
      ...options.approval,
      to: options.to,
      ...(fields ? { fields } : {}),
    },
    options.signal ? { signal: options.signal } : undefined,
  );
  const action: Action = await handle.wait({
    timeoutMs: options.waitMs ?? 600_000,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // The wait ends at the decision; an end without one (a wait cut short) reads as cancelled.
  const decision = decisionOfState(action.status) ?? 'cancelled';
  const answered = action.recipients.filter((r) => r.status === 'confirmed' || r.status === 'declined');
  const values = Object.assign({}, ...answered.map((r) => r.values ?? {})) as Partial<I>;
  return {
    approved: decision === 'confirmed',
    decision,
    input: decision === 'confirmed' ? { ...input, ...values } : input,
    comment: answered.find((r) => r.response_comment)?.response_comment ?? null,
    actionId: action.id,
  };
}

function defaultMessage(toolName: string, input: unknown): string {
  return `An agent wants to run ${toolName} with:\n${JSON.stringify(input, null, 2)}`.slice(0, 5000);
}

/** The AI SDK's request for approval of a tool call (a `tool-approval-request` part of a result's `content`). */
interface AiSdkApprovalRequest {
  type: string;
  approvalId?: string;
  toolCall?: { toolName: string; input: unknown };
}

/**
 * AI SDK (`ai`, tools with `needsApproval`): asks people about every `tool-approval-request` of a result's `content`
 * and answers the `tool` message of `tool-approval-response` parts to append to the messages before calling
 * `generateText` again. Values people change cannot flow back through this flow (the model's arguments run); use
 * `askPeople` inside `execute` for that.
 */
export async function aiSdkApprovalResponses(
  sched: Pick<SchedClient, 'approvals'>,
  content: readonly AiSdkApprovalRequest[],
  options: AskOptions,
): Promise<{
  role: 'tool';
  content: { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string }[];
}> {
  const requests = content.filter(
    (p): p is Required<AiSdkApprovalRequest> =>
      p.type === 'tool-approval-request' && !!p.approvalId && !!p.toolCall,
  );
  const answers = await Promise.all(
    requests.map(async (r) => {
      const d = await askPeople(
        sched,
        r.toolCall.toolName,
        (r.toolCall.input ?? {}) as Record<string, unknown>,
        options,
      );
      return {
        type: 'tool-approval-response' as const,
        approvalId: r.approvalId,
        approved: d.approved,
        ...(d.approved ? {} : { reason: d.comment ?? `${d.decision} through sched` }),
      };
    }),
  );
  return { role: 'tool', content: answers };
}

/** What the OpenAI Agents SDK's run result offers for its interruptions (tools with `needsApproval`). */
interface AgentsRunResult<T> {
  interruptions?: T[];
  state: { approve(item: T): void; reject(item: T): void };
}
interface AgentsInterruption {
  name?: unknown;
  arguments?: unknown;
  /** The function call: its `name` and JSON `arguments`. */
  rawItem?: unknown;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * OpenAI Agents SDK (`@openai/agents`, tools with `needsApproval`): asks people about every interruption of a run
 * result and approves or rejects it on `result.state`; then resume with `run(agent, result.state)`. Answers the
 * decisions, in the order of the interruptions.
 */
export async function openAiAgentsApprovals<T extends AgentsInterruption>(
  sched: Pick<SchedClient, 'approvals'>,
  result: AgentsRunResult<T>,
  options: AskOptions,
): Promise<PeopleDecision[]> {
  const decisions: PeopleDecision[] = [];
  for (const item of result.interruptions ?? []) {
    const raw = (item.rawItem ?? {}) as { name?: unknown; arguments?: unknown };
    const name = text(item.name) ?? text(raw.name) ?? 'tool';
    const args = text(item.arguments) ?? text(raw.arguments) ?? '{}';
    let input: Record<string, unknown>;
    try {
      input = JSON.parse(args) as Record<string, unknown>;
    } catch {
      input = { arguments: args };
    }
    const d = await askPeople(sched, name, input, options);
    if (d.approved) result.state.approve(item);
    else result.state.reject(item);
    decisions.push(d);
  }
  return decisions;
}
