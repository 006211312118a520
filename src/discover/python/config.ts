import type { ScanContext } from '../../rules/types.ts';
import { iniWords, parseIni } from '../../readers/ini.ts';
import { parseShell } from '../../readers/shell/parse.ts';
import { parseToml, tomlGet, type TomlTable, type TomlValue } from '../../readers/toml.ts';
import { basename, dirname, joinPath } from '../../rules/paths.ts';

/** The pytest settings that change which files are collected. */
export interface PytestConfig {
  /** File the settings came from, or `undefined` when the defaults apply. */
  readonly source?: string;
  /** Directory of that file (pytest's rootdir unless `--rootdir` says otherwise). */
  readonly dir: string;
  readonly testpaths: readonly string[];
  readonly pythonFiles: readonly string[];
  readonly norecursedirs: readonly string[];
  readonly addopts: readonly string[];
  /** Why pytest would refuse this file (it exits with a usage error and collects nothing). */
  readonly error?: string;
}

const DEFAULTS = {
  pythonFiles: ['test_*.py', '*_test.py'],
  norecursedirs: ['*.egg', '.*', '_darcs', 'build', 'CVS', 'dist', 'node_modules', 'venv', '{arch}'],
};

/** pytest 9's candidate names in one directory, in its precedence order (`CONFIG_LOADERS_BY_NAME`). */
export const PYTEST_CONFIG_NAMES = ['pytest.toml', '.pytest.toml', 'pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];

/** The defaults pytest uses without a config file. */
export function defaultPytestConfig(dir = ''): PytestConfig {
  return build(undefined, dir, () => undefined);
}

/**
 * The config pytest 9 picks in exactly `dir`: the first of {@link PYTEST_CONFIG_NAMES} that holds pytest
 * settings. pytest.toml/.pytest.toml (`[pytest]`) and pytest.ini/.pytest.ini always count, even empty;
 * pyproject.toml counts with `[tool.pytest]` (native TOML values) or `[tool.pytest.ini_options]` (both
 * at once is a usage error); tox.ini needs `[pytest]`, setup.cfg `[tool:pytest]`.
 */
export async function readPytestConfig(ctx: ScanContext, dir = ''): Promise<PytestConfig | undefined> {
  for (const name of PYTEST_CONFIG_NAMES) {
    const file = joinPath(dir, name);
    if (!ctx.has(file)) continue;
    const config = await loadPytestConfig(ctx, file);
    if (config) return config;
  }
  return undefined;
}

/**
 * pytest's `locate_config`: from the common ancestor of the command's paths (`from`) up to the project
 * root, the first directory with a config. Directories above the project are not consulted.
 */
export async function locatePytestConfig(ctx: ScanContext, from: string): Promise<PytestConfig | undefined> {
  for (let dir = from; ; dir = dirname(dir)) {
    const config = await readPytestConfig(ctx, dir);
    if (config || dir === '') return config;
  }
}

/** Settings of one named file (a candidate name, or any `.ini`/`.cfg`/`.toml` passed with `-c`). */
export async function loadPytestConfig(ctx: ScanContext, file: string): Promise<PytestConfig | undefined> {
  const text = await ctx.read(file);
  if (text === undefined) return undefined;
  const name = basename(file);
  const dir = dirname(file);
  if (name.endsWith('.toml')) {
    const doc = parseToml(text);
    // pytest.toml/.pytest.toml hold a `[pytest]` table and always count; pyproject.toml holds
    // `[tool.pytest]`; another `.toml` given with `-c` may hold either.
    if (name === 'pytest.toml' || name === '.pytest.toml') return fromToml(file, dir, tomlGet(doc, 'pytest'));
    const tool = fromToolPytest(file, dir, tomlGet(doc, 'tool.pytest'));
    if (tool || name === 'pyproject.toml') return tool;
    return isTable(tomlGet(doc, 'pytest')) ? fromToml(file, dir, tomlGet(doc, 'pytest')) : undefined;
  }
  const ini = parseIni(text);
  if (name.endsWith('.cfg')) return ini.has('tool:pytest') ? fromIni(file, dir, ini.get('tool:pytest')) : undefined;
  if (ini.has('pytest')) return fromIni(file, dir, ini.get('pytest'));
  return name === 'pytest.ini' || name === '.pytest.ini' ? fromIni(file, dir, undefined) : undefined;
}

function fromToolPytest(file: string, dir: string, tool: TomlValue | undefined): PytestConfig | undefined {
  if (!isTable(tool)) return undefined;
  const native = Object.keys(tool).filter((k) => k !== 'ini_options');
  const ini = tool.ini_options;
  if (native.length > 0 && isTable(ini) && Object.keys(ini).length > 0) {
    const error = `${file}: pytest refuses [tool.pytest] together with [tool.pytest.ini_options] (a usage error: nothing runs)`;
    return { ...fromToml(file, dir, tool), error };
  }
  if (native.length > 0) return fromToml(file, dir, tool);
  return isTable(ini) ? fromToml(file, dir, ini) : undefined;
}

function isTable(v: TomlValue | undefined): v is TomlTable {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function fromIni(source: string, dir: string, section: ReadonlyMap<string, string> | undefined): PytestConfig {
  return build(source, dir, (key) => {
    if (!section?.has(key)) return undefined;
    // addopts is an "args" value (shlex-split); the path lists are whitespace/line lists.
    return key === 'addopts' ? shellWords(section.get(key)!) : iniWords(section.get(key));
  });
}

function fromToml(source: string, dir: string, table: TomlValue | undefined): PytestConfig {
  return build(source, dir, (key) => {
    if (!isTable(table)) return undefined;
    const v = table[key];
    if (typeof v === 'string') return key === 'addopts' ? shellWords(v) : iniWords(v);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
  });
}

function shellWords(text: string): string[] {
  return parseShell(text.replace(/\n/g, ' ')).flatMap((c) => c.argv);
}

function build(source: string | undefined, dir: string, get: (key: string) => string[] | undefined): PytestConfig {
  return {
    ...(source === undefined ? {} : { source }),
    dir,
    testpaths: get('testpaths') ?? [],
    pythonFiles: get('python_files') ?? DEFAULTS.pythonFiles,
    norecursedirs: get('norecursedirs') ?? DEFAULTS.norecursedirs,
    addopts: get('addopts') ?? [],
  };
}
