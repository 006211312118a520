import { readerNotes } from '../../../readers/budget.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { joinPath } from '../../../rules/paths.ts';
import { joinDir } from '../../../readers/shell/words.ts';
import { planScript, scriptMissing, type Delegation, type PlanOptions, type ScriptPlan } from './script.ts';
import { planNxTarget } from '../nx/plan.ts';
import { NX_DEFAULT_PROJECT } from './package-managers.ts';
import type { NxWorkspace } from '../nx/nx.ts';
import type { Pkg } from '../types.ts';
import { dotFilesOf, missingWhy, standIn } from './stand-in.ts';
import { subPackage } from '../packages/run-dir.ts';

/**
 * One package script the project's test command runs, with its plan and how it was reached; `standIn` says
 * what was followed in place of a missing test script (CI's test steps, `test:*` scripts), in words.
 */
export interface Reached {
  readonly pkg: Pkg; readonly script: string; readonly plan: ScriptPlan; readonly via: string | null; readonly standIn?: string;
}

export interface Reach {
  readonly runs: Reached[];
  /** Workspace packages no followed command reaches (their files are not listed). */
  readonly unreached: Pkg[];
  readonly notes: string[];
}

const MAX_RUNS = 2000;

/**
 * What following the scripts keeps for the walk it ran on (`ctx.perWalk`). `plans`: by package directory and
 * script, the package's `scripts` and `wireit` values a plan was made from, and the plan. A plan that read a
 * file (a shell script, a Makefile) or noted through the scan's channel is not kept; the others depend only
 * on those values and on the walk (what `-d`/`-f` tests ask of the package's tree), so one is reused while the
 * package's manifest gives the very same values (packages.ts keeps each parsed manifest per walk while its
 * stamp holds, and no reader changes it). `rootDotFiles`: the root's files under a dot folder or named with a
 * dot, where CI files are (stand-in.ts). Perf: a 1% rescan of the 100k-file tree plans 236 scripts and passes
 * over 100k paths otherwise.
 */
interface KeptPlan { readonly scripts: unknown; readonly wireit: unknown; readonly plan: ScriptPlan }

export interface KeptPlans {
  readonly plans: Map<string, KeptPlan>;
  rootDotFiles?: readonly string[];
}

/** Plans kept per walk at most (a script name per package and hand-off: a hostile tree may name thousands). */
const MAX_KEPT_PLANS = 4096;

/**
 * Which package scripts `npm test` at the root reaches: the root's `test` script, followed through
 * hand-offs (`turbo run test`, `pnpm -r --filter x test`, `lerna run test --scope x`, `nx run-many -t test`,
 * `yarn workspaces foreach run test`, `cd pkg && npm test`) to each reached package's own script. When the
 * root has no `test` script, each workspace package's own `test` script is the truth. Without a root
 * package.json, every top-level package runs its own `test` script.
 */
