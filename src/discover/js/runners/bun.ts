import { parseToml, tomlGet } from '../../../readers/toml.ts';
import { positionals } from '../args.ts';
import type { RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';

const EXT = /\.(?:[cm]?[jt]sx?)$/;
const SUFFIX = /(?:\.test|_test|\.spec|_spec)$/;

/**
 * `bun test`: below `[test] root` of bunfig.toml (default the cwd), skipping node_modules and dot
 * dirs, files with a JS-like extension whose lower-cased stem ends in `.test`, `_test`, `.spec` or
 * `_spec`. Positional arguments are substring filters (`./x` an exact path).
 */
export const bun: RunnerRule = {
  framework: 'bun',
  async discover(_ctx, pkg, inv) {
    const root = tomlGet(parseToml((await pkg.read('bunfig.toml')) ?? ''), 'test.root');
    const dir = typeof root === 'string' ? joinPath(root) : '';
    const prefix = dir === '' ? '' : dir + '/';
    const filters = positionals(inv, new Set(['--timeout', '-t', '--test-name-pattern', '--preload'])).map((p) => p.arg);
    return pkg.files.filter((f) => {
      if (prefix && !f.startsWith(prefix)) return false;
      const segs = f.split('/');
      if (segs.slice(0, -1).some((s) => s.startsWith('.'))) return false;
      const name = segs[segs.length - 1]!.toLowerCase();
      const ext = EXT.exec(name);
      if (!ext || !SUFFIX.test(name.slice(0, ext.index))) return false;
      return filters.length === 0 || filters.some((x) => (x.startsWith('./') ? joinPath(x) === f : f.includes(x)));
    });
  },
};
