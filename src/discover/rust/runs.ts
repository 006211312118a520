import type { ScanContext } from '../../rules/types.ts';
import { parseShell } from '../../readers/shell/parse.ts';
import { parseYaml } from '../../readers/yaml.ts';
import { tomlGet, tomlStrings, type TomlTable } from '../../readers/toml.ts';
import { joinPath } from '../../rules/paths.ts';
import { rubyGlobRegex } from '../patterns.ts';

/** A Cargo package: its directory and parsed manifest. */
export interface Pkg { readonly dir: string; readonly doc: TomlTable }

/** One `cargo test` invocation: where it runs and what it selects. */
export interface CargoRun {
  readonly dir: string;
  readonly workspace: boolean;
  readonly packages: readonly string[];
  readonly features: readonly string[];
  readonly allFeatures: boolean;
  readonly text: string | null;
}

/**
 * `cargo test` / `cargo nextest run` lines of the CI workflows, the Makefile and the justfile (with
 * `cd dir &&` and a step's `working-directory`), or none.
 */
export async function cargoRuns(ctx: ScanContext): Promise<CargoRun[]> {
  const lines: Array<{ line: string; dir: string }> = [];
  for (const file of ctx.files) {
    if (/^\.github\/workflows\/[^/]+\.ya?ml$/.test(file)) {
      const doc = parseYaml((await ctx.read(file)) ?? '') as { jobs?: Record<string, { steps?: unknown; defaults?: { run?: { 'working-directory'?: string } } }> } | undefined;
      for (const job of Object.values(doc?.jobs ?? {})) {
        for (const step of Array.isArray(job?.steps) ? job.steps as Array<{ run?: unknown; 'working-directory'?: unknown }> : []) {
          if (typeof step?.run !== 'string') continue;
          const dir = typeof step['working-directory'] === 'string' ? step['working-directory'] : job.defaults?.run?.['working-directory'] ?? '';
          for (const line of step.run.replace(/\\\n/g, ' ').split('\n')) lines.push({ line, dir: joinPath(dir) });
        }
      }
    } else if (file === 'Makefile' || file === 'justfile' || file === 'Justfile') {
      for (const line of ((await ctx.read(file)) ?? '').replace(/\\\n/g, ' ').split('\n')) lines.push({ line, dir: '' });
    }
  }
  const runs: CargoRun[] = [];
  for (const { line, dir: start } of lines) {
    if (!/\bcargo\b/.test(line)) continue;
    let dir = start;
    for (const { argv } of parseShell(line)) {
      if (argv[0] === 'cd' && argv[1]) { dir = joinPath(dir, argv[1]); continue; }
      const at = argv.indexOf('cargo');
      const sub = argv.slice(at + 1).filter((w) => !w.startsWith('+'));
      if (at === -1 || !(sub[0] === 'test' || (sub[0] === 'nextest' && sub[1] === 'run') || sub[0] === 'llvm-cov' || sub[0] === 'tarpaulin')) continue;
      runs.push(readArgs(sub.slice(sub[0] === 'nextest' ? 2 : 1), dir, line.trim()));
    }
  }
  return runs;
}

function readArgs(args: readonly string[], dir: string, text: string): CargoRun {
  const packages: string[] = [];
  const features: string[] = [];
  let workspace = false;
  let allFeatures = false;
  let runDir = dir;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    const eq = /^(--[\w-]+)=(.*)$/.exec(a);
    const flag = eq?.[1] ?? a;
    const value = (): string => eq?.[2] ?? args[++i] ?? '';
    if (flag === '--workspace' || flag === '--all') workspace = true;
    else if (flag === '--all-features') allFeatures = true;
    else if (flag === '-p' || flag === '--package') packages.push(value());
    else if (/^-p\S/.test(a)) packages.push(a.slice(2));
    else if (flag === '-F' || flag === '--features') features.push(...value().split(/[\s,]+/).filter(Boolean));
    else if (flag === '--manifest-path') runDir = joinPath(dir, value().replace(/(?:^|\/)Cargo\.toml$/, ''));
  }
  return { dir: runDir, workspace, packages, features, allFeatures, text };
}

/**
 * The packages one run tests: in a workspace root, `--workspace` (or a virtual root) means its members
 * (`default-members` for a bare command in a virtual root), `-p` the named ones, else the root package
 * alone; in a member's directory, that member.
 */
export function selectFor(run: CargoRun, docs: ReadonlyMap<string, TomlTable>): Pkg[] {
  let dir = run.dir;
  while (!docs.has(dir) && dir !== '') dir = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
  const doc = docs.get(dir);
  if (!doc) return [];
  const wsDir = tomlGet(doc, 'workspace') !== undefined ? dir : [...docs.keys()].filter((w) => tomlGet(docs.get(w)!, 'workspace') !== undefined
    && members(w, docs).some((p) => p.dir === dir)).sort((a, b) => b.length - a.length)[0];
  if (wsDir === undefined) return tomlGet(doc, 'package') ? [{ dir, doc }] : [];
  const all = members(wsDir, docs);
  const byName = (name: string): Pkg[] => all.filter((p) => tomlGet(p.doc, 'package.name') === name);
  if (run.packages.length > 0) return run.packages.flatMap(byName);
  if (run.workspace) return all;
  if (dir !== wsDir || tomlGet(doc, 'package')) return [{ dir, doc }];
  const defaults = tomlStrings(tomlGet(doc, 'workspace.default-members'));
  return defaults ? all.filter((p) => defaults.some((d) => joinPath(wsDir, d) === p.dir)) : all;
}

/** A workspace's packages: the root package, and `members` globs minus `exclude`. */
export function members(wsDir: string, docs: ReadonlyMap<string, TomlTable>): Pkg[] {
  const ws = docs.get(wsDir)!;
  const include = (tomlStrings(tomlGet(ws, 'workspace.members')) ?? []).map((m) => rubyGlobRegex(joinPath(wsDir, m)));
  const exclude = (tomlStrings(tomlGet(ws, 'workspace.exclude')) ?? []).map((m) => joinPath(wsDir, m));
  const out: Pkg[] = [];
  for (const [dir, doc] of docs) {
    if (tomlGet(doc, 'package') === undefined) continue;
    if (dir === wsDir) { out.push({ dir, doc }); continue; }
    if (include.some((re) => re.test(dir)) && !exclude.some((e) => dir === e || dir.startsWith(e + '/'))) out.push({ dir, doc });
  }
  return out;
}
