import type { ScanContext } from '../../../rules/types.ts';
import type { Lit } from '../../../readers/js/literal.ts';
import { getKey, isObject } from '../../../readers/js/literal.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { flagValues } from '../args.ts';
import { firstExisting, readConfigFile, stringList, where } from '../config/config.ts';
import type { Pkg, RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';

const CONFIGS = ['mjs', 'cjs', 'js', 'ts'].flatMap((e) => [`web-test-runner.config.${e}`, `wtr.config.${e}`]);
// Flags that take one value; `--browsers` takes every word up to the next flag.
const VALUE_FLAGS = new Set(['--config', '-c', '--group', '--groups', '--root-dir', '--port', '--hostname', '--concurrency',
  '--concurrent-browsers', '--esbuild-target', '--files', '--static-logging-mode']);

/**
 * Web Test Runner (@web/test-runner `parseConfig`): no default file set. The config module (read through
 * the static evaluator; `--config` or `web-test-runner.config.*` / `wtr.config.*` in the package) gives
 * `files` (a glob or a list, `!` negates), and `groups` each give their own `files` (a group without
 * `files` runs the config's). CLI files (`wtr "test/**\/*.test.js"`, `--files`) replace the config's
 * `files`. Without `--group` every group runs besides the default one; `--group x` runs x alone,
 * `--group default` the config's own files. Globs resolve from the package directory (globby, no
 * dotfiles, node_modules left out); `rootDir` only sets what the server serves.
 */
export const wtr: RunnerRule = {
  framework: 'web-test-runner',
  async discover(ctx, pkg, inv) {
    const cli = [...cliFiles(inv.args), ...flagValues(inv, '--files')];
    const file = flagValues(inv, '--config', '-c')[0] ?? firstExisting(pkg, '', CONFIGS);
    const config = file ? await readConfigFile(ctx, pkg, joinPath(file)) : undefined;
    const at = file ? where(pkg, file) : 'web-test-runner';
    const own = cli.length > 0 ? cli : (config && stringList(ctx, config, 'files', at)) || [];
    const groups = readGroups(ctx, config, at);
    const focus = flagValues(inv, '--group')[0];
    let sets: string[][];
    if (focus === undefined) sets = [own, ...groups.map((g) => g.files ?? own)];
    else if (focus === 'default') sets = [own];
    else {
      const group = groups.find((g) => g.name === focus);
      if (!group) ctx.note(`${at}: no group named ${focus} was found; nothing listed for \`--group ${focus}\``);
      sets = group ? [group.files ?? own] : [];
    }
    if (sets.every((s) => s.length === 0)) ctx.note(`${where(pkg, 'package.json')}: web-test-runner is given no files (no \`files\` in a config, none on its command line); nothing listed`);
    const out = new Set<string>();
    for (const globs of sets) for (const f of matchAll(pkg, globs)) out.add(f);
    return [...out];
  },
};

/** Positional words of a `wtr` command (its default option is `--files`); `--browsers a b` values skipped. */
function cliFiles(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--browsers') { while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) i++; continue; }
    if (a.startsWith('-')) { if (VALUE_FLAGS.has(a)) i++; continue; }
    out.push(a);
  }
  return out;
}

interface Group { readonly name: string | undefined; readonly files: string[] | undefined }

function readGroups(ctx: ScanContext, config: Lit | undefined, at: string): Group[] {
  const { found, value } = getKey(config, 'groups');
  if (!found || value === undefined || value === null) return [];
  if (!Array.isArray(value)) { ctx.note(`${at}: \`groups\` is computed; only the config's own files are listed`); return []; }
  const out: Group[] = [];
  for (const g of value) {
    if (typeof g === 'string') { ctx.note(`${at}: group config files (${g}) are not read; their files are not listed`); continue; }
    if (!isObject(g)) { ctx.note(`${at}: a group is computed; its files are not listed`); continue; }
    const name = getKey(g, 'name').value;
    out.push({ name: typeof name === 'string' ? name : undefined, files: stringList(ctx, g, 'files', at) });
  }
  return out;
}

function matchAll(pkg: Pkg, globs: readonly string[]): string[] {
  if (globs.length === 0) return [];
  const m = compileGlobs([...globs.map((g) => g.replace(/^(!?)\.\//, '$1')), '!**/node_modules/**']);
  return pkg.files.filter((f) => m.match(f));
}
