import type { FoundTest, ScanContext } from '../../scan/types.ts';
import type { FileIndex } from './files.ts';
import { declaredPyCommands } from './pycommands.ts';
import { discoverPytest, readPytestConfig, usesPytest } from './pytest.ts';
import { discoverUnittest } from './unittest.ts';

/**
 * Chooses between pytest and unittest for the project root: a declared pytest command, else a declared
 * unittest command, else pytest when the project configures or depends on it. A Python project with
 * test-looking files but no declared runner falls back to pytest's defaults, with a note. Never both.
 */
export async function discoverPython(ctx: ScanContext, index: FileIndex): Promise<FoundTest[]> {
  if (!(index.byExt.get('py')?.length)) return [];
  const commands = await declaredPyCommands(ctx);
  const config = await readPytestConfig(ctx);
  const pytestCmd = commands.find((c) => c.runner === 'pytest');
  if (pytestCmd) return discoverPytest(ctx, index, config, pytestCmd);
  const unittestCmd = commands.find((c) => c.runner === 'unittest');
  if (unittestCmd) return discoverUnittest(ctx, index, unittestCmd);
  if (await usesPytest(ctx, index, config)) return discoverPytest(ctx, index, config);
  const found = await discoverPytest(ctx, index, config);
  if (found.length > 0) ctx.note('no Python test runner is declared; listed the files pytest would collect by default');
  return found;
}
