import { UsageError } from '../../runtime.js';
import { SETTING_NAMES, type SettingName } from '../../settings.js';

export const NAMES = Object.keys(SETTING_NAMES) as SettingName[];

export function settingName(name: string): SettingName {
  if (!(name in SETTING_NAMES)) throw new UsageError(`unknown setting ${name}: one of ${NAMES.join(', ')}`);
  return name as SettingName;
}

/** Shows enough of a key to tell two apart, never the whole secret. */
export function maskKey(key: string): string {
  return key.length <= 12 ? '****' : `${key.slice(0, 10)}…${key.slice(-4)}`;
}
