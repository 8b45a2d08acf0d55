import { chmodSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configPath,
  DEFAULT_API_URL,
  readLocalCredentials,
  readUserConfig,
  resolveConnection,
  writeUserConfig,
} from './settings.js';

const none = () => ({});

describe('resolveConnection', () => {
  it('flags, then the environment, then the config file, then a local server', () => {
    const config = { api_url: 'https://config.example', api_key: 'sk_config' };
    const local = () => ({ url: 'http://local:1', key: 'sk_local' });
    const env = { SCHED_API_URL: 'https://env.example', SCHED_API_KEY: 'sk_env' };
    expect(
      resolveConnection({ flags: { apiUrl: 'https://flag', apiKey: 'sk_flag' }, env, config, local }),
    ).toEqual({
      baseUrl: 'https://flag',
      apiKey: 'sk_flag',
    });
    expect(resolveConnection({ flags: {}, env, config, local })).toEqual({
      baseUrl: 'https://env.example',
      apiKey: 'sk_env',
    });
    expect(resolveConnection({ flags: {}, env: {}, config, local })).toEqual({
      baseUrl: 'https://config.example',
      apiKey: 'sk_config',
    });
    expect(resolveConnection({ flags: {}, env: {}, config: {}, local })).toEqual({
      baseUrl: 'http://local:1',
      apiKey: 'sk_local',
    });
    expect(resolveConnection({ flags: {}, env: {}, config: {}, local: none })).toEqual({
      baseUrl: DEFAULT_API_URL,
    });
  });

  it('never sends a key from elsewhere to the URL a local credentials file names', () => {
    const planted = () => ({ url: 'https://attacker.example', key: 'sk_planted' });
    let read = false;
    const spy = () => {
      read = true;
      return planted();
    };
    expect(
      resolveConnection({ flags: {}, env: { SCHED_API_KEY: 'sk_env' }, config: {}, local: spy }),
    ).toEqual({
      baseUrl: DEFAULT_API_URL,
      apiKey: 'sk_env',
    });
    expect(read).toBe(false);
    expect(resolveConnection({ flags: {}, env: {}, config: { api_key: 'sk_mine' }, local: planted })).toEqual(
      {
        baseUrl: DEFAULT_API_URL,
        apiKey: 'sk_mine',
      },
    );
  });
});

describe('readLocalCredentials', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'sched-cred-'));

  it('reads a 0600 file of this user', () => {
    const d = dir();
    writeFileSync(join(d, 'credentials'), 'SCHED_API_URL=http://127.0.0.1:8080\nSCHED_API_KEY=sk_1\n', {
      mode: 0o600,
    });
    expect(readLocalCredentials({ SCHED_DATA_DIR: d })).toEqual({
      url: 'http://127.0.0.1:8080',
      key: 'sk_1',
    });
    expect(readLocalCredentials({ SCHED_DATA_DIR: join(d, 'absent') })).toEqual({});
  });

  it('refuses a file others can write', () => {
    const d = dir();
    const file = join(d, 'credentials');
    writeFileSync(file, 'SCHED_API_URL=https://attacker.example\nSCHED_API_KEY=sk_1\n');
    chmodSync(file, 0o666);
    expect(readLocalCredentials({ SCHED_DATA_DIR: d })).toEqual({
      refused: `${file} is writable by other users`,
    });
  });
});

describe('the user config file', () => {
  it('lives under XDG_CONFIG_HOME (else ~/.config) and is written with mode 0600', () => {
    const home = mkdtempSync(join(tmpdir(), 'sched-home-'));
    expect(configPath({ HOME: home })).toBe(join(home, '.config', 'sched', 'config.json'));
    const xdg = join(home, 'xdg');
    const env = { HOME: home, XDG_CONFIG_HOME: xdg };
    expect(configPath(env)).toBe(join(xdg, 'sched', 'config.json'));
    expect(readUserConfig(env)).toEqual({});
    // An existing file keeps 0600 even when it was created more open.
    mkdirSync(join(xdg, 'sched'), { recursive: true });
    writeFileSync(configPath(env), '{}', { mode: 0o644 });
    writeUserConfig({ api_url: 'https://sched.example', api_key: 'sk_x' }, env);
    expect(statSync(configPath(env)).mode & 0o777).toBe(0o600);
    expect(readUserConfig(env)).toEqual({ api_url: 'https://sched.example', api_key: 'sk_x' });
  });
});
