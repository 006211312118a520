import { compileGlobs } from '../glob.ts';
import { flagValues, positionals } from './args.ts';
import { firstExisting, readConfigFile, stringList, where } from './config.ts';
import type { RunnerRule } from './types.ts';
import { joinPath } from '../../scan/paths.ts';

const CONFIGS = ['mjs', 'cjs', 'js'].flatMap((e) => [`web-test-runner.config.${e}`, `wtr.config.${e}`]);

/** Web Test Runner: no default; `files` globs from the config, or positional globs replacing them. */
export const wtr: RunnerRule = {
  framework: 'web-test-runner',
  async discover(ctx, pkg, inv) {
    const cli = [...positionals(inv, new Set(['--config', '--port', '--concurrency'])).map((p) => p.arg), ...flagValues(inv, '--files')];
    let globs = cli;
    if (globs.length === 0) {
      const file = flagValues(inv, '--config')[0] ?? firstExisting(pkg, '', CONFIGS);
      const config = file ? await readConfigFile(ctx, pkg, joinPath(file)) : undefined;
      globs = (file && stringList(ctx, config, 'files', where(pkg, file))) || [];
    }
    const m = compileGlobs([...globs.map((g) => g.replace(/^(!?)\.\//, '$1')), '!**/node_modules/**']);
    return pkg.files.filter((f) => m.match(f));
  },
};
