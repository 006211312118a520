import { compileGlobs, isGlob } from '../../../rules/glob.ts';
import { flagValues, positionals, shellExpand } from '../args.ts';
import { readConfigFile, stringKey, stringList, where } from '../config/config.ts';
import { depsOf, majorOf, type Pkg, type RunnerRule } from '../types.ts';
import { joinPath } from '../../../rules/paths.ts';
import type { Lit } from '../../../readers/js/literal.ts';
import { parseYaml } from '../../../readers/yaml.ts';
import { projectRegExp } from '../../../readers/safe-regex.ts';

const TAP_EXT = '{js,cjs,mjs,jsx,ts,cts,mts,tsx}';
const TAP_INCLUDE = `**/{@(test?(s)|__test?(s)__)/**/*,*.@(test?(s)|spec),test?(s)}.${TAP_EXT}`;
const TAP_EXCLUDE = '**/@(fixture*(s)|dist)/**';
const TAP_ALWAYS_EXCLUDE = '**/@(.tap|.nyc_output|.git|.hg|node_modules|tap-snapshots)/**';
// tap 16 and earlier: a regex over the path relative to the package.
const TAP_16 = /((\/|^)(tests?|__tests?__)\/.*|\.(tests?|spec)|^\/?tests?)\.([mc]js|[jt]sx?)$/;
const TAP_VALUE_FLAGS = new Set(['--include', '-i', '--exclude', '--before', '--after', '--reporter', '-R', '--timeout', '-t', '--grep', '-g',
  '--jobs', '-j', '--plugin', '--node-arg', '--coverage-report', '--test-env', '--save', '--output-file', '-o', '--output-dir', '-d']);

/**
 * node-tap: tap 18+ globs `include` (default: files in `test`/`tests`/`__tests__` folders, `*.test.*`,
 * `*.spec.*`, top-level `test.*`) minus `exclude` and the always-excluded dirs; `before`/`after` files
 * are not tests. Positional arguments (or the config's `files`) replace the include: a directory means
 * every runnable file in it. Config: `.taprc` (YAML) or package.json `tap`. tap 16 and earlier: its
 * test regex over the relative path.
 */
export const tap: RunnerRule = {
  framework: 'tap',
  async discover(ctx, pkg, inv) {
    // .taprc is YAML (tap 18+ writes it; older taps read YAML too).
    const rcText = await pkg.read('.taprc');
    const rc = rcText === undefined ? undefined : (parseYaml(rcText) as Lit | undefined) ?? undefined;
    const config = (rc ?? pkg.json.tap) as Lit | undefined;
    const source = rc ? where(pkg, '.taprc') : where(pkg, 'package.json');
    const major = majorOf(depsOf(pkg.json).tap) ?? 21;
    let files: string[];
    const args = positionals(inv, TAP_VALUE_FLAGS).flatMap((p) => shellExpand(pkg, p.arg, p.quoted)).map((a) => joinPath(a));
    const given = args.length > 0 ? args : stringList(ctx, config, 'files', source)?.map((f) => joinPath(f)) ?? [];
    const always = compileGlobs([TAP_ALWAYS_EXCLUDE], { dot: true });
    // `exclude` (default: fixture and dist folders) filters the include walk and directory arguments,
    // never a file named on the command line.
    const configured = [...flagValues(inv, '--exclude'), ...(stringList(ctx, config, 'exclude', source) ?? [])];
    const skip = compileGlobs((configured.length > 0 ? configured : [TAP_EXCLUDE]).map((g) => joinPath(g)));
    if (given.length > 0) files = expand(pkg, given, `**/*.${TAP_EXT}`, (f) => !always.match(f) && !skip.match(f));
    else if (major <= 16) files = tap16Defaults(ctx, pkg, config, source);
    else {
      const include = [...flagValues(inv, '--include', '-i'), ...(stringList(ctx, config, 'include', source) ?? [])];
      const m = compileGlobs((include.length > 0 ? include : [TAP_INCLUDE]).map((g) => g.replaceAll('__EXTENSIONS__', TAP_EXT)));
      files = pkg.files.filter((f) => m.match(f) && !always.match(f) && !skip.match(f));
    }
    const hooks = new Set([stringKey(ctx, config, 'before', source), stringKey(ctx, config, 'after', source)].filter((x) => x !== undefined).map((x) => joinPath(x!)));
    return files.filter((f) => !hooks.has(f));
  },
};

