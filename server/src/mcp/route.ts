import { callMcpTool, listMcpTools } from '@sched/contract';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../http/auth.js';
import type { Authenticate } from '../http/plugin.js';
import { SERVER_VERSION } from '../version.js';
import { type McpUseCases, serverBackend } from './backend.js';

/**
 * The Model Context Protocol over Streamable HTTP at `POST /mcp`, stateless: each request carries the Bearer key
 * (any scope may connect; a `read` key is offered the read tools only) and is answered as JSON by a server made for
 * it. No session, no stream to resume: a tool that waits (`wait_for_decision`) holds its request like
 * `GET /v1/actions/{id}/wait`.
 */
export function registerMcpRoute(
  app: FastifyInstance,
  deps: { auth: Authenticate; useCases: McpUseCases },
): void {
  // The SDK is loaded by the first request: a start that serves no agent does not pay its tenth of a second.
  let sdk: Promise<typeof import('./sdk.js')> | undefined;
  app.post(
    '/mcp',
    { onRequest: (request, reply) => deps.auth(request, reply, 'read') },
    async (request, reply) => {
      const principal = principalOf(request);
      const canWrite = principal.scopes.includes('write');
      const backend = serverBackend(deps.useCases, principal);
      sdk ??= import('./sdk.js');
      const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema } =
        await sdk;
      const server = new Server({ name: 'sched', version: SERVER_VERSION }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listMcpTools(canWrite) }));
      server.setRequestHandler(CallToolRequestSchema, async (req) =>
        callMcpTool(req.params.name, req.params.arguments, backend, canWrite),
      );
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );
  // Stateless: there is no server-sent stream to open and no session to end.
  for (const method of ['GET', 'DELETE'] as const)
    app.route({
      method,
      url: '/mcp',
      handler: async (_request, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({ code: 'bad_request', message: 'MCP here is stateless Streamable HTTP: POST only' }),
    });
}
