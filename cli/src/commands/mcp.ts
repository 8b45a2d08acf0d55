import { callMcpTool, listMcpTools, type McpToolBackend, SchedToolError } from '@sched/contract';
import { SchedApiError, type SchedClient } from '@sched/sdk';
import type { Command } from 'commander';
import { client } from '../runtime.js';

/** An API error as a tool error: its code, message and dotted field paths. */
async function asTool<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof SchedApiError)) throw err;
    throw new SchedToolError(
      err.code,
      err.message,
      Object.keys(err.errors).length > 0 ? err.errors : undefined,
    );
  }
}

/** The MCP tools over the SDK: every call is an API request with the configured key. */
function sdkBackend(sched: SchedClient): McpToolBackend {
  return {
    create: (body) =>
      asTool(async () => {
        const created = await sched.actions.create(body);
        return created.skipped ? sched.actions.get(created.action.id) : created.action;
      }),
    wait: (id, timeout) => asTool(() => sched.actions.hold(id, { for: 'decision', timeout })),
    get: (id) => asTool(() => sched.actions.get(id)),
    cancel: (id) => asTool(() => sched.actions.cancel(id)),
    pending: (limit) => asTool(async () => (await sched.pendingApprovals({ per_page: limit })).data),
  };
}

/**
 * Whether the key may write, asked without changing anything: an empty batch is refused for its scope (403) before
 * its body is looked at (422).
 */
async function keyCanWrite(sched: SchedClient): Promise<boolean> {
  try {
    await sched.actions.createMany([]);
    return true;
  } catch (err) {
    if (err instanceof SchedApiError && err.status === 403) return false;
    if (err instanceof SchedApiError && err.status === 422) return true;
    throw err;
  }
}

export function configureMcpCommand(program: Command): void {
  program
    .command('mcp')
    .description(
      'serve the MCP tools (request_approval, wait_for_decision, ...) over stdio for a desktop agent, calling the API with SCHED_API_URL and SCHED_API_KEY',
    )
    .action(async (_o: unknown, cmd: Command) => {
      const sched = client(cmd);
      const canWrite = await keyCanWrite(sched);
      const backend = sdkBackend(sched);
      // Loaded here, not with the program: every other verb (and `sched serve`) would pay for it at each start.
      const [{ Server }, { StdioServerTransport }, { CallToolRequestSchema, ListToolsRequestSchema }] =
        await Promise.all([
          import('@modelcontextprotocol/sdk/server/index.js'),
          import('@modelcontextprotocol/sdk/server/stdio.js'),
          import('@modelcontextprotocol/sdk/types.js'),
        ]);
      const server = new Server({ name: 'sched', version: '1' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listMcpTools(canWrite) }));
      server.setRequestHandler(CallToolRequestSchema, async (req) =>
        callMcpTool(req.params.name, req.params.arguments, backend, canWrite),
      );
      // Serves until the client closes stdin (the verb's end exits the process). stdout is the protocol's alone.
      const ended = new Promise<void>((resolve) => {
        server.onclose = resolve;
        process.stdin.once('end', resolve);
      });
      await server.connect(new StdioServerTransport());
      await ended;
      await server.close();
    });
}
