import { readFileSync } from 'node:fs';
import {
  type Action,
  type AlertRuleSummary,
  type BulkOperation,
  createClient,
  type SchedClient,
} from '@sched/sdk';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser.js';
import { type ConsolePages, consolePages } from '../support/console.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpServer } from '../support/peers.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { runCli, startServer, type TestServer } from '../support/server.js';
import { eventually, statusOf } from '../support/wait.js';

// The console's operations panels in Debian's chromium against a real `sched serve --role api` and a worker:
// approvals waiting (remind, reassign, filters in the URL), destinations (pause, resume, settings, a recovery whose dry run is
// shown first, the circuit and Enable), alert rules (form, test, edit, disable, delete), bulk operations (progress,
// stop a running one), the audit log (filters, verify, export); a
// read-scope key finds no write button on any of them; axe-core on each and no CSP violation anywhere.

/** Any button that changes something on these panels. */
const WRITE_BUTTONS =
  /Remind|Reassign|Pause deliveries|Resume deliveries|Save settings|Count what a recovery|Retry \d|Stop|Enable|Send a test|^Test |Disable|Delete|Create the rule|Save the rule|Ask for approval|Schedule the action/;

async function createdAction(sched: SchedClient, body: Parameters<SchedClient['actions']['create']>[0]) {
  const made = await sched.actions.create(body);
  if (made.skipped) throw new Error('skipped');
  return made.action;
}