/** Paths, directories (every file matching `inDir` in them) and globs, as the runner expands them. */
function expand(pkg: Pkg, given: string[], inDir: string, keepInDir: (f: string) => boolean): string[] {
  const out = new Set<string>();
  const inside = compileGlobs([inDir]);
  for (const g of given) {
    if (isGlob(g)) { const m = compileGlobs([g]); for (const f of pkg.files) if (m.match(f)) out.add(f); }
    else if (pkg.dirs.has(g) || g === '') { const p = g === '' ? '' : g + '/'; for (const f of pkg.files) if (f.startsWith(p) && inside.match(f.slice(p.length)) && keepInDir(f)) out.add(f); }
    else if (pkg.has(g)) out.add(g);
  }
  return [...out];
}

const UVU_DEFAULT = /((\/|^)(tests?|__tests?__)\/.*|\.(tests?|spec)|^\/?tests?)\.([mc]js|[jt]sx?)$/i;
const UVU_IN_DIR = /(((?:[^/]*(?:\/|$))*)[\\/])?\w+\.([mc]js|[jt]sx?)$/;

/**
 * uvu: `uvu [dir] [pattern] -i ignore`: every file below `dir` (default `.`) whose path relative to it
 * matches `pattern` (a case-insensitive regex; default: any `\w+.js/ts` file when a dir is given, else
 * files in test folders or named `*.test.*`/`*.spec.*`), skipping `node_modules`, `.git` and `-i` regexes.
 */
export const uvu: RunnerRule = {
  framework: 'uvu',
  async discover(ctx, pkg, inv) {
    const [dirArg, patternArg] = positionals(inv, new Set(['-i', '--ignore', '-r', '--require', '-c', '--cwd'])).map((p) => p.arg);
    const cwd = joinPath(flagValues(inv, '-c', '--cwd')[0] ?? '');
    const dir = joinPath(cwd, dirArg ?? '');
    let pattern = dirArg ? UVU_IN_DIR : UVU_DEFAULT;
    const refused = (why: string): void => ctx.note(`uvu: pattern ${JSON.stringify(patternArg!.slice(0, 80))} is not used (${why}); used the default`);
    if (patternArg) pattern = projectRegExp(patternArg, 'i', refused) ?? pattern;
    const ignores = ['^.git', 'node_modules', ...flagValues(inv, '-i', '--ignore')].flatMap((s) => {
      const re = projectRegExp(s, 'i', (why) => ctx.note(`uvu: --ignore ${JSON.stringify(s.slice(0, 80))} is not used: ${why}`));
      return re ? [re] : [];
    });
    const prefix = dir === '' ? '' : dir + '/';
    return pkg.files.filter((f) => {
      if (!f.startsWith(prefix)) return false;
      const name = f.slice(prefix.length);
      // uvu tests each directory on the way down, then the file, against the ignores.
      const segs = name.split('/');
      for (let i = 1; i <= segs.length; i++) if (ignores.some((r) => r.test(segs.slice(0, i).join('/')))) return false;
      return pattern.test(name);
    });
  },
};

/**
 * borp: positional files/globs (and `.borp.yaml` `files`), else `--pattern`, else `**\/*.test.{cjs,mjs,js}`;
 * `node_modules` and `--ignore` globs skipped, `!` entries are ignores. With a tsconfig.json borp compiles
 * first and runs the output; the TypeScript sources of those tests are listed instead, with a note.
 */
