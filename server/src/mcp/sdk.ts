// The parts of the MCP SDK the route uses, in one module so that the route can load them together on first use.
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
export { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
