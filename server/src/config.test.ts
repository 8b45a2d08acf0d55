import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

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
