/**
 * Resolves a bare specifier (`ts-jest/presets/js-with-ts/jest-preset`, `@org/jest-config`) to a file
 * under the project's node_modules the way Node does for the cases configs need, reading only through
 * `ScanContext.readPackage` (bounded, stamped, kept inside the project):
 * - `node_modules/<name>` looked up from the importing file's directory upward, never above the project
 *   root (and never in a `node_modules/node_modules`);
 * - the package's package.json `exports` (a string, `.`/subpath keys, `*` patterns, nested conditions,
 *   arrays), else `main`, else `index`; a subpath without `exports` as a file or directory;
 * - the given extensions, then `index.*` for a directory.
 * A package with no package.json is not looked into (Node would; real packages ship one).
 */
import type { ScanContext } from '../../../rules/types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';
import { parseJsonc } from '../../../readers/jsonc.ts';

export interface ResolveOptions {
  /** Extensions tried after the exact name (with the dot). @default .js .json .cjs .mjs .ts .mts .cts */
  readonly extensions?: readonly string[];
  /** `exports` conditions accepted (besides `default`). @default require, import, node */
  readonly conditions?: readonly string[];
}

/** A file found: its real path relative to the project root, and its text. */
export interface ResolvedFile { readonly path: string; readonly text: string }

export const EXTENSIONS = ['.js', '.json', '.cjs', '.mjs', '.ts', '.mts', '.cts'];
export const CONDITIONS = ['require', 'import', 'node'];

/** Splits `@a/b/c` into `@a/b` and `c`, `a/b` into `a` and `b`; undefined for a path or a URL. */
export function splitSpecifier(spec: string): { name: string; sub: string } | undefined {
  if (/^(\.|\/|[a-z]+:)/i.test(spec) || spec.includes('\\')) return undefined;
  const parts = spec.split('/');
  const n = spec.startsWith('@') ? 2 : 1;
  if (parts.length < n || parts.slice(0, n).some((p) => p === '' || p === '.' || p === '..')) return undefined;
  return { name: parts.slice(0, n).join('/'), sub: parts.slice(n).join('/') };
}

/**
 * The file `spec` names, as seen from `fromDir` (project-relative), or undefined when not installed or
 * not resolvable statically.
 */
export async function resolvePackage(ctx: ScanContext, spec: string, fromDir: string, options: ResolveOptions = {}): Promise<ResolvedFile | undefined> {
  const parts = splitSpecifier(spec);
  if (!parts) return undefined;
  const exts = options.extensions ?? EXTENSIONS;
  const conditions = options.conditions ?? CONDITIONS;
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (!dir.endsWith('node_modules')) {
      const pkgDir = joinPath(dir, 'node_modules', parts.name);
      const found = await fromPackage(ctx, pkgDir, parts.sub, exts, conditions);
      if (found) return found;
    }
    if (dir === '') return undefined;
  }
}

/** The file `sub` names inside the package at `pkgDir` (`map`: where to look instead of each target). */
export async function fromPackage(ctx: ScanContext, pkgDir: string, sub: string, exts: readonly string[],
  conditions: readonly string[], map?: (ctx: ScanContext, path: string) => Promise<ResolvedFile | undefined>): Promise<ResolvedFile | undefined> {
  const manifest = await readFile(ctx, `${pkgDir}/package.json`);
  if (!manifest) return undefined;
  // A linked package (pnpm, workspaces) resolves from where it really lies.
  const realDir = dirname(manifest.path);
  const json = parseJsonc(manifest.text) as Record<string, unknown> | undefined;
  if (json && typeof json === 'object' && json.exports !== undefined && json.exports !== null) {
    const target = exportTarget(json.exports, sub === '' ? '.' : `./${sub}`, conditions);
    // An `exports` map is the whole public surface: a subpath it does not list is not importable.
    if (target === undefined) return undefined;
    const path = joinPath(realDir, target);
    return map ? map(ctx, path) : readFile(ctx, path);
  }
  if (map) return json && typeof json.main === 'string' ? map(ctx, joinPath(realDir, json.main)) : undefined;
  if (sub !== '') return (await asFile(ctx, joinPath(realDir, sub), exts)) ?? asDirectory(ctx, joinPath(realDir, sub), exts);
  const main = json && typeof json.main === 'string' ? json.main : '';
  if (main) {
    const hit = (await asFile(ctx, joinPath(realDir, main), exts)) ?? (await asDirectory(ctx, joinPath(realDir, main), exts));
    if (hit) return hit;
  }
  return asDirectory(ctx, realDir, exts);
}

/** The target `exports` maps `subpath` to (`./dist/x.js`), or undefined. */
export function exportTarget(exports: unknown, subpath: string, conditions: readonly string[]): string | undefined {
  const map = typeof exports === 'string' || Array.isArray(exports) || !isSubpathMap(exports) ? { '.': exports } : exports as Record<string, unknown>;
  if (Object.hasOwn(map, subpath)) return conditionTarget(map[subpath], conditions, '', 0);
  // `./presets/*`: the longest key prefix that matches wins, its `*` replaced in the target.
  let best: { key: string; star: string } | undefined;
  for (const key of Object.keys(map)) {
    const at = key.indexOf('*');
    if (at === -1) continue;
    const before = key.slice(0, at);
    const after = key.slice(at + 1);
    if (subpath.startsWith(before) && subpath.endsWith(after) && subpath.length >= key.length - 1 && (!best || before.length > best.key.indexOf('*'))) {
      best = { key, star: subpath.slice(before.length, subpath.length - after.length) };
    }
  }
  return best ? conditionTarget(map[best.key], conditions, best.star, 0) : undefined;
}

function isSubpathMap(v: unknown): boolean {
  return typeof v === 'object' && v !== null && Object.keys(v).some((k) => k.startsWith('.'));
}

function conditionTarget(t: unknown, conditions: readonly string[], star: string, depth: number): string | undefined {
  if (depth > 8) return undefined;
  if (typeof t === 'string') return t.startsWith('./') ? t.replaceAll('*', star) : undefined;
  if (Array.isArray(t)) {
    for (const x of t) { const hit = conditionTarget(x, conditions, star, depth + 1); if (hit) return hit; }
    return undefined;
  }
  if (typeof t !== 'object' || t === null) return undefined;
  // Conditions apply in the map's own order: the first one accepted wins.
  for (const [key, x] of Object.entries(t)) {
    if (key !== 'default' && !conditions.includes(key)) continue;
    const hit = conditionTarget(x, conditions, star, depth + 1);
    if (hit) return hit;
  }
  return undefined;
}

/** A linked workspace package really lies in the walked tree: its files are read as project files. */
export async function readFile(ctx: ScanContext, rel: string): Promise<ResolvedFile | undefined> {
  if (!/(^|\/)node_modules\//.test(rel)) {
    const text = await ctx.read(rel);
    return text === undefined ? undefined : { path: rel, text };
  }
  const hit = await ctx.readPackage(rel);
  return hit ? { path: hit.path, text: hit.text } : undefined;
}

async function asFile(ctx: ScanContext, rel: string, exts: readonly string[]): Promise<ResolvedFile | undefined> {
  for (const ext of ['', ...exts]) {
    // A name without an extension is a directory more often than a file: only named files are tried bare.
    if (ext === '' && !/\.[cm]?[jt]s$|\.json$/.test(rel)) continue;
    const hit = await readFile(ctx, rel + ext);
    if (hit) return hit;
  }
  return undefined;
}

async function asDirectory(ctx: ScanContext, rel: string, exts: readonly string[]): Promise<ResolvedFile | undefined> {
  return asFile(ctx, joinPath(rel, 'index'), exts);
}
