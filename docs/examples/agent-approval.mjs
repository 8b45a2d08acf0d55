// An agent's tool call that waits for a person: run with a server up and
//   SCHED_API_URL=http://localhost:8080 SCHED_API_KEY=sk_sched_... APPROVER=you@example.com node docs/examples/agent-approval.mjs
// The approver gets an email (or, on a development server without SMTP, `sched outbox list` shows the page's link),
// may change the amount on the page, and confirms; the "refund" below then runs with the approved amount.
import { createClient } from '@sched/sdk';
import { askPeople } from '@sched/sdk/agents';

const sched = createClient({ baseUrl: process.env.SCHED_API_URL, apiKey: process.env.SCHED_API_KEY });

/** What the agent wants to do, as a model would call it. */
const call = { toolName: 'refund', input: { order: 'A-1042', amount: 120 } };

async function refund({ order, amount }) {
  return `refunded ${amount} EUR on order ${order}`;
}

const decision = await askPeople(sched, call.toolName, call.input, {
  to: process.env.APPROVER ?? 'approver@example.com',
  message: (_tool, input) => `The support agent wants to refund order ${input.order}. Check the amount.`,
  fields: (_tool, input) => [
    { name: 'amount', label: 'Amount (EUR)', type: 'integer', required: true, default: input.amount, min: 1 },
  ],
  waitMs: 15 * 60_000,
});

console.log(
  decision.approved
    ? await refund(decision.input)
    : `not refunded: ${decision.decision}${decision.comment ? ` (${decision.comment})` : ''}`,
);