export async function reachScripts(pkgs: readonly Pkg[], nx?: NxWorkspace, kept?: KeptPlans): Promise<Reach> {
  const root = pkgs.find((p) => p.dir === '');
  const members = pkgs.filter((p) => p !== root);
  const runs: Reached[] = [];
  const notes: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ pkg: Pkg; script: string; via: string | null; nx: boolean }> = [];
  const others = new Map<string, Pkg | undefined>();
  // `nx`: an Nx target of that name (nx-plan.ts), else a package.json script.
  const add = (pkg: Pkg, script: string, via: string | null, isNx = false): void => {
    const key = `${pkg.dir}\0${script}\0${isNx}`;
    if (seen.has(key) || seen.size >= MAX_RUNS) return;
    seen.add(key);
    queue.push({ pkg, script, via, nx: isNx });
  };
  const options = (pkg: Pkg): PlanOptions => ({ fileTest: (op, p) => fileTest(pkg, op, p), read: (rel) => readInProject(pkg, root, rel), wireit: pkg.json.wireit });
  if (!root) for (const p of members) add(p, 'test', null);
  else {
    const memberTests = members.filter((m) => !scriptMissing(m.json.scripts as Record<string, unknown> | undefined));
    const rootMissing = scriptMissing(root.json.scripts as Record<string, unknown> | undefined);
    const why = missingWhy(root, 'package.json');
    if (rootMissing && nx) {
      notes.push(`${why}; followed each Nx project's \`test\` target, as \`nx run-many -t test\` runs them`);
      for (const p of pkgs) if (p.nx) add(p, 'test', '`nx run-many -t test`', true);
    } else if (rootMissing) {
      // CI's test steps (the record of what runs), else the members' own test scripts, else the root's
      // `test:*` scripts stand in; with none, the plan says the script is missing.
      // Where its CI files are, kept for the walk.
      const dotFiles = (): readonly string[] => (kept ? (kept.rootDotFiles ??= dotFilesOf(root))
        : dotFilesOf(root));
      const found = await standIn(root, label(root), options(root), memberTests.length === 0, dotFiles);
      if (found) {
        notes.push(found.note);
        seen.add(`\0test\0false`);
        runs.push({ pkg: root, script: found.script, plan: found.plan, via: null, standIn: found.what });
        await delegate(root, found.plan);
      } else if (memberTests.length > 0) {
        notes.push(`${why}; followed each workspace package's own \`test\` script`);
        for (const m of memberTests) add(m, 'test', null);
      } else add(root, 'test', null);
    } else add(root, 'test', null);
  }
  while (queue.length > 0) {
    const { pkg, script, via, nx: isNx } = queue.shift()!;
    if (isNx && nx) {
      const planned = await planNxTarget(pkg, script, nx, pkgs, options);
      if (planned === undefined) { notes.push(`${nxLabel(pkg)} has no \`${script}\` target, so ${via} skips it`); continue; }
      if (planned !== 'script') {
        for (const p of planned) { runs.push({ pkg: p.pkg, script, plan: p.plan, via }); await delegate(p.pkg, p.plan); }
        continue;
      }
      if (seen.has(`${pkg.dir}\0${script}\0false`)) continue;
    }
    const plan = await planKept(pkg, script, options(pkg), kept);
    if (plan.missing && via !== null) { notes.push(`${label(pkg)} has no \`${script}\` script, so ${via} skips it`); continue; }
    runs.push({ pkg, script, plan, via });
    await delegate(pkg, plan);
  }
  /** Queues the hand-offs of one followed plan (a note for each that reaches nothing). */
  async function delegate(pkg: Pkg, plan: ScriptPlan): Promise<void> {
    for (const d of plan.delegations) {
      const viaNx = nx !== undefined && d.tool.startsWith('nx');
      // Nx runs a target of the project itself too (`nx test app` from app's own script, a standalone workspace).
      const pool = viaNx ? pkgs.filter((m) => m.nx !== undefined) : members.filter((m) => m !== pkg);
      const names = d.tool.startsWith('pnpm') ? unscopedNames(pool) : undefined;
      const targets = pool.filter((m) => matches(m, d, nx, pkg, names));
      const text = `${d.tool} ${d.scripts.join(' ')}`.trim();
      const named = d.filters && d.filters[0] !== NX_DEFAULT_PROJECT ? ` (selected by ${d.filters.map((f) => `\`${f}\``).join(', ')})` : '';
      if (targets.length === 0) notes.push(`${label(pkg)}: \`${text}\` reaches no workspace package${named}`);
      for (const t of targets) for (const s of d.scripts) add(t, s, `\`${text}\``, viaNx);
      if (d.filters?.some((f) => /\.\.\.|\^|\[/.test(f))) notes.push(`${label(pkg)}: dependency and change filters of \`${text}\` were read as the packages they name`);
      if (viaNx && d.tool === 'nx affected') notes.push(`${label(pkg)}: \`${text}\` was read as every project (what changed since the base is not known)`);
    }
    for (const { dir, script: s } of plan.dirs) {
      const at = joinPath(pkg.dir, dir);
      // A directory with a package.json of its own that no workspace lists (CI's `npm test` per matrix dir).
      const target = pkgs.find((p) => p.dir === at) ?? (root && !at.startsWith('..') ? await nested(root, at) : undefined);
      if (target) add(target, s, `\`cd ${dir}\``);
      else notes.push(`${label(pkg)}: \`cd ${dir}\` is not a package projdex knows; not followed`);
    }
  }
  /** The package at `dir` below the root that is no workspace member, made once from its package.json. */
  async function nested(top: Pkg, dir: string): Promise<Pkg | undefined> {
    if (others.has(dir)) return others.get(dir);
    let made: Pkg | undefined;
    if (top.has(`${dir}/package.json`)) {
      try {
        const json: unknown = JSON.parse((await top.read(`${dir}/package.json`)) ?? 'null');
        if (json && typeof json === 'object' && !Array.isArray(json)) made = subPackage(top, dir, json as Record<string, unknown>);
      } catch { made = undefined; }
    }
    others.set(dir, made);
    return made;
  }
  const reached = new Set(runs.map((r) => r.pkg));
  const unreached = members.filter((m) => !reached.has(m) && !members.some((o) => reached.has(o) && m.dir.startsWith(o.dir + '/')));
  return { runs, unreached, notes };
}