describe('the console panels of operations in a browser', () => {
  let db: TestDatabase;
  let server: TestServer;
  let worker: TestServer;
  let rx: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let sched: SchedClient;
  let browser: Browser | null = null;
  let pages: ConsolePages;
  let readKey = '';
  /** Times out in 30 minutes: overdue (within the hour). */
  let soon: Action;
  /** Times out in a week, asks someone else. */
  let later: Action;
  let failed: Action;
  let host = '';
  /** The receiver's origin: the destination its deliveries go to. */
  let origin = '';
  const signIn = (page: Page, key: string) => pages.signIn(page, server.url, key);
  const panelLink = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Panels' }).getByRole('link', { name, exact: true });

  beforeAll(async () => {
    browser = await launchBrowser();
    if (!browser) return;
    pages = consolePages(browser);
    db = await createTestDatabase('console_panels');
    rx = await startReceiver();
    smtp = await startSmtpServer();
    const env = { SCHED_RATE_LIMIT_FACTOR: '20', SCHED_SMTP_URL: smtp.url };
    server = await startServer({ databaseUrl: db.url, role: 'api', env });
    worker = await startServer({ databaseUrl: db.url, role: 'worker', env, dataDir: server.dataDir });
    sched = createClient({ baseUrl: server.url, apiKey: server.apiKey });
    const approval = async (name: string, to: string[], timeout: string) => {
      const made = await sched.approvals.create({
        name,
        to,
        message: `${name}?`,
        schedule: { wait: '1s' },
        timeout,
      });
      if (made.skipped) throw new Error('skipped');
      return made.action;
    };
    soon = await approval('Ship release 4.2', ['ada@example.com', 'alan@example.com'], '30m');
    later = await approval('Refund order 1042', ['grace@example.com'], '7d');
    rx.on('/down', { status: 503 });
    failed = await createdAction(sched, {
      name: 'Sync ledger',
      schedule: { wait: '1s' },
      max_attempts: 1,
      request: { url: `${rx.url}/down` },
    });
    host = new URL(rx.url).hostname;
    origin = new URL(rx.url).origin;
    await smtp.waitFor('ada@example.com');
    await smtp.waitFor('grace@example.com');
    soon = await statusOf(sched, soon.id, 'awaiting_response');
    later = await statusOf(sched, later.id, 'awaiting_response');
    failed = await statusOf(sched, failed.id, 'failed');
    const accounts = await runCli(['accounts', 'list', '--json'], server.env);
    const accountId = JSON.parse(accounts.stdout).data[0].id as string;
    const created = await runCli(
      ['keys', 'create', '--account', accountId, '--scopes', 'read', '--json'],
      server.env,
    );
    readKey = JSON.parse(created.stdout).api_key as string;
  }, 120_000);

  afterAll(async () => {
    await pages?.close();
    await browser?.close();
    await worker?.stop();
    await server?.stop();
    await rx?.close();
    await smtp?.close();
    await db?.drop();
  });

  it('serves every view at its own URL, a host name with dots included; a missing file is a 404', async () => {
    const view = await fetch(`${server.url}/console/destinations/api.example.com`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toContain('text/html');
    for (const missing of ['/console/assets/nope.js', '/console/favicon.ico'])
      expect((await fetch(`${server.url}${missing}`)).status, missing).toBe(404);
  });

  it('lists approvals waiting per recipient, nearest timeout first, filters them in the URL, reminds and reassigns', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await signIn(page, server.apiKey);
    // The overview's count of approvals waiting leads to this panel.
    await page.getByRole('link', { name: '2 approvals waiting for an answer' }).click();
    await page.getByRole('heading', { name: 'Approvals waiting', level: 1 }).waitFor();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // Nearest timeout first; each recipient with their state; only the one within the hour is overdue.
    expect(await rows.nth(0).textContent()).toContain('Ship release 4.2');
    expect(await rows.nth(1).textContent()).toContain('Refund order 1042');
    const recipients = page.getByRole('list', { name: 'Recipients of Ship release 4.2' });
    expect(await recipients.getByRole('listitem').count()).toBe(2);
    expect(await recipients.textContent()).toContain('ada@example.com');
    expect(await recipients.textContent()).toContain('pending');
    expect(await rows.nth(0).locator('.status-overdue').count()).toBe(1);
    expect(await rows.nth(1).locator('.status-overdue').count()).toBe(0);
    await pages.check(page, 'approvals');

    // Filters go to the URL and narrow the list; the link opens the same view.
    await page.getByLabel('Overdue').selectOption('true');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/overdue=true/);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('Ship release 4.2');
    await page.goto(`${server.url}/console/approvals?recipient=grace%40example.com&channel=email`);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.nth(0).textContent()).toContain('Refund order 1042');
    expect(await page.getByLabel('Recipient', { exact: true }).inputValue()).toBe('grace@example.com');
    expect(await page.locator('select[name="channel"]').inputValue()).toBe('email');
    await page.goto(`${server.url}/console/approvals?channel=sms`);
    await page.getByText('No approval matches these filters.').waitFor();

    // Remind: a confirmation, then the message goes again to who has not answered.
    await page.goto(`${server.url}/console/approvals`);
    await page.getByRole('button', { name: 'Remind Ship release 4.2' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remind the recipients of “Ship release 4.2”?' });
    await dialog.getByText('to the 2 recipient(s) who have not answered').waitFor();
    await dialog.getByRole('button', { name: 'Remind' }).click();
    await page.getByRole('status').filter({ hasText: 'A reminder to who has not answered' }).waitFor();
    await smtp.waitFor('ada@example.com', 2);
    await smtp.waitFor('alan@example.com', 2);
    expect(smtp.mails.filter((m) => m.to.includes('grace@example.com'))).toHaveLength(1);

    // Reassign: who takes over, in the dialog (refused there without a name); the old link dies, the new recipient
    // gets a link of their own at once, and the history says who took over from whom.
    await page.getByRole('button', { name: 'Reassign grace on Refund order 1042' }).click();
    const reassign = page.getByRole('dialog', { name: 'Reassign grace on “Refund order 1042”?' });
    await reassign.getByRole('button', { name: 'Reassign' }).click();
    await reassign.getByRole('alert').filter({ hasText: 'Say who takes over.' }).waitFor();
    await reassign.getByLabel('Hand over to').fill('hopper@example.com');
    await reassign.getByLabel('Reason').fill('Grace is on leave');
    await reassign.getByRole('button', { name: 'Reassign' }).click();
    await page.getByRole('status').filter({ hasText: '“Refund order 1042” has a new recipient.' }).waitFor();
    await smtp.waitFor('hopper@example.com', 1, 30_000);
    const handed = await sched.actions.get(later.id);
    const grace = handed.recipients.find((r) => r.email === 'grace@example.com')!;
    expect(grace.status).toBe('reassigned');
    expect(handed.recipients.find((r) => r.email === 'hopper@example.com')).toMatchObject({
      status: 'pending',
      reassigned_from: grace.id,
    });
    const refund = page.getByRole('list', { name: 'Recipients of Refund order 1042' });
    await expect.poll(() => refund.textContent()).toContain('took over from grace');
    expect(await refund.locator('.status-reassigned').count()).toBe(1);
    // Nobody answered or reassigned is offered again.
    expect(await page.getByRole('button', { name: 'Reassign grace on Refund order 1042' }).count()).toBe(0);

    // The approval's own page offers the same buttons.
    await page.getByRole('link', { name: 'Refund order 1042' }).click();
    await page.getByRole('heading', { name: /Refund order 1042/ }).waitFor();
    await page.getByRole('button', { name: 'Remind' }).waitFor();
    await page.getByRole('button', { name: 'Reassign hopper on Refund order 1042' }).waitFor();
    expect(await page.getByRole('table').filter({ hasText: 'hopper' }).textContent()).toContain(
      'took over from grace',
    );
  }, 120_000);

  it('shows a destination: circuit, load and last day; pauses, resumes, saves settings and recovers after a dry run', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await signIn(page, server.apiKey);
    // The overview's failing destination leads to its page.
    await page.getByRole('table').getByRole('link', { name: origin, exact: true }).click();
    await page.waitForURL(
      new RegExp(`/console/destinations/${encodeURIComponent(origin).replaceAll('.', '\\.')}$`),
    );
    await page.getByRole('heading', { name: 'Last 24 hours' }).waitFor();
    const figures = page.locator('.figures');
    await expect.poll(() => figures.textContent()).toContain('Failures1');
    expect(await page.locator('.facts').first().textContent()).toContain('Circuitclosed');

    // The list has it with its counts.
    await panelLink(page, 'Destinations').click();
    const row = page.getByRole('row').filter({ hasText: origin });
    await row.waitFor();
    expect(await row.textContent()).toContain('flowing');
    // A page of origins at a time, the pager saying how many there are.
    const listed = await sched.destinations.listPage();
    expect(await page.getByRole('navigation', { name: 'destinations pages' }).textContent()).toBe(
      `${listed.meta.total} destinations`,
    );
    await pages.check(page, 'destinations');
    await row.getByRole('link', { name: origin }).click();

    // Pause with a note: the API agrees; a webhook due meanwhile waits, counted, and goes out on resume.
    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    const pause = page.getByRole('dialog', { name: `Pause deliveries to ${origin}?` });
    await pause.getByLabel('Note').fill('partner maintenance');
    await pause.getByRole('button', { name: 'Pause deliveries' }).click();
    await page.locator('h1 .status-paused').waitFor();
    expect(await sched.destinations.get(origin)).toMatchObject({
      paused: true,
      pause: { note: 'partner maintenance', until: null },
    });
    const held = await createdAction(sched, {
      name: 'Held while paused',
      schedule: { wait: '1s' },
      request: { url: `${rx.url}/held` },
    });
    await eventually(async () => (await sched.destinations.get(origin)).waiting >= 1, 30_000);
    await page.reload();
    await expect.poll(() => page.locator('.facts').first().textContent()).toContain('Due and waiting1');
    expect(await page.locator('.facts').first().textContent()).toContain('partner maintenance');
    expect(rx.to('/held')).toHaveLength(0);
    await page.getByRole('button', { name: 'Resume deliveries' }).click();
    await page
      .getByRole('dialog', { name: `Resume deliveries to ${origin}?` })
      .getByRole('button', { name: 'Resume deliveries' })
      .click();
    await page.locator('h1 .status-flowing').waitFor();
    await statusOf(sched, held.id, 'executed', 30_000);

    // Flow control: saved through PUT, and only the part changed is sent (the circuit keeps its defaults).
    await page.getByLabel('At most').fill('10');
    await page.getByLabel('requests per').selectOption('1m');
    await page.getByLabel('In flight at once').fill('3');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = await sched.destinations.get(origin);
    expect(saved.flow).toEqual({ rate: 10, period: '1m', parallelism: 3 });
    expect(saved.circuit).toMatchObject({ enabled: true, failure_rate: 0.7 });

    // Recovery: the dry run's count first, nothing started; then the run, its progress to the end.
    rx.on('/down', { status: 200 });
    await page.getByLabel('Retry the actions to this origin that failed in').selectOption('24');
    await page.getByRole('button', { name: 'Count what a recovery retries' }).click();
    const dry = page.locator('.dry-run');
    await expect.poll(() => dry.textContent()).toContain('1 matched, 1 would be retried');
    expect((await sched.bulkOperations.list()).data).toEqual([]);
    await pages.check(page, 'destination-detail');
    await page.getByRole('button', { name: 'Retry 1 action' }).click();
    await expect
      .poll(() => page.locator('.bulk .bulk-progress').textContent(), { timeout: 30_000 })
      .toContain('completed: 1 retried');
    await statusOf(sched, failed.id, 'executed', 30_000);
    // Back to no limit: an empty form clears the flow settings (`flow: null`).
    await page.getByLabel('At most').fill('');
    await page.getByLabel('In flight at once').fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => (await sched.destinations.get(origin)).flow).toBeNull();

    // The circuit: a breaker set to open at half of at least two attempts failing opens on two failed deliveries
    // (the window may hold the two successes above); the page shows it open and offers Enable, which closes it.
    await page.getByLabel('Opens at failure rate').fill('0.5');
    await page.getByLabel('over at least (requests)').fill('2');
    await page.getByLabel('Stays open for').fill('1h');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(async () => (await sched.destinations.get(origin)).circuit.min_requests).toBe(2);
    expect(await page.getByRole('button', { name: 'Enable' }).count()).toBe(0);
    // Retryable failures count (a last attempt's failure is final, not a signal about the receiver).
    rx.on('/down', { status: 503 });
    for (const name of ['Tripping 1', 'Tripping 2'])
      await createdAction(sched, {
        name,
        schedule: { wait: '1s' },
        max_attempts: 10,
        request: { url: `${rx.url}/down` },
      });
    await eventually(async () => (await sched.destinations.get(origin)).circuit.state === 'open', 30_000);
    rx.on('/down', { status: 200 });
    await page.reload();
    await page.locator('.facts .status-open').waitFor();
    expect(await page.locator('.facts').first().textContent()).toContain('Failing since');
    await page.getByRole('button', { name: 'Enable' }).click();
    const enable = page.getByRole('dialog', { name: `Close the circuit of ${origin}?` });
    await enable.getByText('Its circuit is open.').waitFor();
    await enable.getByRole('button', { name: 'Enable' }).click();
    await page.locator('.facts .status-closed').waitFor();
    expect((await sched.destinations.get(origin)).circuit.state).toBe('closed');
    expect(await page.getByRole('button', { name: 'Enable' }).count()).toBe(0);
  }, 180_000);

  it('reads the audit log with filters in the URL, verifies its chain and exports it', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await signIn(page, server.apiKey);
    await panelLink(page, 'Audit log').click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    expect(await page.locator('table.list').textContent()).toContain('action.create');

    // A pattern: only the approvals' events (the reminder sent from the approvals panel).
    await page.getByLabel('Action', { exact: true }).fill('approval.*');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/action=approval\.\*/);
    const actions = () => rows.locator('td:nth-child(3)').allTextContents();
    await expect.poll(async () => (await actions()).every((a) => a.startsWith('approval.'))).toBe(true);
    expect(await actions()).toContain('approval.reminder');
    // Its resource links to the action.
    await page.locator('table.list').getByRole('link', { name: soon.id }).first().waitFor();

    await page.getByRole('button', { name: 'Verify the chain' }).click();
    const verified = page.locator('.verify-result');
    await expect.poll(() => verified.textContent()).toMatch(/Intact: \d+ events checked/);
    await pages.check(page, 'audit');

    // The export carries the same filter, as CSV with a header row.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^audit-events-.*\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toMatch(/^seq,id,at,action,/);
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines.slice(1)) expect(line.split(',')[3]).toMatch(/^approval\./);

    // Keyset pages: a page starts after the cursor in the URL, and links back to the first.
    await page.goto(`${server.url}/console/audit`);
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    const seqs = (await rows.locator('td:first-child').allTextContents()).map(Number);
    await page.goto(`${server.url}/console/audit?after=${seqs[2]}`);
    await page.getByRole('link', { name: 'First page' }).waitFor();
    await expect
      .poll(async () => Number(await rows.first().locator('td').first().textContent()))
      .toBe(seqs[3]);
    expect(await rows.count()).toBe(seqs.length - 3);
  }, 120_000);

  let rule: AlertRuleSummary;

  it('creates an alert rule through its form, sends a test that arrives, edits, disables and deletes rules', async (ctx) => {
    if (!browser) return ctx.skip();
    rx.on('/alerts', { status: 200 });
    const page = await pages.open();
    await signIn(page, server.apiKey);
    await panelLink(page, 'Alert rules').click();
    await page.getByText('No alert rule yet.').waitFor();
    await page.getByRole('link', { name: 'New alert rule' }).click();
    await page.getByRole('heading', { name: 'New alert rule', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Ledger failing');
    expect(await page.getByRole('checkbox', { name: /action\.failed/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /destination\.circuit_opened/ }).check();
    await page.getByLabel('Destination host').fill(host);
    await page.getByLabel('Channel 1 email address').fill('oncall@example.com');
    await page.getByRole('button', { name: 'Add a channel' }).click();
    await page.getByLabel('Channel 2 type').selectOption('webhook');
    await page.getByLabel('Channel 2 webhook url').fill(`${rx.url}/alerts`);
    await page.getByLabel('Channel 2 signing secret').fill('console-alert-secret-1234');
    // Half a threshold: the service's 422 names the missing part, shown in the form; nothing is created.
    await page.getByLabel('At least (events)').fill('3');
    await page.getByRole('button', { name: 'Create the rule' }).click();
    await page.getByRole('alert').filter({ hasText: 'HTTP 422' }).waitFor();
    // Beside the input it names, which is marked invalid and described by it.
    // (Its label now holds the message too, hidden from the name: found by its field name.)
    const within = page.locator('input[name="threshold_window"]');
    expect(await within.getAttribute('aria-invalid')).toBe('true');
    expect(
      await page.locator(`[id="${await within.getAttribute('aria-describedby')}"]`).textContent(),
    ).toBeTruthy();
    expect((await sched.alertRules.list()).data).toEqual([]);
    await within.fill('10m');
    await page.getByRole('button', { name: 'Create the rule' }).click();
    await page.getByRole('heading', { name: /Ledger failing/, level: 1 }).waitFor();
    [rule] = (await sched.alertRules.list()).data as [AlertRuleSummary];
    expect(rule).toMatchObject({
      name: 'Ledger failing',
      enabled: true,
      events: ['action.failed', 'destination.circuit_opened'],
      filter: { destination_host: host },
      threshold: { count: 3, window: '10m' },
      channels: [
        { type: 'email', to: 'oncall@example.com' },
        { type: 'webhook', url: `${rx.url}/alerts`, signed: true },
      ],
    });
    expect(page.url()).toContain(`/console/alerts/${rule.id}`);

    // A test: one sample per channel, each arriving; the messages table follows them until sent.
    await page.getByRole('button', { name: 'Send a test' }).click();
    await page
      .getByRole('dialog', { name: 'Send a test of “Ledger failing”?' })
      .getByRole('button', { name: 'Send a test' })
      .click();
    await page.getByRole('status').filter({ hasText: '2 sample messages queued' }).waitFor();
    await smtp.waitFor('oncall@example.com', 1, 30_000);
    const [hook] = await rx.waitFor('/alerts', 1, 30_000);
    expect(JSON.parse(hook!.body)).toMatchObject({
      type: 'alert',
      test: true,
      rule: { name: 'Ledger failing' },
    });
    const messages = page.getByRole('table').filter({ hasText: 'Queued' });
    await expect
      .poll(async () => await messages.locator('.status-sent').count(), { timeout: 30_000 })
      .toBe(2);
    await pages.check(page, 'alert-rule');

    // Edit: the form holds the rule; the threshold cleared is sent as null; the webhook keeps its secret.
    await page.getByRole('link', { name: 'Edit' }).click();
    const name = page.getByLabel('Name', { exact: true });
    await expect.poll(() => name.inputValue()).toBe('Ledger failing');
    expect(await page.getByLabel('Channel 2 webhook url').inputValue()).toBe(`${rx.url}/alerts`);
    await name.fill('Ledger failing, any count');
    await page.getByLabel('At least (events)').fill('');
    await page.getByLabel('within', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Save the rule' }).click();
    await page.getByRole('heading', { name: /Ledger failing, any count/, level: 1 }).waitFor();
    expect(await sched.alertRules.get(rule.id)).toMatchObject({
      name: 'Ledger failing, any count',
      threshold: null,
      channels: [{ type: 'email' }, { type: 'webhook', signed: true }],
    });

    await page.getByRole('button', { name: 'Disable' }).click();
    await page
      .getByRole('dialog', { name: /^Disable/ })
      .getByRole('button', { name: 'Disable' })
      .click();
    await page.locator('h1 .status-inactive').waitFor();
    expect((await sched.alertRules.get(rule.id)).enabled).toBe(false);

    // Another rule, made through the API, is deleted from its page.
    const other = await sched.alertRules.create({
      name: 'Bulk runs',
      events: ['bulk_operation.completed'],
      channels: [{ type: 'email', to: 'ops@example.com' }],
    });
    await panelLink(page, 'Alert rules').click();
    await page.getByRole('link', { name: 'Bulk runs' }).waitFor();
    await pages.check(page, 'alert-rules');
    await page.getByRole('link', { name: 'Bulk runs' }).click();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page
      .getByRole('dialog', { name: 'Delete “Bulk runs”?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByRole('heading', { name: 'Alert rules', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('link', { name: 'Bulk runs' }).count()).toBe(0);
    expect((await sched.alertRules.list()).data.map((r) => r.id)).toEqual([rule.id]);
    await expect(sched.alertRules.get(other.id)).rejects.toMatchObject({ status: 404 });
  }, 120_000);

  let running: BulkOperation;

  it('gives a read-scope key these panels without a write button, a running operation included', async (ctx) => {
    if (!browser) return ctx.skip();
    // Without a worker, an operation stays running: the moment its Stop button matters.
    await worker.stop();
    const parked = [];
    for (const n of [1, 2, 3])
      parked.push(
        await createdAction(sched, {
          name: `Parked ${n}`,
          schedule: { wait: '7d' },
          request: { url: `${rx.url}/parked` },
        }),
      );
    running = await sched.bulkOperations.start({
      operation: 'cancel',
      filter: { search: 'Parked' },
      note: 'clear the parked ones',
    });
    expect(running).toMatchObject({ status: 'running', matched: 3 });

    const page = await pages.open();
    await signIn(page, readKey);
    await page.getByText('read only').waitFor();
    const views = [
      'approvals',
      `actions/${later.id}`,
      'destinations',
      `destinations/${encodeURIComponent(origin)}`,
      'bulk',
      `bulk/${running.id}`,
      'audit',
      'alerts',
      `alerts/${rule.id}`,
      'alerts/new',
      `alerts/${rule.id}/edit`,
      'approvals/new',
      'actions/new',
    ];
    for (const view of views) {
      await page.goto(`${server.url}/console/${view}`);
      await page.locator('main h1').waitFor();
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('button', { name: WRITE_BUTTONS }).count(), view).toBe(0);
      expect(
        await page.getByRole('link', { name: /New alert rule|^Edit$|New approval|New action/ }).count(),
        view,
      ).toBe(0);
    }
    // It reads what the write key reads: the destination's settings as text, the operation running.
    await page.goto(`${server.url}/console/destinations/${encodeURIComponent(origin)}`);
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    expect(await page.locator('.facts').last().textContent()).toContain('Flow controlno limit');
    await page.goto(`${server.url}/console/bulk/${running.id}`);
    await page.locator('h1 .status-running').waitFor();
    // Verify is a read: offered to this key too.
    await page.goto(`${server.url}/console/audit`);
    await page.getByRole('button', { name: 'Verify the chain' }).waitFor();
  }, 120_000);

  it('lists bulk operations with their progress and stops a running one after a confirmation', async (ctx) => {
    if (!browser) return ctx.skip();
    const page = await pages.open();
    await signIn(page, server.apiKey);
    await panelLink(page, 'Bulk operations').click();
    const rows = page.locator('table.list tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    // Newest first: the running cancel, then the recovery's retry.
    expect(await rows.nth(0).textContent()).toContain('cancel');
    expect(await rows.nth(0).textContent()).toContain('running');
    expect(await rows.nth(1).textContent()).toContain('1 of 1: 1 retried');
    expect(await rows.nth(1).textContent()).toContain(`destination_origin=${origin}`);
    expect(await rows.nth(1).textContent()).toContain(`recover ${origin} since`);
    await pages.check(page, 'bulk-operations');

    await rows.nth(0).getByRole('link', { name: 'cancel' }).click();
    await page.getByRole('heading', { name: /Cancel of 3 actions/ }).waitFor();
    expect(await page.locator('.bulk-progress').textContent()).toContain('0 of 3 processed');
    await page.getByRole('button', { name: 'Stop the cancel operation' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop this cancel operation?' });
    await dialog.getByText('the 3 actions not reached yet are left as they are').waitFor();
    await pages.check(page, 'bulk-stop-confirmation');
    await dialog.getByRole('button', { name: 'Stop' }).click();
    await page.locator('h1 .status-stopped').waitFor();
    expect(await page.getByRole('button', { name: /^Stop/ }).count()).toBe(0);
    expect(await sched.bulkOperations.get(running.id)).toMatchObject({ status: 'stopped', processed: 0 });
    for (const a of (await sched.actions.list({ search: 'Parked' })).data) expect(a.status).toBe('scheduled');
  }, 120_000);

  it('loaded every page without a CSP violation', (ctx) => {
    if (!browser) return ctx.skip();
    expect(pages.csp.length).toBeGreaterThan(0);
    expect(pages.csp.flat()).toEqual([]);
  });
});
