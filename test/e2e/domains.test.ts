import { randomInt } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, SchedApiError } from '@sched/sdk';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';
import { startDns, type TestDns } from '../support/dns.js';
import { api, runCli, startServer, type TestServer } from '../support/server.js';

/** A host name that resolves only through the test's DNS server, to a loopback address of its own. */
const FILE_HOST = 'files.verify-test.example';

/** Actions go to host names far in the future: the thresholds count creates, nothing is delivered. */
const action = (host: string) => ({ schedule: { wait: '2d' }, request: { url: `https://${host}/hook` } });

describe('destination domains: thresholds and verification', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let server: TestServer;
  let dns: TestDns;
  let https: Server;
  let fileBody: string | null = null;
  let httpsReady = false;
  let key: string;
  const create = (host: string, s: { url: string } = server) =>
    api(s, key, 'POST', '/v1/actions', action(host));
  const call = (method: string, path: string) => api(server, key, method, path);

  beforeAll(async () => {
    db = await createTestDatabase('domains');
    dns = await startDns();
    // The file method fetches https://<domain>/ on port 443: a loopback address of our own keeps the port free.
    const address = `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(2, 255)}`;
    dns.a.set(FILE_HOST, address);
    const pems = await generate([{ name: 'commonName', value: FILE_HOST }], {
      keySize: 2048,
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: FILE_HOST }] }],
    });
    const dir = mkdtempSync(join(tmpdir(), 'sched-domains-'));
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, pems.cert);
    https = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      if (req.url === '/.well-known/sched-verify.txt' && fileBody !== null) {
        res.writeHead(200, { 'content-type': 'text/plain' }).end(fileBody);
      } else res.writeHead(404).end('not found');
    });
    // Port 443 needs root (or a lowered ip_unprivileged_port_start); without it only the file test is skipped.
    httpsReady = await new Promise<boolean>((res, rej) =>
      https
        .once('error', (err: NodeJS.ErrnoException) => (err.code === 'EACCES' ? res(false) : rej(err)))
        .listen(443, address, () => res(true)),
    );
    server = await startServer({
      databaseUrl: db.url,
      env: {
        SCHED_RATE_LIMIT_FACTOR: '100',
        SCHED_DNS_SERVERS: dns.address,
        // The test's certificate is trusted the way an operator adds a CA, never by turning checks off.
        NODE_EXTRA_CA_CERTS: caFile,
      },
    });
    key = server.apiKey;
  });
  afterAll(async () => {
    await server?.stop();
    await new Promise((res) => (httpsReady ? https.close(res) : res(undefined)));
    await dns?.close();
    await db?.drop();
  });

  it('refuses the 11th action of a day to one host name until it is verified by TXT record', async () => {
    const host = 'hooks.dns-test.example';
    for (let i = 1; i <= 10; i++) expect((await create(host)).status, `create ${i}`).toBe(201);
    const refused = await create(host);
    expect(refused.status).toBe(422);
    expect(refused.body.errors['request.url'][0]).toMatch(
      /hooks\.dns-test\.example is not verified.*\/verify/,
    );

    const started = await call('POST', `/v1/domains/${host}/verify`);
    expect(started.status).toBe(200);
    const v = started.body.data;
    expect(v).toMatchObject({
      domain: host,
      verification_methods: {
        dns: { type: 'TXT', name: host, value: `sched-verification=${v.verification_token}` },
        file: {
          url: `https://${host}/.well-known/sched-verify.txt`,
          content: `sched-verification=${v.verification_token}`,
        },
      },
    });
    // Asking again while unverified keeps the token.
    expect((await call('POST', `/v1/domains/${host}/verify`)).body.data.verification_token).toBe(
      v.verification_token,
    );

    const notYet = await call('POST', `/v1/domains/${host}/check`);
    expect(notYet.status).toBe(200);
    expect(notYet.body.data).toMatchObject({ domain: host, verified: false, method: null });
    expect(notYet.body.data.errors.dns).toMatch(/no TXT record/);
    expect(notYet.body.data.errors.file).toMatch(/sched-verify\.txt/);
    expect((await create(host)).status).toBe(422);

    dns.txt.set(host, ['v=spf1 -all', `sched-verification=${v.verification_token}`]);
    const checked = await call('POST', `/v1/domains/${host}/check`);
    expect(checked.body.data).toMatchObject({
      verified: true,
      method: 'dns',
      errors: { dns: null, file: null },
    });
    expect(checked.body.data.verified_at).toEqual(expect.any(String));
    expect((await create(host)).status).toBe(201);

    // A sibling subdomain is its own domain, counted from zero and refused at its own 11th.
    const sibling = 'other.dns-test.example';
    for (let i = 1; i <= 10; i++) expect((await create(sibling)).status, `sibling ${i}`).toBe(201);
    expect((await create(sibling)).status).toBe(422);

    const list = await call('GET', '/v1/domains');
    expect(list.body.data).toEqual([
      { domain: host, verified: true, verified_at: checked.body.data.verified_at, method: 'dns' },
      { domain: sibling, verified: false, verified_at: null, method: null },
    ]);
    const detail = await call('GET', `/v1/domains/${host}`);
    expect(detail.body.data).toMatchObject({
      status: 'verified',
      // Counted while unverified only.
      usage: { today: 10, this_month: 10, day_limit: 10, month_limit: 100 },
    });
    expect((await call('GET', `/v1/domains/${sibling}`)).body.data).toMatchObject({
      status: 'unverified',
      verification_token: null,
      usage: { today: 10 },
    });

    // Removing the domain brings the thresholds back at once: today's count stays.
    expect((await call('DELETE', `/v1/domains/${host}`)).status).toBe(204);
    expect((await call('GET', `/v1/domains/${host}`)).status).toBe(404);
    expect((await create(host)).status).toBe(422);
    expect((await call('DELETE', '/v1/domains/never-used.example')).status).toBe(404);
    expect((await call('GET', '/v1/domains/10.0.0.1')).status).toBe(422);
  });

  it('verifies by the file over HTTPS, trusting the CA given to the server', async (ctx) => {
    if (!httpsReady) ctx.skip('binding 127.x.y.z:443 needs root');
    const v = (await call('POST', `/v1/domains/${FILE_HOST}/verify`)).body.data;
    const missing = await call('POST', `/v1/domains/${FILE_HOST}/check`);
    expect(missing.body.data.verified).toBe(false);
    expect(missing.body.data.errors.file).toMatch(/answered 404/);

    fileBody = 'sched-verification=wrong-token\n';
    expect((await call('POST', `/v1/domains/${FILE_HOST}/check`)).body.data.errors.file).toMatch(
      /does not contain/,
    );

    fileBody = `${v.verification_methods.file.content}\n`;
    const checked = await call('POST', `/v1/domains/${FILE_HOST}/check`);
    expect(checked.body.data).toMatchObject({ domain: FILE_HOST, verified: true, method: 'file' });
    expect((await call('GET', `/v1/domains/${FILE_HOST}`)).body.data).toMatchObject({
      status: 'verified',
      method: 'file',
      next_check_at: null,
    });
  });

  it('is driven by the SDK (sched.domains.*) and the CLI (sched domains ...)', async () => {
    const sched = createClient({ baseUrl: server.url, apiKey: key });
    const env = { SCHED_API_URL: server.url, SCHED_API_KEY: key };
    const host = 'sdk.dns-test.example';
    const v = await sched.domains.verify(host);
    expect(v.verification_methods.dns.value).toBe(`sched-verification=${v.verification_token}`);

    const shown = await runCli(['domains', 'verify', host], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`TXT record on ${host}`);
    expect(shown.stdout).toContain(`sched-verification=${v.verification_token}`);
    expect(shown.stdout).toContain(`https://${host}/.well-known/sched-verify.txt`);

    const failed = await runCli(['domains', 'check', host], env);
    expect(failed.stdout).toMatch(/not verified yet[\s\S]*dns: +no TXT record/);
    expect((await sched.domains.get(host)).status).toBe('pending');

    dns.txt.set(host, [v.verification_methods.dns.value]);
    const checked = JSON.parse((await runCli(['domains', 'check', host, '--json'], env)).stdout);
    expect(checked.data).toMatchObject({ domain: host, verified: true, method: 'dns' });
    const listed = await runCli(['domains', 'list'], env);
    expect(listed.stdout).toMatch(new RegExp(`${host.replaceAll('.', '\\.')} +true +dns`));
    expect((await runCli(['domains', 'get', host], env)).stdout).toMatch(/status +verified/);
    expect((await sched.domains.list()).find((d) => d.domain === host)).toMatchObject({ verified: true });

    expect((await runCli(['domains', 'remove', host], env)).stdout).toBe(`removed ${host}\n`);
    const gone = await sched.domains.get(host).catch((e: unknown) => e);
    expect((gone as SchedApiError).status).toBe(404);
    const bad = await sched.domains.get('10.0.0.1').catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SchedApiError);
    expect((bad as SchedApiError).status).toBe(422);
  });

  it('leaves IP-literal destinations outside domain rules', async () => {
    for (let i = 1; i <= 12; i++) {
      const res = await api(server, key, 'POST', '/v1/actions', {
        schedule: { wait: '2d' },
        request: { url: 'http://127.0.0.1:9/hook' },
      });
      expect(res.status).toBe(201);
    }
  });

  it('never lets the 11th through when two API processes race creates to one host', async () => {
    const second = await startServer({
      databaseUrl: db.url,
      role: 'api',
      env: { SCHED_RATE_LIMIT_FACTOR: '100', SCHED_DNS_SERVERS: dns.address },
    });
    try {
      const host = 'race.dns-test.example';
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => create(host, i % 2 === 0 ? server : second)),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 422)).toHaveLength(20);
      expect((await call('GET', `/v1/domains/${host}`)).body.data.usage.today).toBe(10);
    } finally {
      await second.stop();
    }
  });
});
