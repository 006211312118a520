import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { withCases } from '../../rules/with-cases.ts';
import { under, type FileIndex } from '../files.ts';
import { fnmatchRegex, rubyGlobRegex } from '../patterns.ts';
import { countPyTests } from './cases.ts';
import type { PyCommand } from './commands.ts';
import { parsePytestArgs } from './args.ts';
import { defaultPytestConfig, loadPytestConfig, locatePytestConfig, type PytestConfig } from './config.ts';
import { conftestIgnores } from './conftest.ts';
import { countDoctests, doctestFiles } from './doctest.ts';
import { basename, dirname, joinPath } from '../../rules/paths.ts';

/** One pytest invocation: the declared command (if any) and the directory it runs in. */
export interface PytestRun {
  readonly command?: PyCommand | undefined;
  /** Directory pytest runs in (its invocation dir), relative to the project root. @default '' */
  readonly base?: string;
  /** Whether a file belongs to this run and not to a nested Python project. @default () => true */
  readonly owns?: (file: string) => boolean;
}

/**
 * Files `pytest [args]` run in `base` would collect, as pytest 9 decides: the config is `-c` or the
 * first candidate file from the args' common ancestor upwards; addopts come before the command's words;
 * start points are the positional paths, else `testpaths` (only when the invocation dir is the rootdir),
 * else `base`. Below them: `python_files` and `norecursedirs` through `fnmatch_ex` (a pattern with a `/`
 * matches the path's tail), `--ignore`, `--ignore-glob`, conftest.py `collect_ignore(_glob)`, whole-file
 * `--deselect`; conda envs and `__pycache__` skipped, conftest.py never a test module. Doctests: text files
 * matching `--doctest-glob` (default `test*.txt`), and with `--doctest-modules` every module with a
 * `>>>` example; their examples are counted as cases.
 */
