import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '@sched/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApprovalServer, startApprovalServer } from '../support/approval-server.js';
import { cliBin } from '../support/server.js';

const WRITE_TOOLS = ['cancel_action', 'request_approval', 'schedule_webhook'];
const READ_TOOLS = ['get_action', 'list_pending_approvals', 'wait_for_decision'];

// The MCP server through the official MCP client, over Streamable HTTP (`POST /mcp`) and stdio (`sched mcp`).
describe('MCP', () => {
  let svc: ApprovalServer;
  /** Every answer of every session, to check that none carries a response link. */
  const seen: string[] = [];

  async function connect(key: string): Promise<Client> {
    const mcp = new Client({ name: 'sched-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    return mcp;
  }
  async function call(mcp: Client, name: string, args: Record<string, unknown>) {
    const result = await mcp.callTool({ name, arguments: args });
    seen.push(JSON.stringify(result));
    const text = (result.content as { type: string; text: string }[])[0]!.text;
    return { isError: result.isError === true, body: JSON.parse(text) };
  }

  beforeAll(async () => {
    svc = await startApprovalServer('mcp', { timeScale: 3600 });
  });
  afterAll(async () => {
    expect(seen.length).toBeGreaterThan(0);
    for (const answer of seen) expect(answer).not.toContain('/r/');
    await svc?.stop();
  });

  it('request_approval with amount 120, changed to 90 on the page: wait_for_decision answers within a second', async () => {
    const mcp = await connect(svc.key);
    const tools = await mcp.listTools();
    seen.push(JSON.stringify(tools));
    expect(tools.tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    // The inputs are the contract's schemas: the gate's own names.
    const request = tools.tools.find((t) => t.name === 'request_approval')!;
    expect(Object.keys(request.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['message', 'recipients', 'fields', 'grant', 'callback_url', 'idempotency_key']),
    );

    const created = await call(mcp, 'request_approval', {
      message: 'Refund order 42?',
      recipients: ['agent-approver@example.com'],
      fields: [{ name: 'amount', type: 'integer', default: 120, required: true }],
      callback_url: `${svc.rx.url}/cb-mcp`,
    });
    expect(created.body).toEqual({ action_id: expect.any(String), status: 'scheduled' });
    const id = created.body.action_id;
    const link = await svc.linkOf('agent-approver@example.com');
    await svc.until(id, 'awaiting_response');
    expect(await (await fetch(link)).text()).toMatch(/name="values\.amount"[^>]*value="120"/);

    const undecided = await call(mcp, 'wait_for_decision', { action_id: id, timeout_seconds: 1 });
    expect(undecided.body).toMatchObject({ decided: false, decision: null, values: null, responders: [] });

    const waiting = call(mcp, 'wait_for_decision', { action_id: id, timeout_seconds: 30 });
    await new Promise((r) => setTimeout(r, 300));
    const confirmedAt = Date.now();
    const form = new URLSearchParams({ 'values.amount': '90', decision: 'confirm' });
    const posted = await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
    });
    expect(posted.status).toBe(200);
    const decided = await waiting;
    expect(Date.now() - confirmedAt).toBeLessThan(1000);
    expect(decided.body).toMatchObject({
      action_id: id,
      status: 'executed',
      decided: true,
      decision: 'confirmed',
      values: { amount: 90 },
      responders: [{ email: 'agent-approver@example.com', status: 'confirmed', values: { amount: 90 } }],
    });
    const [cb] = await svc.rx.waitFor('/cb-mcp');
    expect(cb!.json.payload).toMatchObject({ decision: 'confirm', values: { amount: 90 } });

    const got = await call(mcp, 'get_action', { action_id: id });
    expect(got.body.action).toMatchObject({ id, status: 'executed' });
    const pending = await call(mcp, 'list_pending_approvals', {});
    expect(pending.body.approvals.map((a: any) => a.action_id)).not.toContain(id);
    await mcp.close();
  });

  it('errors are tool errors with the API code and dotted paths; schedule_webhook and cancel_action', async () => {
    const mcp = await connect(svc.key);
    const bad = await call(mcp, 'request_approval', { message: 'x', recipients: [] });
    expect(bad.isError).toBe(true);
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: { recipients: expect.any(Array) } });
    const badField = await call(mcp, 'request_approval', {
      message: 'x',
      recipients: ['a@example.com'],
      fields: [{ name: 'n', type: 'integer', default: 'abc' }],
    });
    expect(badField.body).toMatchObject({ code: 'validation_failed' });
    const badDefault = await call(mcp, 'request_approval', {
      message: 'x',
      recipients: ['a@example.com'],
      fields: [{ name: 'n', type: 'integer', default: 0, min: 1 }],
    });
    expect(badDefault.body).toEqual({
      code: 'validation_failed',
      message: expect.any(String),
      errors: { 'fields.0.default': ['must be at least 1'] },
    });
    const missing = await call(mcp, 'get_action', { action_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.body).toMatchObject({ code: 'not_found' });

    const hook = await call(mcp, 'schedule_webhook', {
      request: { url: `${svc.rx.url}/mcp-hook`, method: 'POST', body: { ok: true } },
      schedule: { wait: '1h' },
    });
    expect(hook.body).toEqual({
      action_id: expect.any(String),
      status: 'scheduled',
      scheduled_for: expect.any(String),
    });
    const cancelled = await call(mcp, 'cancel_action', { action_id: hook.body.action_id });
    expect(cancelled.body).toEqual({ action_id: hook.body.action_id, status: 'cancelled' });
    await mcp.close();
  });

  it("a read key's session lists no write tools and cannot call them", async () => {
    const owner = createClient({ baseUrl: svc.server.url, apiKey: svc.key });
    const reader = await owner.keys.create({ name: 'agent reader', scopes: ['read'] });
    const mcp = await connect(reader.key);
    const tools = await mcp.listTools();
    seen.push(JSON.stringify(tools));
    expect(tools.tools.map((t) => t.name).sort()).toEqual(READ_TOOLS);
    const refused = await call(mcp, 'request_approval', { message: 'x', recipients: ['a@example.com'] });
    expect(refused).toMatchObject({ isError: true, body: { code: 'not_found' } });
    await mcp.close();
  });

  it('`sched mcp` serves the same tools over stdio, through the API', async () => {
    const mcp = new Client({ name: 'sched-e2e-stdio', version: '1.0.0' });
    let stderr = '';
    const stdio = new StdioClientTransport({
      command: process.execPath,
      args: [cliBin, 'mcp'],
      env: {
        ...(svc.server.env as Record<string, string>),
        SCHED_API_URL: svc.server.url,
        SCHED_API_KEY: svc.key,
      },
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await mcp.connect(stdio);
    const tools = await mcp.listTools().catch((err: unknown) => {
      throw new Error(`sched mcp: ${String(err)}\n${stderr}`);
    });
    expect(tools.tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    const created = await call(mcp, 'request_approval', {
      message: 'Deploy?',
      recipients: ['stdio-approver@example.com'],
      fields: [{ name: 'env', type: 'enum', options: ['staging', 'production'], default: 'staging' }],
    });
    expect(created.isError).toBe(false);
    const id = created.body.action_id;
    const link = await svc.linkOf('stdio-approver@example.com');
    await svc.until(id, 'awaiting_response');
    const waiting = call(mcp, 'wait_for_decision', { action_id: id, timeout_seconds: 20 });
    await fetch(link, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ decision: 'decline', comment: 'not today' }),
    });
    expect((await waiting).body).toMatchObject({
      decided: true,
      decision: 'declined',
      responders: [{ status: 'declined', comment: 'not today' }],
    });
    const bad = await call(mcp, 'request_approval', {
      message: 'x',
      recipients: ['a@example.com'],
      timeout: 'soon',
    });
    expect(bad.body).toMatchObject({ code: 'validation_failed', errors: { timeout: expect.any(Array) } });
    await mcp.close();
  });
});
