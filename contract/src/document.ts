import { CHAIN_CALLBACK_EVENTS, ChainCallback, contract } from './index.js';
import { buildOpenApiDocument } from './openapi.js';

/** The committed docs/openapi.json, as text (stable key order, trailing newline). */
export function renderOpenApi(): string {
  const doc = buildOpenApiDocument(
    contract,
    {
      title: 'sched API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Scheduled webhooks and human approvals. Single resources are `{ data }`; lists are `{ data, meta }`; ' +
        'validation failures are 422 `{ message, errors }` with dotted field paths. Every response carries ' +
        '`X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`.',
    },
    Object.fromEntries(
      CHAIN_CALLBACK_EVENTS.map((event) => [
        event,
        { summary: `Chain callback \`${event}\` to the chain's callback_url`, body: ChainCallback },
      ]),
    ),
  );
  return `${JSON.stringify(doc, null, 2)}\n`;
}
