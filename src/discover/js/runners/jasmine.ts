import { compileGlobs } from '../../../rules/glob.ts';
import { flagValues, positionals, shellExpand } from '../args.ts';
import { firstExisting, readConfigFile, stringKey, stringList, where } from '../config/config.ts';
import type { RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';

const CONFIGS = ['spec/support/jasmine.mjs', 'spec/support/jasmine.json', 'spec/support/jasmine.js'];

/**
 * Jasmine: `spec_files` globs (entries with `!` are ignores) below `spec_dir`, from `--config` or
 * spec/support/jasmine.{mjs,json,js}; no dot files. Without a config nothing runs. Positional
 * arguments are spec files/globs of their own.
 */
export const jasmine: RunnerRule = {
  framework: 'jasmine',
  async discover(ctx, pkg, inv) {
    const cli = positionals(inv, new Set(['--config', '--filter', '--reporter'])).flatMap((p) => shellExpand(pkg, p.arg, p.quoted)).map((a) => joinPath(a));
    if (cli.length > 0) {
      const m = compileGlobs(cli);
      return pkg.files.filter((f) => m.match(f));
    }
    const file = flagValues(inv, '--config')[0] ?? firstExisting(pkg, '', CONFIGS);
    const config = file ? await readConfigFile(ctx, pkg, joinPath(file)) : undefined;
    if (!config) { ctx.note(`${where(pkg, 'spec/support')}: no jasmine config, so jasmine runs no specs`); return []; }
    const source = where(pkg, joinPath(file!));
    const dir = joinPath(stringKey(ctx, config, 'spec_dir', source) ?? '');
    const specs = stringList(ctx, config, 'spec_files', source) ?? [];
    const m = compileGlobs(specs.map((s) => joinPath(dir, s.replace(/^!/, '')) ).map((s, i) => (specs[i]!.startsWith('!') ? '!' + s : s)));
    return pkg.files.filter((f) => m.match(f));
  },
};