export const borp: RunnerRule = {
  framework: 'borp',
  async discover(ctx, pkg, inv) {
    const file = pkg.has('.borp.yaml') ? '.borp.yaml' : pkg.has('.borp.yml') ? '.borp.yml' : undefined;
    const config = file ? await readConfigFile(ctx, pkg, file) : undefined;
    const values = new Set(['-p', '--pattern', '-i', '--ignore', '-c', '--concurrency', '-t', '--timeout', '-r', '--reporter', '-X', '--coverage-exclude', '-P', '--post-compile',
      '--lines', '--branches', '--functions', '--statements']);
    const given = [...positionals(inv, values).map((p) => p.arg), ...(file ? stringList(ctx, config, 'files', where(pkg, file)) ?? [] : [])];
    const ignore = ['node_modules/**', ...flagValues(inv, '-i', '--ignore'), ...given.filter((g) => g.startsWith('!')).map((g) => g.slice(1))];
    const compiles = pkg.has('tsconfig.json') && !inv.args.includes('-T') && !inv.args.includes('--no-typescript');
    // borp runs tsc, but only a tsconfig `outDir` moves the run to compiled output (its `prefix`); without
    // one (`noEmit`, as many JS projects with type tests have) the plain JS default runs in place.
    const ts = compiles && await hasOutDir(ctx, pkg);
    const globs = given.filter((g) => !g.startsWith('!'));
    const pattern = flagValues(inv, '-p', '--pattern')[0];
    const list = globs.length > 0 ? globs : pattern ? [pattern] : [ts ? '**/*.test.{cts,mts,ts,cjs,mjs,js}' : '**/*.test.{cjs,mjs,js}'];
    if (ts) ctx.note(`${where(pkg, 'tsconfig.json')}: borp compiles TypeScript and runs the output; listed the test sources`);
    const skip = compileGlobs(ignore.map((g) => joinPath(g)));
    const plain = list.filter((g) => !isGlob(g)).map((g) => joinPath(g)).filter((g) => pkg.has(g));
    const m = compileGlobs(list.filter((g) => isGlob(g)).map((g) => joinPath(g)));
    return [...new Set([...plain, ...pkg.files.filter((f) => m.match(f) && !skip.match(f))])];
  },
};

/** Whether tsconfig.json sets `compilerOptions.outDir` (an `extends` chain is not followed: assumed yes, noted). */
async function hasOutDir(ctx: Parameters<RunnerRule['discover']>[0], pkg: Pkg): Promise<boolean> {
  const config = await readConfigFile(ctx, pkg, 'tsconfig.json');
  if (stringKey(ctx, config, 'compilerOptions.outDir', where(pkg, 'tsconfig.json')) !== undefined) return true;
  if (config !== undefined && typeof config.extends !== 'string') return false;
  ctx.note(`${where(pkg, 'tsconfig.json')}: its outDir may come from \`extends\`, not followed; assumed borp runs compiled output`);
  return true;
}

/** Path parts tap 15/16's default walk never includes (its `fileFilter` in bin/run.js). */
const TAP_16_SKIP = new Set(['node_modules', 'tap-snapshots', 'fixtures', '.git', '.hg']);

/**
 * tap 16 and earlier without files: every file whose relative path matches `test-regex` (config, else
 * the default) and not `test-ignore`, outside node_modules, tap-snapshots, fixtures, .git, .hg and
 * tap-testdir-* folders.
 */
function tap16Defaults(ctx: Parameters<RunnerRule['discover']>[0], pkg: Pkg, config: Lit | undefined, source: string): string[] {
  const regex = (key: string): RegExp | null | undefined => {
    const text = stringKey(ctx, config, key, source);
    if (text === undefined) return undefined;
    const m = /^\/(.*)\/([a-z]*)$/.exec(text);
    return projectRegExp(m ? m[1]! : text, m ? m[2]!.replace(/[gy]/g, '') : '', (why) => ctx.note(`${source}: tap \`${key}\` is not used: ${why}`));
  };
  const good = regex('test-regex') ?? TAP_16;
  const bad = regex('test-ignore');
  return pkg.files.filter((f) => good.test(f) && !(bad && bad.test(f))
    && !f.split('/').some((part) => TAP_16_SKIP.has(part) || part.startsWith('tap-testdir-')));
}
