import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { withCases } from '../../scan/with-cases.ts';
import { under, type FileIndex } from './files.ts';
import { iniWords, parseIni } from '../../readers/ini.ts';
import { fnmatchRegex, rubyGlobRegex } from './patterns.ts';
import { countPyTests } from './pycases.ts';
import type { PyCommand } from './pycommands.ts';
import { parseToml, tomlGet, type TomlValue } from '../../readers/toml.ts';
import { basename, dirname, joinPath } from '../../scan/paths.ts';

/** The root-level pytest settings that change which files are collected. */
export interface PytestConfig {
  /** File the settings came from, or `undefined` when the defaults apply. */
  readonly source?: string;
  readonly testpaths: readonly string[];
  readonly pythonFiles: readonly string[];
  readonly norecursedirs: readonly string[];
  readonly addopts: readonly string[];
}

const DEFAULTS = {
  pythonFiles: ['test_*.py', '*_test.py'],
  norecursedirs: ['*.egg', '.*', '_darcs', 'build', 'CVS', 'dist', 'node_modules', 'venv', '{arch}'],
};

/**
 * pytest's inifile choice in the project root, in its own order: pytest.toml, .pytest.toml, pytest.ini,
 * .pytest.ini (always a match), pyproject.toml with `[tool.pytest]` or `[tool.pytest.ini_options]`,
 * tox.ini with `[pytest]`, setup.cfg with `[tool:pytest]`. Ancestors of the project are not consulted.
 */
export async function readPytestConfig(ctx: ScanContext, base = ''): Promise<PytestConfig | undefined> {
  const at = (file: string): string => joinPath(base, file);
  for (const file of ['pytest.toml', '.pytest.toml']) {
    const text = await ctx.read(at(file));
    if (text !== undefined) return fromToml(at(file), tomlGet(parseToml(text), 'pytest'));
  }
  for (const file of ['pytest.ini', '.pytest.ini']) {
    const text = await ctx.read(at(file));
    if (text !== undefined) return fromIni(at(file), parseIni(text).get('pytest'));
  }
  const pyproject = await ctx.read(at('pyproject.toml'));
  if (pyproject !== undefined) {
    const doc = parseToml(pyproject);
    const native = tomlGet(doc, 'tool.pytest');
    const legacy = tomlGet(doc, 'tool.pytest.ini_options');
    if (legacy !== undefined) return fromToml(at('pyproject.toml'), legacy);
    if (native !== undefined) return fromToml(at('pyproject.toml'), native);
  }
  const tox = await ctx.read(at('tox.ini'));
  const toxSection = tox === undefined ? undefined : parseIni(tox).get('pytest');
  if (toxSection) return fromIni(at('tox.ini'), toxSection);
  const cfg = await ctx.read(at('setup.cfg'));
  const cfgSection = cfg === undefined ? undefined : parseIni(cfg).get('tool:pytest');
  if (cfgSection) return fromIni(at('setup.cfg'), cfgSection);
  return undefined;
}

function fromIni(source: string, section: ReadonlyMap<string, string> | undefined): PytestConfig {
  const get = (key: string): string[] | undefined => section?.has(key) ? iniWords(section.get(key)) : undefined;
  return build(source, get);
}

function fromToml(source: string, table: TomlValue | undefined): PytestConfig {
  const get = (key: string): string[] | undefined => {
    if (!table || typeof table !== 'object' || Array.isArray(table)) return undefined;
    const v = table[key];
    if (typeof v === 'string') return iniWords(v);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
  };
  return build(source, get);
}

function build(source: string, get: (key: string) => string[] | undefined): PytestConfig {
  return {
    source,
    testpaths: get('testpaths') ?? [],
    pythonFiles: get('python_files') ?? DEFAULTS.pythonFiles,
    norecursedirs: get('norecursedirs') ?? DEFAULTS.norecursedirs,
    addopts: get('addopts') ?? [],
  };
}

/** One pytest invocation: its config, the declared command (if any) and the directory it runs in. */
export interface PytestRun {
  readonly config: PytestConfig | undefined;
  readonly command?: PyCommand | undefined;
  /** Directory pytest runs in (its rootdir), relative to the project root. @default '' */
  readonly base?: string;
  /** Whether a file belongs to this run and not to a nested Python project. @default () => true */
  readonly owns?: (file: string) => boolean;
}

