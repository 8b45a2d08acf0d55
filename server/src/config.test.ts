import webPush from 'web-push';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTrustProxy } from './config-proxies.js';
import { ConfigError, EnvSchema, loadConfig } from './config.js';
import { ENVIRONMENT, environmentHelp, heapFlags, withEnvironmentTable } from './environment.js';

describe('SCHED_TRUST_PROXY', () => {
  it('trusts nobody by default, a hop count, or listed addresses and CIDRs', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  it('refuses true (any client could choose its IP) and names that are not addresses', () => {
    expect(() => loadConfig({ SCHED_TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHED_TRUST_PROXY: 'loadbalancer.internal' })).toThrow(/SCHED_TRUST_PROXY/);
    expect(parseTrustProxy('10.0.0.0/8,300.1.2.3')).toEqual({
      error: 'not an IP address or CIDR: 300.1.2.3',
    });
  });

  it('has inbound timeouts on by default', () => {
    const config = loadConfig({});
    expect(config.trustProxy).toBe(false);
    expect(config.httpRequestTimeoutMs).toBe(30_000);
    expect(config.httpConnectionTimeoutMs).toBeGreaterThan(0);
  });
});

describe('domain settings of the configuration', () => {
  it('defaults the thresholds to 10 a day and 100 a month and uses the system resolvers', () => {
    const c = loadConfig({});
    expect(c.domainLimits).toEqual({ perDay: 10, perMonth: 100 });
    expect(c.dnsServers).toEqual([]);
  });

  it('reads the thresholds and a list of resolvers', () => {
    const c = loadConfig({
      SCHED_DOMAIN_DAY_LIMIT: '3',
      SCHED_DOMAIN_MONTH_LIMIT: '50',
      SCHED_DNS_SERVERS: '127.0.0.1:5300, 9.9.9.9,[::1]:53,::1',
    });
    expect(c.domainLimits).toEqual({ perDay: 3, perMonth: 50 });
    expect(c.dnsServers).toEqual(['127.0.0.1:5300', '9.9.9.9', '[::1]:53', '::1']);
  });

  it('refuses resolvers given by name or with a bad port, naming the variable', () => {
    for (const bad of ['dns.google', '1.2.3.4:99999', '1.2.3.4:', '[::1]x']) {
      expect(() => loadConfig({ SCHED_DNS_SERVERS: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ SCHED_DNS_SERVERS: bad }), bad).toThrow(/SCHED_DNS_SERVERS/);
    }
    expect(() => loadConfig({ SCHED_DOMAIN_DAY_LIMIT: '-1' })).toThrow(/SCHED_DOMAIN_DAY_LIMIT/);
  });
});

describe('delivery concurrency caps', () => {
  it('defaults to 256 in flight per process and 128 per account', () => {
    expect(loadConfig({}).deliveryConcurrency).toEqual({ total: 256, perAccount: 128 });
  });

  it('reads both caps and refuses zero, negatives and fractions', () => {
    const c = loadConfig({ SCHED_DELIVERY_CONCURRENCY: '64', SCHED_DELIVERY_ACCOUNT_CONCURRENCY: '8' });
    expect(c.deliveryConcurrency).toEqual({ total: 64, perAccount: 8 });
    expect(() => loadConfig({ SCHED_DELIVERY_CONCURRENCY: '0' })).toThrow(/SCHED_DELIVERY_CONCURRENCY/);
    expect(() => loadConfig({ SCHED_DELIVERY_ACCOUNT_CONCURRENCY: '-1' })).toThrow(
      /SCHED_DELIVERY_ACCOUNT_CONCURRENCY/,
    );
    expect(() => loadConfig({ SCHED_DELIVERY_ACCOUNT_CONCURRENCY: '2.5' })).toThrow(ConfigError);
  });
});

describe('notification channel settings of the configuration', () => {
  it('reads nothing from an empty environment', () => {
    expect(loadConfig({}).channels).toEqual({});
    expect(loadConfig({ SCHED_SMTP_URL: '', SCHED_TWILIO_FROM: ' ' }).channels).toEqual({});
  });

  it('reads every channel variable', () => {
    const vapid = webPush.generateVAPIDKeys();
    expect(
      loadConfig({
        SCHED_SMTP_URL: 'smtps://user:pa%40ss@mail.example.com:465',
        SCHED_EMAIL_FROM: 'Approvals <approvals@example.com>',
        SCHED_TWILIO_ACCOUNT_SID: 'AC123',
        SCHED_TWILIO_AUTH_TOKEN: 'secret',
        SCHED_TWILIO_FROM: '+15005550006',
        SCHED_VAPID_PUBLIC_KEY: vapid.publicKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'mailto:ops@example.com',
      }).channels,
    ).toEqual({
      email: {
        smtpUrl: 'smtps://user:pa%40ss@mail.example.com:465',
        from: 'Approvals <approvals@example.com>',
      },
      sms: {
        accountSid: 'AC123',
        authToken: 'secret',
        from: '+15005550006',
        apiUrl: 'https://api.twilio.com',
      },
      push: { publicKey: vapid.publicKey, privateKey: vapid.privateKey, subject: 'mailto:ops@example.com' },
    });
  });

  it('drops the trailing slash of the Twilio API URL', () => {
    const c = loadConfig({
      SCHED_TWILIO_ACCOUNT_SID: 'AC1',
      SCHED_TWILIO_AUTH_TOKEN: 'token',
      SCHED_TWILIO_FROM: '+15005550006',
      SCHED_TWILIO_API_URL: ' http://127.0.0.1:4010/ ',
    });
    expect(c.channels.sms?.apiUrl).toBe('http://127.0.0.1:4010');
  });

  it('defaults the sender address', () => {
    expect(loadConfig({ SCHED_SMTP_URL: 'smtp://127.0.0.1:2525' }).channels.email?.from).toBe(
      'sched <no-reply@localhost>',
    );
  });

  it('names each malformed or missing variable', () => {
    const vapid = webPush.generateVAPIDKeys();
    let error: unknown;
    try {
      loadConfig({
        SCHED_SMTP_URL: 'http://mail.example.com',
        SCHED_EMAIL_FROM: 'nobody',
        SCHED_TWILIO_ACCOUNT_SID: 'AC123',
        SCHED_TWILIO_API_URL: 'ftp://twilio',
        SCHED_VAPID_PUBLIC_KEY: vapid.privateKey,
        SCHED_VAPID_PRIVATE_KEY: vapid.privateKey,
        SCHED_VAPID_SUBJECT: 'ops@example.com',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as Error).message;
    for (const name of [
      'SCHED_SMTP_URL',
      'SCHED_EMAIL_FROM',
      'SCHED_TWILIO_AUTH_TOKEN, SCHED_TWILIO_FROM: required',
      'SCHED_TWILIO_API_URL',
      'SCHED_VAPID_PUBLIC_KEY',
      'SCHED_VAPID_SUBJECT',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).not.toContain('SCHED_VAPID_PRIVATE_KEY');
    expect(() => loadConfig({ SCHED_VAPID_SUBJECT: 'mailto:a@b.c' })).toThrow(
      /SCHED_VAPID_PUBLIC_KEY, SCHED_VAPID_PRIVATE_KEY: required/,
    );
  });
});

describe('the environment reference (README table and `sched serve --help`)', () => {
  it('lists every variable the parser reads, with the default it applies', () => {
    const defaults = EnvSchema.parse({}) as Record<string, unknown>;
    const documented = new Map(
      ENVIRONMENT.flatMap((row) => {
        const defaults = row.default.split(/,\s+(?=`)/);
        return row.names.map((name, i) => [name, defaults[i] ?? defaults[0]!] as const);
      }),
    );
    const read = Object.keys(EnvSchema.shape);
    for (const name of read) {
      expect(documented.has(name), `${name} is documented in server/src/environment.ts`).toBe(true);
      const written = documented.get(name)!;
      if (defaults[name] === undefined) expect(written, name).toMatch(/^unset$|\$/);
      else expect(written, name).toBe(`\`${String(defaults[name])}\``);
    }
    for (const name of documented.keys()) expect(read).toContain(name);
  });

  it('is the table of README.md (run `pnpm docs:env` when this fails) and the text of serve --help', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(withEnvironmentTable(readme)).toBe(readme);
    for (const row of ENVIRONMENT) for (const name of row.names) expect(environmentHelp()).toContain(name);
  });
});

describe('SCHED_PLANS_FILE', () => {
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'sched-plans-')), 'plans.json');
    writeFileSync(path, content);
    return path;
  };

  it('reads overrides per plan in the API names, leaving the rest to the defaults', () => {
    const config = loadConfig({
      SCHED_PLANS_FILE: file(
        '{"business":{"schedule_horizon_days":3650,"max_attempts":50,"actions_per_month":null}}',
      ),
    });
    expect(config.plans).toEqual({ business: { horizonDays: 3650, maxAttempts: 50, actionsPerMonth: null } });
    expect(loadConfig({}).plans).toBeNull();
  });

  it('names the file and each bad field, and refuses what it does not know', () => {
    const bad = file('{"business":{"max_attempts":500,"horizon":3},"gold":{}}');
    expect(() => loadConfig({ SCHED_PLANS_FILE: bad })).toThrow(ConfigError);
    const message = (() => {
      try {
        loadConfig({ SCHED_PLANS_FILE: bad });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(message).toContain('business.max_attempts');
    expect(message).toMatch(/horizon/);
    expect(message).toMatch(/gold/);
    expect(() => loadConfig({ SCHED_PLANS_FILE: file('not json') })).toThrow(/SCHED_PLANS_FILE: cannot read/);
    expect(() => loadConfig({ SCHED_PLANS_FILE: '/nonexistent/plans.json' })).toThrow(/SCHED_PLANS_FILE/);
  });
});

describe('SCHED_CORS_ORIGINS', () => {
  it('is off by default, takes origins or *, and refuses anything that is not an origin', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(
      loadConfig({ SCHED_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig({ SCHED_CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    expect(() => loadConfig({ SCHED_CORS_ORIGINS: 'https://app.example.com/path' })).toThrow(
      /SCHED_CORS_ORIGINS/,
    );
    expect(() => loadConfig({ SCHED_CORS_ORIGINS: 'app.example.com' })).toThrow(/SCHED_CORS_ORIGINS/);
  });
});

describe('SCHED_METRICS_HOST_LABELS and SCHED_DOCS', () => {
  it('refuses host labels on a /metrics without a token', () => {
    expect(() => loadConfig({ SCHED_METRICS_HOST_LABELS: 'true' })).toThrow(/needs SCHED_METRICS_TOKEN/);
    expect(
      loadConfig({ SCHED_METRICS_HOST_LABELS: 'true', SCHED_METRICS_TOKEN: 't' }).metricsHostLabels,
    ).toBe(true);
  });

  it('serves /docs by default except in production, where it is asked for', () => {
    expect(loadConfig({}).docs).toBe(true);
    expect(loadConfig({ NODE_ENV: 'production' }).docs).toBe(false);
    expect(loadConfig({ NODE_ENV: 'production', SCHED_DOCS: 'true' }).docs).toBe(true);
    expect(loadConfig({ SCHED_DOCS: 'false' }).docs).toBe(false);
  });
});

describe('SCHED_ALLOWED_PRIVATE_NETWORKS', () => {
  it('reads the networks, in production too, where allowing every private destination is refused', () => {
    expect(loadConfig({}).allowPrivateDestinations).toBe(false);
    const access = loadConfig({
      NODE_ENV: 'production',
      SCHED_ALLOWED_PRIVATE_NETWORKS: '10.20.0.0/16,fd00:1::7',
    }).allowPrivateDestinations;
    expect(
      typeof access === 'object' && access.networks.map(([address, bits]) => `${address.toString()}/${bits}`),
    ).toEqual(['10.20.0.0/16', 'fd00:1::7/128']);
    expect(() => loadConfig({ NODE_ENV: 'production', SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true' })).toThrow(
      /SCHED_ALLOW_PRIVATE_DESTINATIONS: must be false/,
    );
    // In development the blanket switch wins over a list.
    expect(
      loadConfig({ SCHED_ALLOW_PRIVATE_DESTINATIONS: 'true', SCHED_ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/8' })
        .allowPrivateDestinations,
    ).toBe(true);
  });

  it('names an entry that is not an address or CIDR', () => {
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/8,db.internal' })).toThrow(
      'SCHED_ALLOWED_PRIVATE_NETWORKS: not an IP address or CIDR: db.internal',
    );
  });

  it('refuses a network holding a cloud metadata address, or every address', () => {
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '10.0.0.0/8,169.254.0.0/16' })).toThrow(
      "SCHED_ALLOWED_PRIVATE_NETWORKS: 169.254.0.0/16 holds the cloud metadata address 169.254.169.254, which hands out the machine's credentials",
    );
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: 'fd00::/8' })).toThrow(
      'fd00::/8 holds the cloud metadata address fd00:ec2::254',
    );
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '100.64.0.0/10' })).toThrow(
      'holds the cloud metadata address 100.100.100.200',
    );
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '64:ff9b::/96' })).toThrow(
      '64:ff9b::/96 holds the cloud metadata address 64:ff9b::a9fe:a9fe',
    );
    expect(() => loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '0.0.0.0/0' })).toThrow(
      '0.0.0.0/0 would allow every address: the guard would be off',
    );
    expect(
      loadConfig({ SCHED_ALLOWED_PRIVATE_NETWORKS: '169.254.10.0/24' }).allowPrivateDestinations,
    ).not.toBe(false);
  });
});

