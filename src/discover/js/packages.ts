import type { ScanContext } from '../../scan/types.ts';
import { compileGlobs } from '../glob.ts';
import type { Pkg } from './types.ts';
import { readFlatYaml } from './yaml.ts';

/**
 * The packages to discover in: the root package, plus the workspace members its package.json
 * (`workspaces: [...]` or `{ packages: [...] }`) or pnpm-workspace.yaml (`packages:`) declare.
 * Without a root package.json, the shallowest package.json directories stand in for it
 * (a JS app in a subfolder of a Python repository). Deepest first, so a member's own rule
 * claims its files before a root-level runner does.
 */
export async function findPackages(ctx: ScanContext): Promise<Pkg[]> {
  const rootJson = await readPkgJson(ctx, 'package.json');
  let dirs: string[];
  if (rootJson) {
    dirs = [''];
    const patterns = await workspacePatterns(ctx, rootJson);
    if (patterns.length > 0) {
      const matcher = compileGlobs(patterns.map((p) => p.replace(/^\.\//, '').replace(/\/$/, '')));
      for (const d of ctx.dirs) if (d !== '' && matcher.match(d) && ctx.has(d + '/package.json')) dirs.push(d);
    }
  } else {
    const candidates = ctx.files.filter((f) => f.endsWith('/package.json')).map((f) => f.slice(0, -'/package.json'.length)).sort();
    dirs = [];
    for (const d of candidates) if (!dirs.some((p) => d.startsWith(p + '/'))) dirs.push(d);
  }
  const pkgs: Pkg[] = [];
  for (const dir of dirs) {
    const json = dir === '' ? rootJson! : await readPkgJson(ctx, dir + '/package.json');
    if (json) pkgs.push(makePkg(ctx, dir, json));
  }
  return pkgs.sort((a, b) => b.dir.split('/').length - a.dir.split('/').length || (a.dir < b.dir ? -1 : 1));
}

async function readPkgJson(ctx: ScanContext, file: string): Promise<Record<string, unknown> | undefined> {
  const json = await ctx.readJson(file);
  return json && typeof json === 'object' && !Array.isArray(json) ? json as Record<string, unknown> : undefined;
}

async function workspacePatterns(ctx: ScanContext, json: Record<string, unknown>): Promise<string[]> {
  const ws = json.workspaces;
  const list = Array.isArray(ws) ? ws : ws && typeof ws === 'object' ? (ws as { packages?: unknown }).packages : undefined;
  const out = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  const pnpm = await ctx.read('pnpm-workspace.yaml') ?? await ctx.read('pnpm-workspace.yml');
  if (pnpm !== undefined) {
    const packages = readFlatYaml(pnpm).packages;
    if (Array.isArray(packages)) out.push(...packages);
  }
  return out;
}

/** A package view over the scan context, with paths relative to `dir`. */
export function makePkg(ctx: ScanContext, dir: string, json: Record<string, unknown>): Pkg {
  const prefix = dir === '' ? '' : dir + '/';
  const files = prefix === '' ? ctx.files : ctx.files.filter((f) => f.startsWith(prefix)).map((f) => f.slice(prefix.length));
  const dirs = new Set<string>();
  for (const d of ctx.dirs) if (d !== dir && d.startsWith(prefix)) dirs.add(d.slice(prefix.length));
  return {
    dir,
    json,
    files,
    dirs,
    has: (rel) => ctx.has(prefix + rel),
    read: (rel) => ctx.read(prefix + rel),
  };
}
