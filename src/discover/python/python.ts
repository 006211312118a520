import type { FoundTest, ScanContext } from '../../rules/types.ts';
import { nearest, under, type FileIndex } from '../files.ts';
import { declaredPyCommands, type PyCommand } from './commands.ts';
import { discoverPytest } from './pytest.ts';
import { PYTEST_CONFIG_NAMES, readPytestConfig, type PytestConfig } from './config.ts';
import { joinPath } from '../../rules/paths.ts';
import { allInOrder } from '../../rules/part-log.ts';
import { discoverUnittest, unittestDefaultsFind } from './unittest.ts';

// Directories pytest's default norecursedirs would never enter: a config inside them is a fixture or a build
// copy. A config inside a test or fixture directory is data for the enclosing run (pytest never looks
// down for a config), so it never starts a sub-project either.
const SKIPPED_SEGMENT = /(?:^|\/)(?:\.[^/]*|build|dist|venv|_darcs|CVS|[^/]*\.egg|tests?|testing|fixtures?|testdata|test_data)(?:\/|$)/;

/**
 * Python test files, per Python project: the root, or, when the root has no pytest config and no
 * declared test command, each outermost subdirectory that has a pytest config of its own (a monorepo
 * run as `cd backend && pytest`). In each, the runner is a declared pytest command, else a declared
 * unittest command (Django's `manage.py test` counts as one), else pytest when the project configures or
 * depends on it, else Django's runner when a `manage.py` names Django; a project with
 * test-looking files but no declared runner falls back to pytest's defaults, with a note. Never both.
 */
export async function discoverPython(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  if (!(index.byExt.get('py')?.length)) return [];
  const roots = new Set(['']);
  const rootConfig = await readPytestConfig(ctx);
  const rootCommands = await declaredPyCommands(ctx);
  if (!rootConfig && rootCommands.length === 0) {
    const candidates = new Set<string>();
    for (const name of PYTEST_CONFIG_NAMES) {
      for (const file of index.byName.get(name) ?? []) {
        const dir = file.slice(0, -name.length - 1);
        if (file !== name && !SKIPPED_SEGMENT.test(dir)) candidates.add(dir);
      }
    }
    // Outermost first, so a config nested inside another sub-project is left to that project's run.
    for (const dir of [...candidates].sort((a, b) => a.length - b.length)) {
      if (nearest(roots, dir + '/x') !== '') continue;
      if (await readPytestConfig(ctx, dir) || (await declaredPyCommands(ctx, dir)).length > 0) roots.add(dir);
    }
  }
  // Each root's notes and runs in root order, as each command's in command order (see allInOrder).
  const results = await allInOrder(ctx, [...roots], async (ctx, base) => {
    const owns = (file: string): boolean => nearest(roots, file) === base;
    const config = base === '' ? rootConfig : await readPytestConfig(ctx, base);
    const commands = base === '' ? rootCommands : await declaredPyCommands(ctx, base);
    // Every line of the first source that names a runner runs (tox/Makefile/CI often split the suite).
    const pytestCmds = sameSource(commands.filter((c) => c.runner === 'pytest'));
    if (pytestCmds.length > 0) {
      return union(await allInOrder(ctx, pytestCmds, (ctx, command) => discoverPytest(ctx, index, { command, base, owns })));
    }
    const unittestCmds = sameSource(commands.filter((c) => c.runner === 'unittest'));
    if (unittestCmds.length > 0) {
      return union(await allInOrder(ctx, unittestCmds, (ctx, c) => discoverUnittest(ctx, index, c, base)));
    }
    if (await usesPytest(ctx, index, config, base, owns)) return discoverPytest(ctx, index, { base, owns });
    const manage = base === '' ? 'manage.py' : `${base}/manage.py`;
    if (ctx.has(manage) && /django/i.test((await ctx.read(manage)) ?? '')) {
      return discoverUnittest(ctx, index, { runner: 'unittest', args: [], source: manage, django: true }, base);
    }
    // Nothing declared: pytest's defaults, unless they would collect nothing where a bare `python -m unittest`
    // finds modules (a `tests.py` beside the app, run as `python tests.py` or `python -m unittest`).
    if (!pytestDefaultsFind(index, base, owns) && unittestDefaultsFind(ctx, index, base)) {
      ctx.note(`no Python test runner is declared${base ? ` in ${base}` : ''}; pytest's defaults collect no file here, so listed the modules \`python -m unittest\` would discover by default`);
      return discoverUnittest(ctx, index, { runner: 'unittest', args: [], source: 'unittest defaults' }, base);
    }
    const found = await discoverPytest(ctx, index, { base, owns });
    if (found.length > 0) ctx.note(`no Python test runner is declared${base ? ` in ${base}` : ''}; listed the files pytest would collect by default`);
    return found;
  });
  return results.flat();
}

/** Whether the project uses pytest: a config section, a conftest.py, or `pytest` named in its dependency files. */
async function usesPytest(ctx: ScanContext, index: FileIndex, config: PytestConfig | undefined, base: string, owns: (file: string) => boolean): Promise<boolean> {
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

function sameSource(commands: PyCommand[]): PyCommand[] {
  const first = commands.find((c) => !c.alsoRuns) ?? commands[0];
  return commands.filter((c) => c.source === first!.source || c.alsoRuns);
}

function union(lists: FoundTest[][]): FoundTest[] {
  const byFile = new Map<string, FoundTest>();
  for (const list of lists) for (const t of list) if (!byFile.has(t.file)) byFile.set(t.file, t);
  return [...byFile.values()];
}

/** Whether any file of this root has a name pytest's default `python_files` (`test_*.py`, `*_test.py`) take. */
function pytestDefaultsFind(index: FileIndex, base: string, owns: (file: string) => boolean): boolean {
  return (index.byExt.get('py') ?? []).some((f) => /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/.test(f) && owns(f) && under(base, f) !== undefined);
}
