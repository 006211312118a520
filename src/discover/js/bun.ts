import { readFlatYaml } from './yaml.ts';
import { positionals } from './args.ts';
import { joinPath, type RunnerRule } from './types.ts';

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
    // bunfig.toml is TOML, but `root = "x"` under [test] reads the same as flat YAML's `key: value`.
    const toml = (await pkg.read('bunfig.toml')) ?? '';
    const section = /\[test\]([^[]*)/.exec(toml)?.[1] ?? '';
    const root = joinPath(String(readFlatYaml(section.replace(/^(\s*\w+)\s*=/gm, '$1:')).root ?? ''));
    const prefix = root === '' ? '' : root + '/';
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
