import { describe, expect, it } from 'vitest';
import { destinationOrigin, hostOfOrigin, parseDestination } from './origin.js';

describe('destinationOrigin', () => {
  it.each([
    ['https://API.Example.com/hooks?x=1', 'https://api.example.com'],
    ['https://api.example.com:443/a', 'https://api.example.com'],
    ['http://api.example.com:80/a', 'http://api.example.com'],
    ['https://api.example.com:80/a', 'https://api.example.com:80'],
    ['http://api.example.com:443/a', 'http://api.example.com:443'],
    ['http://127.0.0.1:9000/hook', 'http://127.0.0.1:9000'],
    ['HTTP://Example.COM.:8080#f', 'http://example.com:8080'],
    ['https://bücher.de/x', 'https://xn--bcher-kva.de'],
    ['http://[::1]:9000/a', 'http://[::1]:9000'],
    ['https://user:pw@api.example.com/x', 'https://api.example.com'],
  ])('%s is %s', (url, origin) => {
    expect(destinationOrigin(url)).toBe(origin);
  });

  it('tells two ports, and http from https, of one host apart', () => {
    const a = destinationOrigin('http://127.0.0.1:9000/');
    expect(a).not.toBe(destinationOrigin('http://127.0.0.1:9001/'));
    expect(destinationOrigin('http://x.example/')).not.toBe(destinationOrigin('https://x.example/'));
  });

  it('is null for what is not an http(s) URL', () => {
    for (const url of ['not a url', 'ftp://x.example/', 'file:///etc/passwd', 'mailto:a@b.example', ''])
      expect(destinationOrigin(url)).toBeNull();
  });

  it('names the host as destination_host does', () => {
    expect(hostOfOrigin('http://127.0.0.1:9000')).toBe('127.0.0.1');
    expect(hostOfOrigin('https://api.example.com')).toBe('api.example.com');
    expect(hostOfOrigin('http://[::1]:9000')).toBe('[::1]');
  });
});

describe('parseDestination', () => {
  it('reads an origin, with or without a trailing slash', () => {
    expect(parseDestination('http://127.0.0.1:9000')).toEqual({
      origin: 'http://127.0.0.1:9000',
      host: '127.0.0.1',
    });
    expect(parseDestination('HTTPS://Api.Example.com:443/')).toEqual({
      origin: 'https://api.example.com',
      host: 'api.example.com',
    });
  });

  it('reads a bare host as its https origin on the default port (a port may be given)', () => {
    expect(parseDestination('Api.Example.COM.')).toEqual({
      origin: 'https://api.example.com',
      host: 'api.example.com',
    });
    expect(parseDestination('api.example.com:8443')?.origin).toBe('https://api.example.com:8443');
    expect(parseDestination('127.0.0.1')?.origin).toBe('https://127.0.0.1');
    expect(parseDestination('[::1]')?.origin).toBe('https://[::1]');
    expect(parseDestination('bücher.de')?.origin).toBe('https://xn--bcher-kva.de');
  });

  it('refuses a path, a query, credentials, another scheme or nothing', () => {
    for (const input of [
      '',
      ' ',
      'http://127.0.0.1:9000/hook',
      'api.example.com/x',
      'https://api.example.com?x=1',
      'https://a@api.example.com',
      'a@api.example.com',
      'ftp://api.example.com',
      'http://',
      'api example.com',
      'x'.repeat(301),
    ])
      expect(parseDestination(input), input).toBeNull();
  });
});
