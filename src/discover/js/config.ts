import type { ScanContext } from '../../scan/types.ts';
import { getKey, isComputed, isObject, isRegex, readConfigText, type Lit } from '../../readers/js-literal.ts';
import { parseJsonc } from '../../readers/jsonc.ts';
import { parseYaml } from '../../readers/yaml.ts';
import type { Pkg } from './types.ts';
import { projectRegExp } from '../safe-regex.ts';

export type ConfigObject = { [key: string]: Lit };

/**
 * Reads a config file (package-relative) as a literal object: JSON/JSONC and YAML as data,
 * JS/TS as text (see readers/js-literal.ts). `undefined` when absent or when no exported object was found.
 */
export async function readConfigFile(ctx: ScanContext, pkg: Pkg, file: string): Promise<ConfigObject | undefined> {
  const text = await pkg.read(file);
  if (text === undefined) return undefined;
  const where = pkg.dir ? `${pkg.dir}/${file}` : file;
  let value: unknown;
  if (/\.jsonc?$|(^|\/)\.[\w-]+rc$/.test(file)) value = parseJsonc(text);
  else if (/\.ya?ml$/.test(file)) value = parseYaml(text);
  else value = readConfigText(text);
  if (isObject(value as Lit)) return value as ConfigObject;
  ctx.note(`${where}: could not read the config statically; used the runner's defaults`);
  return undefined;
}

/** First of `names` that exists in `dir` (package-relative), or undefined. */
export function firstExisting(pkg: Pkg, dir: string, names: readonly string[]): string | undefined {
  const prefix = dir === '' ? '' : dir + '/';
  return names.map((n) => prefix + n).find((f) => pkg.has(f));
}

/**
 * Reads one discovery key as a list of strings (a lone string becomes a one-item list). Returns
 * `undefined` when absent or computed; computed values are noted with `where`.
 */
export function stringList(ctx: ScanContext, config: Lit | undefined, key: string, where: string): string[] | undefined {
  const { found, value } = getKey(config, key);
  if (!found || value === null || value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  ctx.note(`${where}: \`${key}\` is computed; used the default`);
  return undefined;
}

/** Reads a key that may hold strings and regex literals (Jest `testRegex`, Playwright `testMatch`). */
export function patternList(ctx: ScanContext, config: Lit | undefined, key: string, where: string): Array<string | RegExp> | undefined {
  const { found, value } = getKey(config, key);
  if (!found || value === null || value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value];
  const out: Array<string | RegExp> = [];
  for (const v of items) {
    if (typeof v === 'string') out.push(v);
    else if (isRegex(v)) {
      const re = projectRegExp(v.regex, v.flags.replace(/[gy]/g, ''), (why) => ctx.note(`${where}: \`${key}\` /${v.regex}/ is not used: ${why}`));
      if (re) out.push(re);
    }
    else { ctx.note(`${where}: \`${key}\` is computed; used the default`); return undefined; }
  }
  return out;
}

/** Reads a boolean key; computed or absent gives `undefined`. */
export function boolKey(ctx: ScanContext, config: Lit | undefined, key: string, where: string): boolean | undefined {
  return scalarKey(ctx, config, key, where, (v): v is boolean => typeof v === 'boolean');
}

/** Reads a string key; computed or absent gives `undefined`. */
export function stringKey(ctx: ScanContext, config: Lit | undefined, key: string, where: string): string | undefined {
  return scalarKey(ctx, config, key, where, (v): v is string => typeof v === 'string');
}

function scalarKey<T>(ctx: ScanContext, config: Lit | undefined, key: string, where: string, is: (v: Lit | undefined) => v is T & Lit): T | undefined {
  const { found, value } = getKey(config, key);
  if (!found) return undefined;
  if (is(value)) return value;
  if (isComputed(value)) ctx.note(`${where}: \`${key}\` is computed; used the default`);
  return undefined;
}

/** Project-relative name of a package-relative file, for notes. */
export function where(pkg: Pkg, file: string): string {
  return pkg.dir ? `${pkg.dir}/${file}` : file;
}
