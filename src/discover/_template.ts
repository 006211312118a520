/**
 * The shape of a runner rule, to copy when adding a runner (ARCHITECTURE.md, "Adding a runner"). It is a
 * working rule for an imaginary runner, `example`, so it keeps compiling against the kit as the kit moves
 * (test/discover/template.test.ts runs it); it is registered nowhere.
 *
 * A rule file opens with a link to the runner's own description of what it runs, then its data (config
 * file names, default patterns, the CLI flags that take a value), then the code that data cannot say.
 * Runner docs: https://example.invalid/docs/cli#finding-tests
 */
import { compileGlobs } from '../rules/glob.ts';
import { joinPath } from '../rules/paths.ts';
import { flagValues, positionals, shellExpand } from './js/args.ts';
import { firstExisting, readConfigFile, stringList, where } from './js/config/config.ts';
import type { RunnerRule } from './js/types.ts';

/** Config files the runner looks for, in its own order of precedence. */
const CONFIGS = ['example.config.js', 'example.config.mjs', 'example.config.json'];
/** What it runs when no config and no argument names files. */
const DEFAULT_PATTERNS = ['test/**/*.example.js'];
/** Flags that take a value: their value is not a file argument. */
const VALUE_FLAGS: ReadonlySet<string> = new Set(['--config', '--reporter', '--timeout']);

/**
 * `example [files...] [--config FILE]`: files given on the command line replace the config's `files`; the
 * config (`--config`, else the first of CONFIGS) names globs; else the defaults. Paths are package-relative.
 */
export const example: RunnerRule = {
  framework: 'node-test',
  async discover(ctx, pkg, inv) {
    const cli = positionals(inv, VALUE_FLAGS).flatMap((p) => shellExpand(pkg, p.arg, p.quoted)).map((a) => joinPath(a));
    if (cli.length > 0) return match(pkg.files, cli);
    const file = flagValues(inv, '--config')[0] ?? firstExisting(pkg, '', CONFIGS);
    if (file === undefined) return match(pkg.files, DEFAULT_PATTERNS);
    const config = await readConfigFile(ctx, pkg, joinPath(file));
    // Never silent: a config that cannot be read statically is said, and the runner's defaults are used.
    const files = config ? stringList(ctx, config, 'files', where(pkg, joinPath(file))) : undefined;
    if (!files) ctx.note(`${where(pkg, joinPath(file))}: no literal \`files\`; used the runner's defaults`);
    return match(pkg.files, files ?? DEFAULT_PATTERNS);
  },
};

function match(files: readonly string[], globs: readonly string[]): string[] {
  const m = compileGlobs(globs);
  return files.filter((f) => m.match(f));
}
