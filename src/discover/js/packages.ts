import type { ScanContext } from '../../scan/types.ts';
import { compileGlobs } from '../glob.ts';
import { parseYaml } from '../../scan/yaml.ts';
import type { Pkg } from './types.ts';

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
  const found: Array<[dir: string, json: Record<string, unknown>]> = [];
  for (const dir of dirs) {
    const json = dir === '' ? rootJson! : await readPkgJson(ctx, dir + '/package.json');
    if (json) found.push([dir, json]);
  }
  const members = splitByPackage(ctx, found.map(([dir]) => dir));
  const pkgs = found.map(([dir, json]) => makePkg(ctx, dir, json, members.get(dir)!));
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
    const doc = parseYaml(pnpm) as { packages?: unknown } | null | undefined;
    const packages = doc && typeof doc === 'object' ? doc.packages : undefined;
    if (Array.isArray(packages)) out.push(...packages.filter((x): x is string => typeof x === 'string'));
  }
  return out;
}

/** A package view over the scan context, with paths relative to `dir`. */
function makePkg(ctx: ScanContext, dir: string, json: Record<string, unknown>, members: Members): Pkg {
  const prefix = dir === '' ? '' : dir + '/';
  return {
    dir,
    json,
    files: members.files,
    dirs: members.dirs,
    has: (rel) => ctx.has(prefix + rel),
    read: (rel) => ctx.read(prefix + rel),
  };
}

interface Members { files: string[]; dirs: Set<string> }

/**
 * Every package's files and directories (relative to the package), in one pass over the tree.
 * Perf: each path looks up its ancestors in a Map, so the cost is files x depth, not files x packages
 * (237 packages over 100k files took 1.3 s the other way, with no event-loop turn).
 */
function splitByPackage(ctx: ScanContext, packageDirs: readonly string[]): Map<string, Members> {
  const members = new Map<string, Members>(packageDirs.map((d) => [d, { files: [], dirs: new Set() }]));
  const root = members.get('');
  const visit = (path: string, add: (m: Members, rel: string) => void): void => {
    if (root) add(root, path);
    for (let slash = path.indexOf('/'); slash !== -1; slash = path.indexOf('/', slash + 1)) {
      const owner = members.get(path.slice(0, slash));
      if (owner) add(owner, path.slice(slash + 1));
    }
  };
  if (root && members.size === 1) return new Map([['', { files: ctx.files as string[], dirs: new Set(ctx.dirs.filter((d) => d !== '')) }]]);
  for (const file of ctx.files) visit(file, (m, rel) => m.files.push(rel));
  for (const dir of ctx.dirs) if (dir !== '') visit(dir, (m, rel) => m.dirs.add(rel));
  return members;
}