/** `pkg`'s `script` planned, or its plan kept for the walk (see `KeptPlans`). */
async function planKept(pkg: Pkg, script: string, options: PlanOptions, kept?: KeptPlans): Promise<ScriptPlan> {
  const scripts = pkg.json.scripts as Record<string, unknown> | undefined;
  const key = `${pkg.dir}\0${script}`;
  const was = kept?.plans.get(key);
  if (was && was.scripts === scripts && was.wireit === pkg.json.wireit) return was.plan;
  // Not kept: a plan that read a file, or whose reader noted through the scan's channel (a shell pattern
  // refused as unsafe), which a reuse would not say again.
  let unkept = false;
  const channel = readerNotes.getStore();
  const reader = options.read;
  const reading: PlanOptions = reader ? { ...options, read: (rel) => ((unkept = true), reader(rel)) } : options;
  const heard = (message: string): void => { unkept = true; channel?.(message); };
  const plan = await readerNotes.run(heard, () => planScript(scripts, script, reading));
  if (unkept) kept?.plans.delete(key);
  else if (kept && (was || kept.plans.size < MAX_KEPT_PLANS)) {
    kept.plans.set(key, { scripts, wireit: pkg.json.wireit, plan });
  }
  return plan;
}

/** Whether a workspace package is selected by a hand-off's filters (by name or directory, globs allowed). */
function matches(pkg: Pkg, d: Delegation, nx?: NxWorkspace, from?: Pkg, unscoped?: Map<string, Pkg | null>): boolean {
  if (d.filters === null) return true;
  // `nx test` alone: nx.json's defaultProject, else the project the command runs in.
  if (d.filters[0] === NX_DEFAULT_PROJECT) return nx?.defaultProject !== undefined ? pkg.nx?.name === nx.defaultProject : pkg === from;
  const name = pkg.nx?.name ?? (typeof pkg.json.name === 'string' ? pkg.json.name : '');
  let hit = false;
  for (const raw of d.filters) {
    const negate = raw.startsWith('!');
    // pnpm/turbo: `pkg...`, `...pkg`, `...^pkg`, `{dir}`, `./dir`, `[main]` (changed since).
    const f = raw.replace(/^!/, '').replace(/^\.\.\.\^?|\^?\.\.\.$/g, '').replace(/\[.*\]$/, '');
    const dir = /^\{(.*)\}$/.exec(f)?.[1] ?? (f.startsWith('./') || f.startsWith('../') ? f : undefined);
    // npm `-w packages/a` names a directory without `./`; a scoped name (`@x/y`) is a name.
    const asDir = dir ?? (f.includes('/') && !f.startsWith('@') ? f : undefined);
    // nx `--projects tag:scope:api`: the projects carrying that tag.
    const ok = f.startsWith('tag:') && pkg.nx ? pkg.nx.tags.some((t) => compileGlobs([f.slice(4)]).match(t))
      : (asDir !== undefined && compileGlobs([joinPath(asDir)]).match(pkg.dir))
      || (dir === undefined && f !== '' && (f === name || compileGlobs([f]).match(name) || pkg.dir.split('/').pop() === f
        || unscoped?.get(f) === pkg));
    if (ok) hit = !negate;
    else if (negate && !d.filters.some((x) => !x.startsWith('!'))) hit = true;
  }
  return hit;
}

/**
 * pnpm's scope-optional names: `--filter core` picks `@babel/core` when no package is named `core` and only
 * one package's name without its scope is `core` (https://pnpm.io/filtering). null: taken by several.
 */
function unscopedNames(pool: readonly Pkg[]): Map<string, Pkg | null> {
  const plain = new Set(pool.map((p) => p.json.name).filter((n): n is string => typeof n === 'string'));
  const out = new Map<string, Pkg | null>();
  for (const p of pool) {
    const m = typeof p.json.name === 'string' ? /^@[^/]+\/(.+)$/.exec(p.json.name) : null;
    if (!m || plain.has(m[1]!)) continue;
    out.set(m[1]!, out.has(m[1]!) ? null : p);
  }
  return out;
}

/** A script file or Makefile a package's command names: the package's own, or another file of the project. */
function readInProject(pkg: Pkg, root: Pkg | undefined, rel: string): Promise<string | undefined> {
  const full = joinDir(pkg.dir, rel);
  if (full.startsWith('..') || full.startsWith('/') || full.startsWith('~')) return Promise.resolve(undefined);
  const prefix = pkg.dir === '' ? '' : pkg.dir + '/';
  if (full.startsWith(prefix)) return pkg.read(full.slice(prefix.length));
  return root ? root.read(full) : Promise.resolve(undefined);
}

function fileTest(pkg: Pkg, op: string, path: string): boolean | undefined {
  if (path.startsWith('/') || path.includes('$')) return undefined;
  const p = joinPath(path);
  const isDir = p === '' || pkg.dirs.has(p);
  return op === '-d' ? isDir : op === '-f' ? pkg.has(p) : isDir || pkg.has(p);
}

function nxLabel(pkg: Pkg): string {
  return `Nx project ${pkg.nx?.name ?? pkg.dir} (${pkg.dir === '' ? 'the root' : pkg.dir})`;
}

export function label(pkg: Pkg): string {
  const file = pkg.nx !== undefined && !pkg.has('package.json') ? 'project.json' : 'package.json';
  return pkg.dir === '' ? file : `${pkg.dir}/${file}`;
}
