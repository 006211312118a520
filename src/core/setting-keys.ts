/**
 * The settings projdex itself reads, with what each does and the values it can use. Any other key is
 * stored as given (the spec's settings are free-form strings, for clients' own use); a known key with a
 * value projdex cannot use is refused instead of stored, so a typo never reads as "on" or silently "off".
 */
export interface KnownSetting {
  readonly key: string;
  /** One sentence for the settings page and `projdex get`. */
  readonly description: string;
  /** The values accepted, as shown to the user. */
  readonly values: string;
  readonly accepts: (value: string) => boolean;
}

/** Setting values that turn watch mode on (key `watch`). */
export const WATCH_ON = /^(?:on|true|1|yes)$/i;
const WATCH_OFF = /^(?:off|false|0|no)$/i;

export const KNOWN_SETTINGS: readonly KnownSetting[] = [
  {
    key: 'watch',
    description: 'Rescan projects when their files change, while the server runs (unless --watch was given at start)',
    values: 'on or off (also true/false, yes/no, 1/0)',
    accepts: (value) => WATCH_ON.test(value) || WATCH_OFF.test(value),
  },
];

/** Why `value` is refused for `key`, or undefined when projdex can use it (or does not read `key`). */
export function settingProblem(key: string, value: string): string | undefined {
  const known = KNOWN_SETTINGS.find((s) => s.key === key);
  if (!known || known.accepts(value)) return undefined;
  return `${key} must be ${known.values}, got "${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
}
