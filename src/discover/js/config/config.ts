import type { ScanContext } from '../../../rules/types.ts';
import { evaluateModule } from '../../../readers/js/modules.ts';
import { getKey, isComputed, isObject, isRegex, type Lit } from '../../../readers/js/literal.ts';
import { parseJsonc } from '../../../readers/jsonc.ts';
import { parseYaml } from '../../../readers/yaml.ts';
import type { Pkg } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';
import { projectRegExp } from '../../../readers/safe-regex.ts';
import { KNOWN_MODULES } from './presets.ts';
import { resolvePackage, splitSpecifier } from '../packages/resolve.ts';
import { resolveWorkspace } from '../packages/workspace.ts';

export type ConfigObject = { [key: string]: Lit };

/**
 * Reads a config file (package-relative) as a literal object: JSON/JSONC and YAML as data, JS/TS through
 * the static evaluator (readers/js-eval-module.ts: local imports followed, `process.env` unset, unknowns
 * kept as such and noted). `undefined` when absent or when no exported object was found.
 */
export async function readConfigFile(ctx: ScanContext, pkg: Pkg, file: string, opts: ReadOptions = {}): Promise<ConfigObject | undefined> {
  const value = await readConfigValue(ctx, pkg, file, opts);
  if (value === undefined) return undefined;
  if (isObject(value)) return value as ConfigObject;
  ctx.note(`${where(pkg, file)}: could not read the config statically; used the runner's defaults`);
  return undefined;
}

/** Any exported value of a config file (an array for a Vitest workspace file), `undefined` when absent. */
export async function readConfigValue(ctx: ScanContext, pkg: Pkg, file: string, opts: ReadOptions = {}): Promise<Lit | undefined> {
  const text = await pkg.read(file);
  if (text === undefined) return undefined;
  ctx.configRead?.(where(pkg, file));
  return configValue(ctx, text, joinPath(pkg.dir, file), pkg.dir, where(pkg, file), undefined, opts);
}

/** `argv`: the runner's command line, which a config may test (`process.argv.includes('--ui')`). */
export interface ReadOptions {
  readonly argv?: readonly string[];
  /** What an exported config function is called with (Karma's `config` object); none by default. */
  readonly exportArgs?: readonly Lit[];
}

/** `process.argv` as a runner's config sees it: node, the runner's bin, then the arguments. */
export function argvOf(inv: { readonly runner: string; readonly args: readonly string[] }): string[] {
  return ['node', inv.runner, ...inv.args];
}

/**
 * The exported value of config text: `file` is where it lies and `cwd` the directory the command runs
 * in (both project-relative; a preset under node_modules too), `label` names it in notes. Absolute
 * directory values are made relative to the file's directory when it lies inside `cwd`.
 */
export async function configValue(ctx: ScanContext, text: string, file: string, cwd: string, label: string,
  note: (message: string) => void = (m) => ctx.note(m), opts: ReadOptions = {}): Promise<Lit | undefined> {
  if (/\.jsonc?$|(^|\/)\.[\w-]+rc$/.test(file)) return parseJsonc(text) as Lit;
  if (/\.ya?ml$/.test(file)) return parseYaml(text) as Lit;
  const rootAbs = ctx.root;
  const cwdAbs = cwd === '' ? rootAbs : `${rootAbs}/${cwd}`;
  const local = cwd === '' ? file : file.startsWith(cwd + '/') ? file.slice(cwd.length + 1) : undefined;
  const result = await evaluateModule(text, {
    file: `${rootAbs}/${file}`,
    cwd: cwdAbs,
    read: (abs) => {
      if (!abs.startsWith(rootAbs + '/')) return Promise.resolve(undefined);
      const rel = abs.slice(rootAbs.length + 1);
      return /(^|\/)node_modules\//.test(rel) ? ctx.readPackage(rel).then((hit) => hit?.text) : ctx.read(rel);
    },
    known: KNOWN_MODULES,
    resolvePackage: packageModules(ctx, label, note),
    argv: opts.argv,
    exportArgs: opts.exportArgs,
  });
  const short = local ?? file;
  for (const n of result.notes) note(n.startsWith(short + ':') ? `${label}${n.slice(short.length)}` : `${label}: ${n}`);
  if (result.value === undefined) return undefined;
  return local === undefined ? result.value : relativize(result.value, cwdAbs, dirname(local), 0);
}

