import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { parseYaml } from '../../../readers/yaml.ts';
import type { Pkg } from '../types.ts';
import { nxProjectDirs, readNxProject, type NxProject, type NxWorkspace } from '../nx/nx.ts';

/**
 * The packages to discover in: the root package, plus the workspace members its package.json
 * (`workspaces: [...]` or `{ packages: [...] }`) or pnpm-workspace.yaml (`packages:`) declare.
 * Without a root package.json, the shallowest package.json directories stand in for it
 * (a JS app in a subfolder of a Python repository). In an Nx workspace every project.json directory is
 * a package too (with its Nx name and targets, nx.ts). Deepest first, so a member's own rule
 * claims its files before a root-level runner does.
 */
export async function findPackages(ctx: ScanContext, nx?: NxWorkspace): Promise<Pkg[]> {
  const rootJson = await readPkgJson(ctx, 'package.json');
  let dirs: string[];
  if (rootJson) {
    dirs = [''];
    const patterns = await workspacePatterns(ctx, rootJson);
    if (patterns.length > 0) dirs.push(...memberDirs(ctx, patterns));
    // Nx: every project.json is a project, workspace member or not.
    if (nx) for (const d of nxProjectDirs(ctx)) if (!dirs.includes(d)) dirs.push(d);
  } else {
    const candidates = ctx.files.filter((f) => f.endsWith('/package.json')).map((f) => f.slice(0, -'/package.json'.length)).sort();
    dirs = [];
    for (const d of candidates) if (!dirs.some((p) => d.startsWith(p + '/'))) dirs.push(d);
  }
  const found: Array<[dir: string, json: Record<string, unknown>, nx: NxProject | undefined]> = [];
  for (const dir of dirs) {
    const hasProjectJson = nx !== undefined && ctx.has(dir === '' ? 'project.json' : dir + '/project.json');
    const json = dir === '' ? rootJson! : await readPkgJson(ctx, dir + '/package.json') ?? (hasProjectJson ? {} : undefined);
    // The root is an Nx project only with its own project.json or `nx` key; workspace members always are.
    const isNx = nx !== undefined && json !== undefined && (hasProjectJson || dir !== '' || json.nx !== undefined);
    if (json) found.push([dir, json, isNx ? await readNxProject(ctx, dir, json) : undefined]);
  }
  const members = membersOf(ctx, found.map(([dir]) => dir));
  const pkgs = found.map(([dir, json, nxProject]) => makePkg(ctx, dir, json, members.get(dir) ?? { files: [], dirs: [] }, nxProject));
  return pkgs.sort((a, b) => b.dir.split('/').length - a.dir.split('/').length || (a.dir < b.dir ? -1 : 1));
}

/**
 * The directories the workspace patterns match that hold a package.json, in walk order. Perf: a pass over
 * every directory (~30k on the 100k-file tree, ~1 ms), so the last patterns' answer is kept for the walk: a
 * rescan over the same walk with the same patterns takes it. The patterns are compiled each time (a pattern
 * refused as unsafe is noted by every scan).
 */
