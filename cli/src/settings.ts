import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/*
 * Where the CLI finds the API URL and key, highest first: flags, SCHED_API_URL / SCHED_API_KEY, the user's config
 * file (`sched config set`, in the XDG config directory), then the `.sched/credentials` a local `sched serve` writes
 * on first start (SCHED_DATA_DIR). A credentials file in the current directory may have been
 * planted (a cloned repository, a shared folder), so it is read only when it belongs to this user and nobody else
 * can write it, and its SCHED_API_URL is used only together with its own key: a key from a flag, the environment
 * or the config file is never sent to a URL that file names.
 */

export const DEFAULT_API_URL = 'http://localhost:8080';

/** The settings `sched config set` accepts, by their command-line name. */
export const SETTING_NAMES = { 'api-url': 'api_url', 'api-key': 'api_key' } as const;
export type SettingName = keyof typeof SETTING_NAMES;

export interface UserConfig {
  api_url?: string;
  api_key?: string;
}

type Env = Record<string, string | undefined>;

/** `$XDG_CONFIG_HOME/sched/config.json`, else `~/.config/sched/config.json`. */
export function configPath(env: Env = process.env): string {
  // The XDG spec ignores a relative XDG_CONFIG_HOME.
  const base = env.XDG_CONFIG_HOME?.startsWith('/') ? env.XDG_CONFIG_HOME : undefined;
  return join(base ?? join(env.HOME ?? homedir(), '.config'), 'sched', 'config.json');
}

export function readUserConfig(env: Env = process.env): UserConfig {
  const file = configPath(env);
  if (!existsSync(file)) return {};
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  if (!parsed || typeof parsed !== 'object') return {};
  const { api_url, api_key } = parsed as Record<string, unknown>;
  return {
    ...(typeof api_url === 'string' ? { api_url } : {}),
    ...(typeof api_key === 'string' ? { api_key } : {}),
  };
}

/** Writes the config file with mode 0600 (its folder 0700): it holds an API key. */
export function writeUserConfig(config: UserConfig, env: Env = process.env): string {
  const file = configPath(env);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
  return file;
}

/** The first-start credentials of a local server, or nothing when the file is absent or not trustworthy. */
export function readLocalCredentials(env: Env = process.env): {
  url?: string;
  key?: string;
  refused?: string;
} {
  const file = join(resolve(env.SCHED_DATA_DIR ?? '.sched'), 'credentials');
  if (!existsSync(file)) return {};
  const stat = statSync(file);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) return { refused: `${file} belongs to another user` };
  if ((stat.mode & 0o022) !== 0) return { refused: `${file} is writable by other users` };
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return {
    ...(out.SCHED_API_URL ? { url: out.SCHED_API_URL } : {}),
    ...(out.SCHED_API_KEY ? { key: out.SCHED_API_KEY } : {}),
  };
}

export interface ConnectionSources {
  flags: { apiUrl?: string | undefined; apiKey?: string | undefined };
  env: Env;
  config: UserConfig;
  /** Read only when no other source gives a key. */
  local: () => { url?: string; key?: string; refused?: string };
}

/** The URL and key to use, or why there is no key. Pure apart from the lazy `local` read. */
export function resolveConnection(s: ConnectionSources): { baseUrl: string; apiKey?: string; hint?: string } {
  const key = s.flags.apiKey ?? s.env.SCHED_API_KEY ?? s.config.api_key;
  const url = s.flags.apiUrl ?? s.env.SCHED_API_URL ?? s.config.api_url;
  if (key) return { baseUrl: url ?? DEFAULT_API_URL, apiKey: key };
  const local = s.local();
  if (local.key) return { baseUrl: url ?? local.url ?? DEFAULT_API_URL, apiKey: local.key };
  return { baseUrl: url ?? DEFAULT_API_URL, ...(local.refused ? { hint: `ignored ${local.refused}` } : {}) };
}