export async function discoverPytest(ctx: ScanContext, index: FileIndex, { command, base: pkg = '', owns = () => true }: PytestRun): Promise<FoundTest[]> {
  const notes: string[] = [];
  // The invocation dir: the command's own (`cd x && pytest`, tox changedir) or the package's.
  const base = command?.cwd ?? pkg;
  const own = parsePytestArgs(command?.args ?? []);
  const cfg = await chooseConfig(ctx, index, base, own.configFile, own.paths);
  const follow = (): void => ctx.follow({ package: pkg, command: command?.text ?? null, runner: 'pytest', config: cfg.source ?? null, notes });
  if (cfg.error) { notes.push(cfg.error); ctx.note(cfg.error); follow(); return []; }
  const args = parsePytestArgs([...cfg.addopts, ...(command?.args ?? [])]);
  if (args.pyargs) notes.push('--pyargs names modules; projdex read its words as paths');
  const rootdir = args.rootdir !== undefined ? joinPath(base, args.rootdir) : cfg.source !== undefined ? cfg.dir : base;

  const starts: string[] = [];
  for (const word of args.paths) {
    const path = joinPath(base, word.split('::')[0]!);
    if (path === base || index.dirs.has(path) || ctx.has(path)) starts.push(path);
  }
  if (starts.length === 0 && rootdir === base) {
    for (const entry of cfg.testpaths) {
      if (/[*?[]/.test(entry)) {
        const re = rubyGlobRegex(joinPath(base, entry));
        for (const d of index.dirs) if (d !== '' && re.test(d)) starts.push(d);
        for (const f of ctx.files) if (re.test(f)) starts.push(f);
      } else {
        const path = joinPath(base, entry);
        if (path === base || index.dirs.has(path) || ctx.has(path)) starts.push(path);
      }
    }
    if (cfg.testpaths.length > 0 && starts.length === 0) notes.push(`testpaths in ${cfg.source} match nothing; pytest falls back to ${base || 'the project root'}`);
  } else if (starts.length === 0 && cfg.testpaths.length > 0) {
    notes.push(`testpaths in ${cfg.source} not used: pytest runs in ${base || 'the root'}, not in its rootdir ${rootdir || 'the root'}`);
  }
  if (starts.length === 0) starts.push(base);

  const fileRes = cfg.pythonFiles.map(fnmatchEx);
  const norecurse = cfg.norecursedirs.map(fnmatchEx);
  const explicit = new Set(starts.filter((s) => ctx.has(s)));
  const startDirs = new Set(starts.filter((s) => !ctx.has(s)));
  const conftests = (index.byName.get('conftest.py') ?? []).filter(owns);
  const fromConftest = await conftestIgnores(ctx, conftests);
  const ignored = new Set([...args.ignore.map((p) => joinPath(base, p)), ...fromConftest.paths]);
  const ignoreGlobs = [...args.ignoreGlob.map((g) => joinPath(base, g)), ...fromConftest.globs].map(fnmatchRegex);
  const deselected = new Set(args.deselect.filter((d) => !d.includes('::')).map((d) => joinPath(base, d)));
  // A deselected node id (`file::test`) takes one case from its file.
  const minus = new Map<string, number>();
  for (const d of args.deselect) if (d.includes('::')) { const f = joinPath(base, d.split('::')[0]!); minus.set(f, (minus.get(f) ?? 0) + 1); }

  const isIgnored = (path: string): boolean => ignored.has(path) || ignoreGlobs.some((re) => re.test(path));
  // Perf: each directory's verdict is computed once and memoized, walking up segment by segment.
  const dirOk = new Map<string, boolean>();
  const allowed = (dir: string): boolean => {
    if (startDirs.has(dir)) return !isIgnored(dir);
    if (dir === '') return false;
    let ok = dirOk.get(dir);
    if (ok !== undefined) return ok;
    ok = !isIgnored(dir) && basename(dir) !== '__pycache__' && !norecurse.some((m) => m(dir))
      && !ctx.has(dir + '/conda-meta/history') && allowed(dirname(dir));
    dirOk.set(dir, ok);
    return ok;
  };
  const collectable = (file: string): boolean => explicit.has(file) || (owns(file) && !isIgnored(file) && allowed(dirname(file)));

  const picked: string[] = [];
  for (const file of index.byExt.get('py') ?? []) {
    // Perf: the name is matched before the directories are walked up (most modules are not test files).
    if (deselected.has(file)) continue;
    if (!explicit.has(file) && (basename(file) === 'conftest.py' || !fileRes.some((m) => m(file)))) continue;
    if (collectable(file)) picked.push(file);
  }
  const testModules = new Set(picked);
  const docs = doctestFiles(ctx, index, { modules: args.doctestModules, globs: args.doctestGlobs.map(fnmatchEx), explicit, collectable })
    .filter((f) => !testModules.has(f) && !deselected.has(f));

  const found = await withCases(ctx, picked, 'pytest', pytestCounter(args.doctestModules, minus),
    { rowPerFile: true, depends: JSON.stringify([args.doctestModules, [...minus]]) });
  const docFound = await withCases(ctx, docs, 'pytest', args.doctestModules ? countDoctests : countDoctestText,
    { depends: String(args.doctestModules), keep: 'counted' });
  follow();
  return [...found, ...docFound];
}

// Module-level, as every counting function a unit record keeps: without --doctest-modules a module holds none.
const countDoctestText = (text: string, file: string): number => (file.endsWith('.py') ? 0 : countDoctests(text));

/** `-c FILE`, else pytest's `locate_config` from the common ancestor of the command's paths. */
async function chooseConfig(ctx: ScanContext, index: FileIndex, base: string, configFile: string | undefined, paths: readonly string[]): Promise<PytestConfig> {
  if (configFile !== undefined) {
    const file = joinPath(base, configFile);
    return (await loadPytestConfig(ctx, file)) ?? { ...defaultPytestConfig(dirname(file)), source: file };
  }
  const dirs = paths.map((p) => joinPath(base, p.split('::')[0]!)).map((p) => (ctx.has(p) ? dirname(p) : p)).filter((p) => p === '' || index.dirs.has(p));
  let ancestor = dirs[0] ?? base;
  for (const d of dirs) while (under(ancestor, d) === undefined && d !== ancestor) ancestor = dirname(ancestor);
  return (await locatePytestConfig(ctx, ancestor)) ?? defaultPytestConfig(base);
}

/**
 * pytest's `fnmatch_ex`: a pattern without `/` matches the basename; one with a `/` is matched as
 * `*\/pattern` against the whole (absolute) path, so any tail of the relative path after a `/` or the
 * whole relative path.
 */
export function fnmatchEx(pattern: string): (path: string) => boolean {
  const re = fnmatchRegex(pattern);
  if (!pattern.includes('/')) return (path) => re.test(basename(path));
  return (path) => {
    if (re.test(path)) return true;
    for (let at = path.indexOf('/'); at !== -1; at = path.indexOf('/', at + 1)) if (re.test(path.slice(at + 1))) return true;
    return false;
  };
}

/**
 * pytest's count of a module: its tests (and doctests under `--doctest-modules`) less the deselected ones.
 * Made here, outside the rule, so the closure holds only these two (a scan process keeps it between scans).
 */
function pytestCounter(doctestModules: boolean, minus: ReadonlyMap<string, number>): (text: string, file: string) => number {
  return (text, file) => Math.max(0, countPyTests(text, 'pytest') + (doctestModules ? countDoctests(text) : 0) - (minus.get(file) ?? 0));
}
