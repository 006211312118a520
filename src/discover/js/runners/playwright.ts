import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs } from '../../../rules/glob.ts';
import { flagValues, positionals } from '../args.ts';
import { argvOf, firstExisting, patternList, readConfigFile, stringKey, where } from '../config/config.ts';
import { isObject, type Lit } from '../../../readers/js/literal.ts';
import type { RunnerRule } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';
import { projectRegExp } from '../../../readers/safe-regex.ts';

const CONFIG_NAMES = ['ts', 'js', 'mts', 'mjs', 'cts', 'cjs'].map((e) => `playwright.config.${e}`);
const TEST_MATCH = '**/*.@(spec|test).?(c|m)[jt]s?(x)';
const EXT = /\.(?:[cm]?[jt]sx?)$/;
const VALUE_FLAGS = new Set(['-c', '--config', '--project', '--grep', '-g', '--grep-invert', '--reporter', '--workers', '-j', '--shard', '--timeout', '--retries', '--repeat-each', '--output']);

/**
 * Playwright Test: per project, files under `testDir` (default: the config's directory) matching
 * `testMatch` and no `testIgnore`, globs matched case-insensitively with dot files on the absolute
 * path (a `**\/` prefix added), node_modules skipped. Positional arguments are regex filters.
 * `.gitignore` (applied by Playwright when no testDir is set) is not read: noted.
 */
export const playwright: RunnerRule = {
  framework: 'playwright',
  async discover(ctx, pkg, inv) {
    const flag = flagValues(inv, '--config', '-c')[0];
    const file = flag ? (pkg.dirs.has(joinPath(flag)) ? firstExisting(pkg, joinPath(flag), CONFIG_NAMES) : joinPath(flag)) : firstExisting(pkg, '', CONFIG_NAMES);
    const config = file ? await readConfigFile(ctx, pkg, file, { argv: argvOf(inv) }) : undefined;
    const configDir = file ? dirname(file) : '';
    const source = file ? where(pkg, file) : 'playwright defaults';
    const projects = isObject(config) && Array.isArray(config.projects) && config.projects.length > 0 ? config.projects : [{}];
    const out = new Set<string>();
    for (const project of projects) for (const f of projectFiles(ctx, pkg, config, isObject(project) ? project : {}, configDir, source)) out.add(f);
    const filters = positionals(inv, VALUE_FLAGS).map((p) => projectRegExp(p.arg, '', (why) => ctx.note(`playwright filter ${JSON.stringify(p.arg.slice(0, 80))} is not used: ${why}`))).filter((r) => r !== null);
    return [...out].filter((f) => filters.length === 0 || filters.some((r) => r.test(abs(ctx, pkg.dir, f))));
  },
};

function projectFiles(ctx: ScanContext, pkg: { dir: string; files: readonly string[] }, config: Lit | undefined, project: { [k: string]: Lit }, configDir: string, source: string): string[] {
  const testDirRaw = stringKey(ctx, project, 'testDir', source) ?? stringKey(ctx, config, 'testDir', source);
  if (testDirRaw === undefined && pkg.files.some((f) => f.endsWith('.gitignore'))) ctx.note(`${source}: Playwright applies .gitignore when testDir is unset; projdex does not`);
  const testDir = joinPath(configDir, testDirRaw ?? '');
  const matchers = (key: string, dflt: string[]): Array<string | RegExp> =>
    patternList(ctx, project, key, source) ?? patternList(ctx, config, key, source) ?? dflt;
  const toTest = (list: Array<string | RegExp>) => {
    const globs = list.filter((p): p is string => typeof p === 'string').map((g) => (g.startsWith('**/') ? g : '**/' + g));
    const m = compileGlobs(globs, { dot: true, nocase: true });
    const res = list.filter((p): p is RegExp => p instanceof RegExp);
    return (a: string): boolean => (globs.length > 0 && m.match(a)) || res.some((r) => r.test(a));
  };
  const isMatch = toTest(matchers('testMatch', [TEST_MATCH]));
  const isIgnored = toTest(matchers('testIgnore', []));
  const prefix = testDir === '' ? '' : testDir + '/';
  return pkg.files.filter((f) => {
    if (prefix && !f.startsWith(prefix)) return false;
    if (!EXT.test(f)) return false;
    const a = abs(ctx, pkg.dir, f);
    return isMatch(a) && !isIgnored(a);
  });
}

function abs(ctx: ScanContext, dir: string, f: string): string {
  return ctx.root + '/' + joinPath(dir, f);
}