describe('SCHED_HEAP_MB and SCHED_SEMI_SPACE_MB', () => {
  it('start `sched serve` with a 1 GiB old generation and 16 MiB semi-spaces by default', () => {
    expect(heapFlags({}, [])).toEqual(['--max-old-space-size=1024', '--max-semi-space-size=16']);
    expect(heapFlags({ SCHED_HEAP_MB: '2048', SCHED_SEMI_SPACE_MB: '32' }, [])).toEqual([
      '--max-old-space-size=2048',
      '--max-semi-space-size=32',
    ]);
  });

  it("leave a flag to Node's default at 0, and to the operator when NODE_OPTIONS or the command line gives it", () => {
    expect(heapFlags({ SCHED_HEAP_MB: '0', SCHED_SEMI_SPACE_MB: '0' }, [])).toEqual([]);
    expect(heapFlags({ NODE_OPTIONS: '--enable-source-maps --max_old_space_size=4096' }, [])).toEqual([
      '--max-semi-space-size=16',
    ]);
    expect(heapFlags({}, ['--max-semi-space-size=64'])).toEqual(['--max-old-space-size=1024']);
  });

  it('add nothing for a value the configuration refuses, which then names it', () => {
    expect(heapFlags({ SCHED_HEAP_MB: 'lots' }, [])).toEqual(['--max-semi-space-size=16']);
    expect(() => loadConfig({ SCHED_HEAP_MB: 'lots' })).toThrow(/SCHED_HEAP_MB/);
  });
});