/**
 * The evaluator's hook for package imports: a package whose name says it holds configs or presets is
 * looked up under node_modules (packages-resolve.ts); others (plugins, the runners' own helpers) stay
 * unknown without a read. Each lookup is noted, found or not.
 */
function packageModules(ctx: ScanContext, label: string, note: (message: string) => void): (spec: string, fromAbs: string) => Promise<{ path: string; text: string } | undefined> {
  return async (spec, fromAbs) => {
    const from = fromAbs === ctx.root ? '' : fromAbs.startsWith(ctx.root + '/') ? fromAbs.slice(ctx.root.length + 1) : undefined;
    if (from === undefined) return undefined;
    // Inside a package already read (a preset's own pieces), every import is part of the config.
    const inPackage = /(^|\/)node_modules\//.test(from);
    if (inPackage ? !worthFollowing(spec) : !worthReading(spec)) return undefined;
    const hit = await resolvePackage(ctx, spec, from);
    if (hit) note(`${label}: read ${spec} from ${hit.path}`);
    else {
      const member = inPackage ? undefined : await resolveWorkspace(ctx, spec);
      if (!member) { note(`${label}: ${spec} is not installed under node_modules; what it provides is unknown`); return undefined; }
      if (member.missing) { note(`${label}: ${spec} is the workspace package ${member.dir}, not installed, and what it exports is not there (not built?); what it provides is unknown`); return undefined; }
      note(member.fromSource
        ? `${label}: ${spec} is not installed nor built; read the workspace package's source ${member.path}, which its build compiles`
        : `${label}: ${spec} is not installed; read the workspace package's ${member.path}`);
      return { path: `${ctx.root}/${member.path}`, text: member.text };
    }
    return { path: `${ctx.root}/${hit.path}`, text: hit.text };
  };
}

// Packages projdex models itself (their helpers are built in) or that only ship code, never config.
const NOT_CONFIG = /^(jest|vitest|vite|ts-jest|babel-jest|typescript|@playwright\/test|playwright|cypress|@jest\/[\w-]+|@vitest\/[\w-]+|@nx\/(jest|vite)|@nrwl\/(jest|vite)|jest-environment-[\w-]+)$/;

/** From inside a package: any import but the runners' and tools' own packages. */
function worthFollowing(spec: string): boolean {
  const parts = splitSpecifier(spec);
  return parts !== undefined && !(parts.sub === '' && NOT_CONFIG.test(parts.name)) && !/^(vitest|vite|jest)$/.test(parts.name);
}

/** Whether a package import is worth reading: its name or subpath says config or preset. */
export function worthReading(spec: string): boolean {
  const parts = splitSpecifier(spec);
  if (!parts || /plugin/i.test(spec)) return false;
  if (parts.sub === '' && NOT_CONFIG.test(parts.name)) return false;
  if (/^(vitest|vite|jest)$/.test(parts.name)) return false;
  return /(^|[/@._-])(jest|vitest|config|configs|preset|presets|testing)([/._-]|$)/i.test(spec);
}

export { KCD_JEST } from './presets.ts';

// Keys that hold a directory: an absolute path there (`path.join(__dirname, 'e2e')`) is made relative to
// the config's directory, which is what each runner resolves a relative one against.
const DIR_KEYS = new Set(['rootDir', 'roots', 'testDir', 'dir', 'root', 'spec_dir', 'outputDir']);

function relativize(v: Lit, pkgAbs: string, configDir: string, depth: number, key = ''): Lit {
  if (typeof v === 'string') return DIR_KEYS.has(key) ? localPath(v, pkgAbs, configDir) : v;
  if (depth > 30 || v === null || typeof v !== 'object' || isComputed(v) || isRegex(v)) return v;
  if (Array.isArray(v)) return v.map((x) => relativize(x, pkgAbs, configDir, depth + 1, key));
  const out: ConfigObject = Object.create(null);
  for (const [k, x] of Object.entries(v)) out[k] = relativize(x, pkgAbs, configDir, depth + 1, k);
  return out;
}

function localPath(p: string, pkgAbs: string, configDir: string): string {
  const base = configDir === '' ? pkgAbs : `${pkgAbs}/${configDir}`;
  if (p === base) return '.';
  if (p.startsWith(base + '/')) return p.slice(base.length + 1);
  if (!p.startsWith(pkgAbs + '/') && p !== pkgAbs) return p;
  const up = configDir.split('/').filter(Boolean).map(() => '..');
  const rest = p === pkgAbs ? '' : p.slice(pkgAbs.length + 1);
  return [...up, rest].filter(Boolean).join('/') || '.';
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
