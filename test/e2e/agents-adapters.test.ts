import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  tool as agentsTool,
  Usage,
} from '@openai/agents';
import { createClient } from '@sched/sdk';
import { aiSdkApprovalResponses, askPeople, openAiAgentsApprovals } from '@sched/sdk/agents';
import { generateText, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { eventually } from '../support/wait.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** Confirms (or declines) the first approval mailed to `to`, through its page's JSON answer. */
async function answer(svc: ApprovalServer, to: string, body: Record<string, unknown>) {
  const link = await svc.linkOf(to);
  // The mail can arrive while the round is still being recorded (409: answer again in a moment).
  const status = await eventually(async () => {
    const res = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    return res.status === 409 ? null : res.status;
  });
  expect(status).toBe(200);
}

// The agent adapters against the real frameworks, their test models driving a tool call that waits for people.
describe('@sched/sdk/agents', () => {
  let svc: ApprovalServer;
  let sched: ReturnType<typeof createClient>;

  beforeAll(async () => {
    svc = await startApprovalServer('agents', { timeScale: 3600 });
    sched = createClient({ baseUrl: svc.server.url, apiKey: svc.key });
  });
  afterAll(() => svc?.stop());

  it('AI SDK: a needsApproval tool call is asked by mail and runs once confirmed', async () => {
    const ran: unknown[] = [];
    const tools = {
      refund: tool({
        description: 'Refund an order',
        inputSchema: z.object({ order: z.string(), amount: z.number() }),
        needsApproval: true,
        execute: async (input) => {
          ran.push(input);
          return { refunded: input.amount };
        },
      }),
    };
    let calls = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        calls += 1;
        return calls === 1
          ? {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'call-1',
                  toolName: 'refund',
                  input: '{"order":"42","amount":120}',
                },
              ],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: 'text', text: 'Refunded.' }],
              finishReason: { unified: 'stop', raw: 'stop' },
              usage,
              warnings: [],
            };
      },
    });
    const messages: ModelMessage[] = [{ role: 'user', content: 'Refund order 42' }];
    const first = await generateText({ model, tools, messages });
    expect(first.content.some((p) => p.type === 'tool-approval-request')).toBe(true);
    expect(ran).toEqual([]);

    const responding = aiSdkApprovalResponses(sched, first.content, { to: 'ai-approver@example.com' });
    await answer(svc, 'ai-approver@example.com', { decision: 'confirm' });
    const approvals = await responding;
    expect(approvals.content).toEqual([expect.objectContaining({ approved: true })]);

    messages.push(...first.response.messages, approvals);
    const second = await generateText({ model, tools, messages });
    expect(ran).toEqual([{ order: '42', amount: 120 }]);
    expect(second.text).toBe('Refunded.');
  });

  it('askPeople inside execute: the tool runs with the amount people changed', async () => {
    const decided = askPeople(
      sched,
      'refund',
      { order: '43', amount: 120 },
      {
        to: 'fields-approver@example.com',
        fields: (_n, input) => [
          { name: 'amount', type: 'integer', default: input.amount as number, required: true },
        ],
      },
    );
    await answer(svc, 'fields-approver@example.com', { decision: 'confirm', values: { amount: 90 } });
    expect(await decided).toMatchObject({
      approved: true,
      decision: 'confirmed',
      input: { order: '43', amount: 90 },
    });
  });

  it('OpenAI Agents: an interruption is approved through sched and the run resumes to execute the tool', async () => {
    const ran: unknown[] = [];
    const refund = agentsTool({
      name: 'refund',
      description: 'Refund an order',
      parameters: z.object({ order: z.string(), amount: z.number() }),
      needsApproval: true,
      execute: async (input) => {
        ran.push(input);
        return `refunded ${input.amount}`;
      },
    });
    let turns = 0;
    const model: Model = {
      async getResponse(_request: ModelRequest): Promise<ModelResponse> {
        turns += 1;
        return {
          usage: new Usage(),
          responseId: `r${turns}`,
          output:
            turns === 1
              ? [
                  {
                    type: 'function_call',
                    callId: 'call-1',
                    name: 'refund',
                    arguments: '{"order":"44","amount":50}',
                    status: 'completed',
                  },
                ]
              : [
                  {
                    type: 'message',
                    role: 'assistant',
                    status: 'completed',
                    content: [{ type: 'output_text', text: 'Done.' }],
                  },
                ],
        };
      },
      getStreamedResponse() {
        throw new Error('not streamed in this test');
      },
    };
    const agent = new Agent({ name: 'refunds', instructions: 'Refund orders.', model, tools: [refund] });
    const first = await run(agent, 'Refund order 44');
    expect(first.interruptions).toHaveLength(1);
    expect(ran).toEqual([]);

    const approving = openAiAgentsApprovals(sched, first, { to: 'agents-approver@example.com' });
    await answer(svc, 'agents-approver@example.com', { decision: 'confirm' });
    expect((await approving).map((d) => d.decision)).toEqual(['confirmed']);
    const resumed = await run(agent, first.state);
    expect(ran).toEqual([{ order: '44', amount: 50 }]);
    expect(resumed.finalOutput).toBe('Done.');
  });
});
