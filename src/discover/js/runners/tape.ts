import { compileGlobs, isGlob } from '../../../rules/glob.ts';
import { joinPath } from '../../../rules/paths.ts';
import { flagValues, positionals, shellExpand } from '../args.ts';
import { where } from '../config/config.ts';
import type { RunnerRule } from '../types.ts';

// tape's own options taking a value (bin/tape in tape 4.x and 5.x: minimist with `r`/`i` aliases).
const TAPE_VALUE_FLAGS = new Set(['-r', '--require', '-i', '--ignore', '--ignore-pattern']);

/**
 * tape: no config and no default set. Each positional argument is what `sh` left of it (an unquoted
 * `test/**\/*.js` is `test/*\/*.js` to sh) and is then expanded again by tape's `glob` (globstar, no
 * dotfiles), from the package directory; a directory argument loads its `index.js`. `--ignore-pattern`
 * drops matching files. `-i/--ignore FILE` (a .gitignore-style file) is not applied: noted. A glob that
 * would reach into node_modules is read without it, as the walk never lists it (noted).
 */
export const tape: RunnerRule = {
  framework: 'tape',
  async discover(ctx, pkg, inv) {
    const given = positionals(inv, TAPE_VALUE_FLAGS).flatMap((p) => shellExpand(pkg, p.arg, p.quoted)).map((a) => a.replace(/^\.\//, ''));
    if (given.length === 0) {
      ctx.note(`${where(pkg, 'package.json')}: tape is run without files; it runs none`);
      return [];
    }
    if (flagValues(inv, '-i', '--ignore').length > 0) {
      ctx.note(`${where(pkg, 'package.json')}: tape's --ignore file is not applied; the files it ignores are listed`);
    }
    if (given.some((g) => g.startsWith('**') || g.includes('node_modules'))) {
      ctx.note(`${where(pkg, 'package.json')}: a tape glob reaches node_modules, which projdex does not list`);
    }
    const skip = compileGlobs(flagValues(inv, '--ignore-pattern').map((g) => joinPath(g)));
    const out = new Set<string>();
    for (const arg of given) {
      if (isGlob(arg)) {
        const m = compileGlobs([joinPath(arg)]);
        for (const f of pkg.files) if (m.match(f)) out.add(f);
        continue;
      }
      const path = joinPath(arg);
      if (pkg.has(path)) out.add(path);
      else if (pkg.dirs.has(path) && pkg.has(`${path}/index.js`)) out.add(`${path}/index.js`);
      else if (pkg.has(`${path}.js`)) out.add(`${path}.js`);
    }
    return [...out].filter((f) => !skip.match(f)).sort();
  },
};