function memberDirs(ctx: ScanContext, patterns: readonly string[]): readonly string[] {
  const matcher = compileGlobs(patterns.map((p) => p.replace(/^\.\//, '').replace(/\/$/, '')));
  const key = JSON.stringify(patterns);
  const last = ctx.perWalk('js:member-dirs', (): { key?: string; dirs: string[] } => ({ dirs: [] }));
  if (last.key === key) return last.dirs;
  const dirs: string[] = [];
  for (const d of ctx.dirs) if (d !== '' && matcher.match(d) && ctx.has(d + '/package.json')) dirs.push(d);
  last.key = key;
  last.dirs = dirs;
  return dirs;
}

/**
 * A manifest as the last scan over this very walk read it, while its stamp has not moved (`vouch`: then it
 * counts as read by this scan); else read again. Perf: a 1% rescan of the 100k tree whose rules run reads
 * and parses only the few of its 237 package.json files that moved. Only an object is kept (a manifest that
 * reads as one gave no note); it is shared by the scans that take it, as a unit's value is, and never
 * changed by its readers.
 */
async function readPkgJson(ctx: ScanContext, file: string): Promise<Record<string, unknown> | undefined> {
  if (!ctx.vouch || !ctx.stampsOf) return readPkgJsonNow(ctx, file);
  const kept = ctx.perWalk('js:package-jsons',
    () => new Map<string, { stamp: Float64Array; json: Record<string, unknown> }>());
  const was = kept.get(file);
  if (was && ctx.vouch([file], was.stamp)) return was.json;
  const json = await readPkgJsonNow(ctx, file);
  if (json) kept.set(file, { stamp: ctx.stampsOf([file]), json });
  else kept.delete(file);
  return json;
}

async function readPkgJsonNow(ctx: ScanContext, file: string): Promise<Record<string, unknown> | undefined> {
  const json = await ctx.readJson(file);
  if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  // Present but unreadable (over 1 MiB, not valid JSON, too deep, no permission): never silently absent,
  // and what was stored for the package stays until it can be read again.
  if (ctx.has(file)) {
    const dir = file === 'package.json' ? '' : file.slice(0, -'/package.json'.length);
    if (ctx.keepUnder) {
      ctx.keepUnder(dir);
      ctx.note(`${file} could not be read as a JSON object: the tests and ports found before under ${dir === '' ? 'the project' : dir + '/'} are kept`);
    } else {
      ctx.note(`${file} could not be read as a JSON object: its package's tests are not listed`);
    }
  }
  return undefined;
}

async function workspacePatterns(ctx: ScanContext, json: Record<string, unknown>): Promise<string[]> {
  const ws = json.workspaces;
  const list = Array.isArray(ws) ? ws : ws && typeof ws === 'object' ? (ws as { packages?: unknown }).packages : undefined;
  const out = Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : [];
  // Lerna without npm/yarn workspaces lists its packages in lerna.json (default `packages/*`).
  const lerna = out.length === 0 ? await ctx.readJson('lerna.json') as { packages?: unknown } | undefined : undefined;
  if (lerna && typeof lerna === 'object') {
    const listed = Array.isArray(lerna.packages) ? lerna.packages.filter((x): x is string => typeof x === 'string') : ['packages/*'];
    out.push(...listed);
  }
  const pnpm = await ctx.read('pnpm-workspace.yaml') ?? await ctx.read('pnpm-workspace.yml');
  if (pnpm !== undefined) {
    const doc = parseYaml(pnpm) as { packages?: unknown } | null | undefined;
    const packages = doc && typeof doc === 'object' ? doc.packages : undefined;
    if (Array.isArray(packages)) out.push(...packages.filter((x): x is string => typeof x === 'string'));
  }
  return out;
}

/** A package view over the scan context, with paths relative to `dir`. */
function makePkg(ctx: ScanContext, dir: string, json: Record<string, unknown>, members: Members, nx?: NxProject): Pkg {
  const prefix = dir === '' ? '' : dir + '/';
  // Perf: the package-relative copies are made on first use and dropped by `releasePkg`, so a monorepo
  // holds one package's copies at a time rather than one string per file per package (1M-file tree:
  // ~60 MB less RSS at the peak).
  let files: readonly string[] | undefined;
  let dirs: ReadonlySet<string> | undefined;
  const pkg: Pkg = {
    dir,
    json,
    get files() {
      return (files ??= dir === '' ? ctx.files : members.files.map((f) => f.slice(prefix.length)));
    },
    get dirs() {
      return (dirs ??= new Set(dir === '' ? ctx.dirs.filter((d) => d !== '') : members.dirs.map((d) => d.slice(prefix.length))));
    },
    has: (rel) => ctx.has(prefix + rel),
    read: (rel) => ctx.read(prefix + rel),
    ...(nx ? { nx } : {}),
  };
  return Object.assign(pkg, { release: () => { files = undefined; dirs = undefined; } });
}

/** Drops the package-relative path copies `pkg.files` / `pkg.dirs` made; they are rebuilt if used again. */
export function releasePkg(pkg: Pkg): void {
  pkg.release?.();
}

// Perf: a package's members depend only on the walked tree and its own directory (a file under nested
// packages belongs to each of them). A rescan that reuses the last walk (scan/index.ts: every directory as it
// was) passes the very same `files` array, so each package's share of 100k files is taken as it was, and a
// package.json edited into or out of being a package costs only that package's share, not the whole split
// into 236 packages (~30 ms). Kept per `files` array, dropped with it.
function membersOf(ctx: ScanContext, packageDirs: readonly string[]): Map<string, Members> {
  const known = ctx.perWalk('js:package-members', () => new Map<string, Members>());
  const missing = packageDirs.filter((dir) => dir !== '' && !known.has(dir));
  if (missing.length > 0) for (const [dir, members] of splitByPackage(ctx, missing)) known.set(dir, members);
  return new Map(packageDirs.filter((dir) => dir !== '').map((dir) => [dir, known.get(dir)!]));
}

/** Project-relative paths below one package (the root package needs none: it owns everything). */
interface Members { files: string[]; dirs: string[] }

/**
 * Every member package's files and directories (project-relative, the walk's own strings), in one pass
 * over the tree. Perf: a directory's owners are found once, from its parent's, and its files take them
 * as a run (the walk lists a directory's files together); the cost is files + dirs, not files x packages
 * (237 packages over 100k files took 1.3 s the other way, with no event-loop turn).
 */
function splitByPackage(ctx: ScanContext, packageDirs: readonly string[]): Map<string, Members> {
  const members = new Map<string, Members>(packageDirs.filter((d) => d !== '').map((d) => [d, { files: [], dirs: [] }]));
  if (members.size === 0) return members;
  // Member packages at or above each directory, found once per directory from its parent's.
  const none: Members[] = [];
  const byDir = new Map<string, Members[]>([['', none]]);
  const ownersOf = (dir: string): Members[] => {
    let out = byDir.get(dir);
    if (out) return out;
    const slash = dir.lastIndexOf('/');
    const above = ownersOf(slash === -1 ? '' : dir.slice(0, slash));
    const own = members.get(dir);
    out = own ? [...above, own] : above;
    byDir.set(dir, out);
    return out;
  };
  // Perf: a folder below a package that holds no other package has that package's owners, checked by one
  // prefix compare (most folders of a monorepo, visited package by package) instead of a Map lookup and a
  // slice for its parent. `leafPrefix` is the last such package's folder and a slash.
  const leaves = leafPackages(members);
  let leafPrefix: string | undefined;
  let leafOwners = none;
  const ownersAt = (dir: string): Members[] => {
    if (leafPrefix !== undefined && dir.startsWith(leafPrefix)) return leafOwners;
    const out = ownersOf(dir);
    // The deepest owner is last: when no package lies below it, the folders below it share these owners.
    const leaf = out.length > 0 ? leaves.get(out[out.length - 1]!) : undefined;
    if (leaf !== undefined) { leafPrefix = leaf; leafOwners = out; }
    return out;
  };
  // The owners of a path's directory; consecutive paths of one directory share them (not sliced again).
  let lastDir = '';
  let owners = none;
  const ownersOfParent = (path: string): Members[] => {
    // Its folder is that package's or one below it.
    if (leafPrefix !== undefined && path.startsWith(leafPrefix)) return leafOwners;
    const slash = path.lastIndexOf('/');
    const parentLength = slash === -1 ? 0 : slash;
    if (parentLength !== lastDir.length || !path.startsWith(lastDir)) {
      owners = ownersAt((lastDir = path.slice(0, parentLength)));
    }
    return owners;
  };
  const files = ctx.files;
  const runs = ctx.dirRuns?.();
  if (runs) {
    // Perf: the walk's runs (one per directory, in `files` order): no file path is looked at (~half the
    // cost).
    // Indexed loops over the owners: no iterator per directory (~50k of them on the 100k tree, garbage the
    // scan process's small young generation collects).
    let at = 0;
    for (let i = 0; i < runs.dirs.length; i++) {
      const end = at + runs.counts[i]!;
      const owners = ownersAt(runs.dirs[i]!);
      for (let k = 0; k < owners.length; k++) for (let f = at; f < end; f++) owners[k]!.files.push(files[f]!);
      at = end;
    }
  } else {
    for (const file of files) for (const m of ownersOfParent(file)) m.files.push(file);
  }
  const dirs = ctx.dirs;
  for (let i = 0; i < dirs.length; i++) {
    const dir = dirs[i]!;
    if (dir === '') continue;
    const owners = ownersOfParent(dir);
    for (let k = 0; k < owners.length; k++) owners[k]!.dirs.push(dir);
  }
  return members;
}

/** Member packages with no other member package below them, by their Members, with folder and slash. */
function leafPackages(members: ReadonlyMap<string, Members>): Map<Members, string> {
  const sorted = [...members.keys()].sort();
  const out = new Map<Members, string>();
  for (const dir of sorted) {
    // The first folder at or after `dir/` in code-unit order is below `dir` if any is.
    const below = dir + '/';
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid]! < below) lo = mid + 1; else hi = mid; }
    if (lo === sorted.length || !sorted[lo]!.startsWith(below)) out.set(members.get(dir)!, below);
  }
  return out;
}
