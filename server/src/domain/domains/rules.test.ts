import { describe, expect, it } from 'vitest';
import {
  countedNames,
  CHECK_WINDOW_MS,
  destinationDomain,
  destinationHost,
  fileProves,
  hasRoomForOneMore,
  nextCheckAt,
  parseDomain,
  txtProves,
  usagePeriods,
  verificationFileUrl,
  verificationRecord,
  withinLimits,
} from './rules.js';

describe('destination hosts (the inbox filter)', () => {
  it('the hostname, lower-cased, IP literals included', () => {
    expect(destinationHost('https://API.Example.com./hook?x=1')).toBe('api.example.com');
    expect(destinationHost('http://user:pw@127.0.0.1:8080/x')).toBe('127.0.0.1');
    expect(destinationHost('http://[::1]:9/x')).toBe('[::1]');
    expect(destinationHost('not a url')).toBeNull();
  });
});

describe('destination domains', () => {
  it('counts the exact hostname, lower-cased and without a trailing dot', () => {
    expect(destinationDomain('https://API.Example.com./hook?x=1')).toBe('api.example.com');
    expect(destinationDomain('https://a.api.example.com:8443/')).toBe('a.api.example.com');
    expect(destinationDomain('https://bücher.example/')).toBe('xn--bcher-kva.example');
  });

  it('leaves IP literals and non-URLs outside domain rules', () => {
    expect(destinationDomain('http://127.0.0.1:8080/hook')).toBeNull();
    expect(destinationDomain('http://2130706433/')).toBeNull();
    expect(destinationDomain('http://[::1]:80/')).toBeNull();
    expect(destinationDomain('not a url')).toBeNull();
  });

  it('parses a domain of a path, refusing what is not a host name', () => {
    expect(parseDomain('Hooks.Example.COM')).toBe('hooks.example.com');
    expect(parseDomain('localhost')).toBe('localhost');
    for (const bad of [
      '',
      '10.0.0.1',
      'a/b',
      'x:80',
      '-a.example',
      'a..b',
      'user@host',
      `${'a'.repeat(64)}.com`,
    ]) {
      expect(parseDomain(bad), bad).toBeNull();
    }
  });

  it('lets the 10th of a day and the 100th of a month through, not the 11th or 101st', () => {
    const limits = { perDay: 10, perMonth: 100 };
    expect(withinLimits({ day: 10, month: 100 }, limits)).toBe(true);
    expect(withinLimits({ day: 11, month: 11 }, limits)).toBe(false);
    expect(withinLimits({ day: 1, month: 101 }, limits)).toBe(false);
  });

  it('counts in the UTC day and month', () => {
    const p = usagePeriods(new Date('2026-03-31T23:59:59.999Z'));
    expect(p.day.toISOString()).toBe('2026-03-31T00:00:00.000Z');
    expect(p.month.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  });

  it('asks for the exact record and file', () => {
    expect(verificationRecord('abc')).toBe('sched-verification=abc');
    expect(verificationFileUrl('a.example.com')).toBe('https://a.example.com/.well-known/sched-verify.txt');
    expect(fileProves('sched-verification=abc\n', 'abc')).toBe(true);
    expect(fileProves('sched-verification=abcd', 'abc')).toBe(false);
    expect(txtProves(['sched-verif', 'ication=abc'], 'abc')).toBe(true);
    expect(txtProves(['v=spf1 -all'], 'abc')).toBe(false);
  });

  it('checks again with backoff, never past 24 hours after the start', () => {
    const start = new Date('2026-01-01T00:00:00Z');
    expect(nextCheckAt(start, 0, start)!.getTime() - start.getTime()).toBe(60_000);
    const later = new Date(start.getTime() + 3600_000);
    expect(nextCheckAt(start, 1, later)!.getTime() - later.getTime()).toBe(5 * 60_000);
    expect(nextCheckAt(start, 50, later)!.getTime() - later.getTime()).toBe(4 * 3600_000);
    const nearEnd = new Date(start.getTime() + CHECK_WINDOW_MS - 60_000);
    expect(nextCheckAt(start, 50, nearEnd)!.getTime()).toBe(start.getTime() + CHECK_WINDOW_MS);
    expect(nextCheckAt(start, 50, new Date(start.getTime() + CHECK_WINDOW_MS))).toBeNull();
  });
});

describe('countedNames: every way to a host counts', () => {
  const privateIp = (ip: string) => ip.startsWith('10.') || ip === '127.0.0.1' || ip === '::1';
  it.each([
    ['https://a.b.victim.co.uk/x', ['a.b.victim.co.uk', 'victim.co.uk']],
    ['https://victim.com/x', ['victim.com']],
    ['https://me.github.io/x', ['me.github.io']],
    ['https://hooks.dns-test.example/x', ['hooks.dns-test.example']],
    ['https://1.1.1.1/x', ['1.1.1.1']],
    ['https://[2606:4700::1111]/x', ['2606:4700::1111']],
    ['http://127.0.0.1:8080/x', []],
    ['http://10.0.0.1/x', []],
    ['not a url', []],
  ])('%s counts against %j', (url, names) => {
    expect(countedNames(url, privateIp)).toEqual(names);
  });
});

describe('hasRoomForOneMore', () => {
  const limits = { perDay: 2, perMonth: 3 };
  const now = new Date('2026-05-06T10:00:00Z');
  const day = new Date('2026-05-06T00:00:00Z');
  const month = new Date('2026-05-01T00:00:00Z');
  it('never sent to: room', () => expect(hasRoomForOneMore(null, now, limits)).toBe(true));
  it('counts of today and this month', () => {
    const use = (dayCount: number, monthCount: number) => ({
      dayStart: day,
      dayCount,
      monthStart: month,
      monthCount,
    });
    expect(hasRoomForOneMore(use(1, 1), now, limits)).toBe(true);
    expect(hasRoomForOneMore(use(2, 2), now, limits)).toBe(false);
    expect(hasRoomForOneMore(use(0, 3), now, limits)).toBe(false);
  });
  it('counts of an earlier day or month are spent', () => {
    const yesterday = new Date('2026-05-05T00:00:00Z');
    const april = new Date('2026-04-01T00:00:00Z');
    expect(
      hasRoomForOneMore({ dayStart: yesterday, dayCount: 9, monthStart: month, monthCount: 2 }, now, limits),
    ).toBe(true);
    expect(
      hasRoomForOneMore({ dayStart: yesterday, dayCount: 9, monthStart: april, monthCount: 9 }, now, limits),
    ).toBe(true);
  });
});
