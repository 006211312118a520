import type { FoundTest, ScanContext } from '../../scan/types.ts';
import { nearest, type FileIndex } from './files.ts';
import { declaredPyCommands } from './pycommands.ts';
import { discoverPytest, readPytestConfig, usesPytest } from './pytest.ts';
import { discoverUnittest } from './unittest.ts';

const CONFIG_NAMES = ['pytest.toml', '.pytest.toml', 'pytest.ini', '.pytest.ini', 'pyproject.toml', 'tox.ini', 'setup.cfg'];
// Directories pytest's default norecursedirs would never enter: a config inside them is a fixture or a build copy.
const SKIPPED_SEGMENT = /(?:^|\/)(?:\.[^/]*|build|dist|venv|_darcs|CVS|[^/]*\.egg)(?:\/|$)/;

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
    for (const name of CONFIG_NAMES) {
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
  const results = await Promise.all([...roots].map(async (base) => {
    const owns = (file: string): boolean => nearest(roots, file) === base;
    const config = base === '' ? rootConfig : await readPytestConfig(ctx, base);
    const commands = base === '' ? rootCommands : await declaredPyCommands(ctx, base);
    const pytestCmd = commands.find((c) => c.runner === 'pytest');
    if (pytestCmd) return discoverPytest(ctx, index, { config, command: pytestCmd, base, owns });
    const unittestCmd = commands.find((c) => c.runner === 'unittest');
    if (unittestCmd) return discoverUnittest(ctx, index, unittestCmd, base);
    if (await usesPytest(ctx, index, config, { base, owns })) return discoverPytest(ctx, index, { config, base, owns });
    const manage = base === '' ? 'manage.py' : `${base}/manage.py`;
    if (ctx.has(manage) && /django/i.test((await ctx.read(manage)) ?? '')) {
      return discoverUnittest(ctx, index, { runner: 'unittest', args: ['discover'], source: manage }, base);
    }
    const found = await discoverPytest(ctx, index, { config, base, owns });
    if (found.length > 0) ctx.note(`no Python test runner is declared${base ? ` in ${base}` : ''}; listed the files pytest would collect by default`);
    return found;
  }));
  return results.flat();
}