/** Whether the project uses pytest: a config section, a conftest.py, or `pytest` named in its dependency files. */
export async function usesPytest(ctx: ScanContext, index: FileIndex, config: PytestConfig | undefined, { base = '', owns = () => true }: Omit<PytestRun, 'config'> = {}): Promise<boolean> {
  if (config || (index.byName.get('conftest.py') ?? []).some(owns)) return true;
  const requirements = /^(?:requirements[^/]*\.(?:txt|in)|requirements\/[^/]+\.(?:txt|in))$/;
  const depFiles = [
    ...['pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile', 'tox.ini', 'noxfile.py'].map((f) => joinPath(base, f)),
    ...(index.byExt.get('txt') ?? []).filter((f) => requirements.test(under(base, f) ?? '')),
  ];
  for (const file of depFiles) {
    const text = await ctx.read(file);
    if (text !== undefined && /(?:^|[^\w.-])pytest(?![\w-])/m.test(text)) return true;
  }
  return false;
}

/**
 * Files `pytest` run from the project root would collect: testpaths (or positional args of the declared
 * command) as start points, `python_files` on the basename, `norecursedirs` on directory basenames below
 * the start points, `--ignore` from addopts/the command, conda envs skipped (virtualenvs are pruned by
 * the walk), conftest.py never. `test*.txt` files holding `>>>` examples are collected as doctests.
 */
export async function discoverPytest(ctx: ScanContext, index: FileIndex, { config, command, base = '', owns = () => true }: PytestRun): Promise<FoundTest[]> {
  const cfg = config ?? build('', () => undefined);
  const args = [...cfg.addopts, ...(command?.args ?? [])];
  const ignored = new Set<string>();
  const ignoreGlobs: RegExp[] = [];
  const starts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const opt = /^(--ignore(?:-glob)?)(?:=(.*))?$/.exec(word);
    if (opt) {
      const value = opt[2] ?? args[++i];
      if (value === undefined) continue;
      // --ignore names a path; --ignore-glob is an fnmatch pattern over the path.
      if (opt[1] === '--ignore') ignored.add(joinPath(base, value)); else ignoreGlobs.push(fnmatchRegex(joinPath(base, value)));
      continue;
    }
    if (word.startsWith('-') || word.includes('{')) continue;
    const path = joinPath(base, word.split('::')[0]!);
    if (path === base || index.dirs.has(path) || ctx.has(path)) starts.push(path);
  }
  if (starts.length === 0) {
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
    if (cfg.testpaths.length > 0 && starts.length === 0) ctx.note(`pytest testpaths in ${cfg.source} match nothing; pytest falls back to the project root`);
  }
  if (starts.length === 0) starts.push(base);

  const fileRes = cfg.pythonFiles.map((p) => ({ withSlash: p.includes('/'), re: fnmatchRegex(p) }));
  const norecurse = cfg.norecursedirs.map(fnmatchRegex);
  const explicit = new Set(starts.filter((s) => ctx.has(s)));
  const startDirs = new Set(starts.filter((s) => !ctx.has(s)));

  const isIgnored = (path: string): boolean => ignored.has(path) || ignoreGlobs.some((re) => re.test(path));
  // Perf: each directory's verdict is computed once and memoized, walking up segment by segment.
  const dirOk = new Map<string, boolean>();
  const allowed = (dir: string): boolean => {
    if (startDirs.has(dir)) return !isIgnored(dir);
    if (dir === '') return false;
    let ok = dirOk.get(dir);
    if (ok !== undefined) return ok;
    const name = basename(dir);
    ok = !isIgnored(dir) && name !== '__pycache__' && !norecurse.some((re) => re.test(name))
      && !ctx.has(dir + '/conda-meta/history') && allowed(dirname(dir));
    dirOk.set(dir, ok);
    return ok;
  };

  const picked: string[] = [];
  for (const file of index.byExt.get('py') ?? []) {
    if (explicit.has(file)) { picked.push(file); continue; }
    if (!owns(file)) continue;
    const name = basename(file);
    if (name === 'conftest.py' || isIgnored(file) || !allowed(dirname(file))) continue;
    if (fileRes.some(({ withSlash, re }) => withSlash ? matchesTail(re, file) : re.test(name))) picked.push(file);
  }
  const doctests = (index.byExt.get('txt') ?? []).filter((f) => /^test[^/]*\.txt$/.test(basename(f)) && allowed(dirname(f)) && !isIgnored(f) && owns(f));

  const found = await withCases(ctx, picked, 'pytest', (text) => countPyTests(text, 'pytest'));
  const docFound = await withCases(ctx, doctests, 'pytest', (text) => (text.match(/^\s*>>> /gm) ?? []).length);
  return [...found, ...docFound.filter((t) => (t.cases ?? 0) > 0)];
}

// A pattern with a slash is matched by pytest against the absolute path as `*/pattern`: any tail after a slash.
function matchesTail(re: RegExp, file: string): boolean {
  if (re.test(file)) return true;
  for (let at = file.indexOf('/'); at !== -1; at = file.indexOf('/', at + 1)) if (re.test(file.slice(at + 1))) return true;
  return false;
}
