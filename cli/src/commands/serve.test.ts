import { describe, expect, it } from 'vitest';
import { startBanner } from './serve.js';

describe('sched serve: the start banner', () => {
  it('names the console, the API reference and, when it exists, the file holding the first key', () => {
    expect(startBanner('http://localhost:8080', '/srv/sched', true, () => true)).toBe(
      '  console        http://localhost:8080/console\n' +
        '  API reference  http://localhost:8080/docs\n' +
        '  API key        in /srv/sched/credentials\n',
    );
    const production = startBanner('https://sched.example.com', '/srv/sched', false, () => false);
    expect(production).not.toContain('API key');
    expect(production).not.toContain('/docs');
  });
});
