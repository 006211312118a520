import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { basename, dirname, join, withCases, type FileIndex } from './files.ts';
import { iniWords, parseIni } from './ini.ts';
import { fnmatchRegex, rubyGlobRegex } from './patterns.ts';
import { countPyTests } from './pycases.ts';
import type { PyCommand } from './pycommands.ts';
import { parseToml, tomlGet, type TomlValue } from './toml.ts';

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
export async function readPytestConfig(ctx: ScanContext): Promise<PytestConfig | undefined> {
  for (const file of ['pytest.toml', '.pytest.toml']) {
    const text = await ctx.read(file);
    if (text !== undefined) return fromToml(file, tomlGet(parseToml(text), 'pytest'));
  }
  for (const file of ['pytest.ini', '.pytest.ini']) {
    const text = await ctx.read(file);
    if (text !== undefined) return fromIni(file, parseIni(text).get('pytest'));
  }
  const pyproject = await ctx.read('pyproject.toml');
  if (pyproject !== undefined) {
    const doc = parseToml(pyproject);
    const native = tomlGet(doc, 'tool.pytest');
    const legacy = tomlGet(doc, 'tool.pytest.ini_options');
    if (legacy !== undefined) return fromToml('pyproject.toml', legacy);
    if (native !== undefined) return fromToml('pyproject.toml', native);
  }
  const tox = await ctx.read('tox.ini');
  const toxSection = tox === undefined ? undefined : parseIni(tox).get('pytest');
  if (toxSection) return fromIni('tox.ini', toxSection);
  const cfg = await ctx.read('setup.cfg');
  const cfgSection = cfg === undefined ? undefined : parseIni(cfg).get('tool:pytest');
  if (cfgSection) return fromIni('setup.cfg', cfgSection);
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

/** Whether the project uses pytest: a config section, a conftest.py, or `pytest` named in its dependency files. */
export async function usesPytest(ctx: ScanContext, index: FileIndex, config: PytestConfig | undefined): Promise<boolean> {
  if (config || (index.byName.get('conftest.py')?.length ?? 0) > 0) return true;
  const depFiles = ['pyproject.toml', 'setup.py', 'setup.cfg', 'Pipfile', 'tox.ini', 'noxfile.py',
    ...ctx.files.filter((f) => /^(?:requirements[^/]*\.(?:txt|in)|requirements\/[^/]+\.(?:txt|in))$/.test(f))];
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
export async function discoverPytest(ctx: ScanContext, index: FileIndex, config: PytestConfig | undefined, command?: PyCommand): Promise<FoundTest[]> {
  const cfg = config ?? build('', () => undefined);
  const args = [...cfg.addopts, ...(command?.args ?? [])];
  const ignored = new Set<string>();
  const starts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    const eq = /^--ignore(?:-glob)?=(.*)$/.exec(word);
    if (eq) { ignored.add(join('', eq[1]!)); continue; }
    if (word === '--ignore' && args[i + 1] !== undefined) { ignored.add(join('', args[++i]!)); continue; }
    if (word.startsWith('-') || word.includes('{')) continue;
    const path = join('', word.split('::')[0]!);
    if (path === '' || index.dirs.has(path) || ctx.has(path)) starts.push(path);
  }
  if (starts.length === 0) {
    for (const entry of cfg.testpaths) {
      if (/[*?[]/.test(entry)) {
        const re = rubyGlobRegex(join('', entry));
        for (const d of index.dirs) if (d !== '' && re.test(d)) starts.push(d);
        for (const f of ctx.files) if (re.test(f)) starts.push(f);
      } else {
        const path = join('', entry);
        if (path === '' || index.dirs.has(path) || ctx.has(path)) starts.push(path);
      }
    }
    if (cfg.testpaths.length > 0 && starts.length === 0) ctx.note(`pytest testpaths in ${cfg.source} match nothing; pytest falls back to the project root`);
  }
  if (starts.length === 0) starts.push('');

  const fileRes = cfg.pythonFiles.map((p) => ({ withSlash: p.includes('/'), re: fnmatchRegex(p) }));
  const norecurse = cfg.norecursedirs.map(fnmatchRegex);
  const explicit = new Set(starts.filter((s) => ctx.has(s)));
  const startDirs = new Set(starts.filter((s) => !ctx.has(s)));

  // Perf: each directory's verdict is computed once and memoized, walking up segment by segment.
  const dirOk = new Map<string, boolean>();
  const allowed = (dir: string): boolean => {
    if (startDirs.has(dir)) return !ignored.has(dir);
    if (dir === '') return false;
    let ok = dirOk.get(dir);
    if (ok !== undefined) return ok;
    const name = basename(dir);
    ok = !ignored.has(dir) && name !== '__pycache__' && !norecurse.some((re) => re.test(name))
      && !ctx.has(dir + '/conda-meta/history') && allowed(dirname(dir));
    dirOk.set(dir, ok);
    return ok;
  };

  const picked: string[] = [];
  for (const file of index.byExt.get('py') ?? []) {
    if (explicit.has(file)) { picked.push(file); continue; }
    const name = basename(file);
    if (name === 'conftest.py' || ignored.has(file) || !allowed(dirname(file))) continue;
    if (fileRes.some(({ withSlash, re }) => withSlash ? matchesTail(re, file) : re.test(name))) picked.push(file);
  }
  const doctests = (index.byExt.get('txt') ?? []).filter((f) => /^test[^/]*\.txt$/.test(basename(f)) && allowed(dirname(f)) && !ignored.has(f));

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
