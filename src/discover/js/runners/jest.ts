import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs, isGlob, picomatchGroups } from '../../../rules/glob.ts';
import { flagValues, positionals } from '../args.ts';
import { argvOf, firstExisting, KCD_JEST, patternList, readConfigFile, stringKey, stringList, where, type ConfigObject } from '../config/config.ts';
import { isObject, type Lit } from '../../../readers/js/literal.ts';
import { parseJsonc } from '../../../readers/jsonc.ts';
import { depsOf, majorOf, type Invocation, type Pkg, type RunnerRule } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';
import { projectRegExp } from '../../../readers/safe-regex.ts';
import { withPreset } from './jest-preset.ts';

const CONFIG_NAMES = ['js', 'ts', 'mjs', 'cjs', 'mts', 'cts', 'json'].map((e) => `jest.config.${e}`);
const MATCH_30 = ['**/__tests__/**/*.?([mc])[jt]s?(x)', '**/?(*.)+(spec|test).?([mc])[jt]s?(x)'];
const MATCH_29 = ['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[tj]s?(x)'];
const EXT_30 = ['js', 'mjs', 'cjs', 'jsx', 'ts', 'mts', 'cts', 'tsx', 'json', 'node'];
const EXT_29 = ['js', 'mjs', 'cjs', 'jsx', 'ts', 'tsx', 'json', 'node'];
const VALUE_FLAGS = new Set(['-c', '--config', '--rootDir', '--selectProjects', '--testNamePattern', '-t', '--reporters', '--maxWorkers', '-w', '--shard', '--testTimeout', '--coverageDirectory', '--env', '--testEnvironment']);

/** One resolved Jest config: its literal object and the package-relative dir it is relative to. */
interface Resolved { readonly config: ConfigObject; readonly dir: string; readonly source: string }

/**
 * Jest: candidates are files under `roots` with a `moduleFileExtensions` extension; a test matches
 * `testMatch` (or `testRegex`) on the absolute path and no `testPathIgnorePatterns` regex. `projects`
 * replace the root config. Positional CLI arguments are regex filters on the path.
 */
export const jest: RunnerRule = {
  framework: 'jest',
  async discover(ctx, pkg, inv) {
    const resolved = await resolveConfig(ctx, pkg, inv);
    const major = majorOf(depsOf(pkg.json).jest) ?? 30;
    let files = await run(ctx, pkg, resolved, major, 0, flagValues(inv, '--selectProjects'));
    const filters = positionals(inv, VALUE_FLAGS).map((p) => projectRegExp(p.arg, '', (why) => ctx.note(`jest filter ${JSON.stringify(p.arg.slice(0, 80))} is not used: ${why}`))).filter((r): r is RegExp => r !== null);
    if (filters.length > 0) files = files.filter((f) => filters.some((r) => r.test(abs(ctx, pkg, f))));
    return files;
  },
};

/** CRA (`react-scripts test`): Jest with `src` as the only root and its own testMatch. */
export const cra: RunnerRule = {
  framework: 'jest',
  async discover(ctx, pkg) {
    const config: ConfigObject = {
      roots: ['<rootDir>/src'],
      testMatch: ['<rootDir>/src/**/__tests__/**/*.{js,jsx,ts,tsx}', '<rootDir>/src/**/*.{spec,test}.{js,jsx,ts,tsx}'],
    };
    return run(ctx, pkg, { config, dir: '', source: 'react-scripts' }, 30);
  },
};

/**
 * kcd-scripts (`kcd-scripts test`): the project's own Jest config when it has one (`jest.config.js` or a
 * package.json `jest` key), else kcd-scripts' built-in config (config.ts KCD_JEST).
 */
export const kcd: RunnerRule = {
  framework: 'jest',
  async discover(ctx, pkg, inv) {
    if (pkg.has('jest.config.js') || pkg.json.jest !== undefined || flagValues(inv, '--config', '-c').length > 0) return jest.discover(ctx, pkg, inv);
    return run(ctx, pkg, { config: KCD_JEST, dir: '', source: 'kcd-scripts' }, 30);
  },
};

async function resolveConfig(ctx: ScanContext, pkg: Pkg, inv: Invocation): Promise<Resolved> {
  const flag = flagValues(inv, '--config', '-c')[0];
  const argv = argvOf(inv);
  if (flag && !flag.trimStart().startsWith('{')) return fromFile(ctx, pkg, joinPath(flag), argv);
  return fromDir(ctx, pkg, '', pkg.json, argv);
}

/** Config of a directory: `jest.config.*`, else its package.json `jest` key, else the defaults. */
async function fromDir(ctx: ScanContext, pkg: Pkg, dir: string, json?: Record<string, unknown>, argv?: string[]): Promise<Resolved> {
  const file = firstExisting(pkg, dir, CONFIG_NAMES);
  if (file) return fromFile(ctx, pkg, file, argv);
  const pj = json ?? (await pkg.read(joinPath(dir, 'package.json')).then((t) => (t ? (parseJsonc(t) as Record<string, unknown> | undefined) : undefined)));
  const key = pj?.jest;
  if (typeof key === 'string') return fromFile(ctx, pkg, joinPath(dir, key), argv);
  return { config: isObject(key) ? key : {}, dir, source: where(pkg, joinPath(dir, 'package.json')) };
}

/** `argv`: the jest command line, which the config sees as `process.argv` (unknown for project configs). */
async function fromFile(ctx: ScanContext, pkg: Pkg, file: string, argv?: string[]): Promise<Resolved> {
  const config = file.endsWith('package.json')
    ? ((await readConfigFile(ctx, pkg, file))?.jest as ConfigObject | undefined)
    : await readConfigFile(ctx, pkg, file, { argv });
  return { config: isObject(config) ? config : {}, dir: dirname(file), source: where(pkg, file) };
}

async function run(ctx: ScanContext, pkg: Pkg, { config: own, dir, source }: Resolved, major: number, depth = 0,
  select: readonly string[] = []): Promise<string[]> {
  const rootDir = joinPath(dir, stringKey(ctx, own, 'rootDir', source) ?? '');
  const config = await withPreset(ctx, pkg, own, rootDir, source);
  const absRoot = absDir(ctx, pkg, rootDir);
  const sub = (s: string): string => s.replaceAll('<rootDir>', absRoot);
  const projects = config.projects;
  if (Array.isArray(projects) && projects.length > 0 && depth === 0) {
    const out = new Set<string>();
    for (const p of await expandProjects(ctx, pkg, projects, rootDir, sub, source)) {
      // `--selectProjects name`: only projects whose displayName (a string or `{ name }`) is named.
      const dn = p.config.displayName;
      const name = typeof dn === 'string' ? dn : isObject(dn) && typeof dn.name === 'string' ? dn.name : undefined;
      if (select.length > 0 && (name === undefined || !select.includes(name))) continue;
      for (const f of await run(ctx, pkg, p, major, 1)) out.add(f);
    }
    return [...out];
  }
  const roots = (stringList(ctx, config, 'roots', source) ?? ['<rootDir>']).map((r) => {
    const s = sub(r);
    return s.startsWith('/') ? s : absDir(ctx, pkg, joinPath(rootDir, s));
  });
  const regex = patternList(ctx, config, 'testRegex', source);
  const matchList = stringList(ctx, config, 'testMatch', source);
  // jest-config's normalize (29 and 30) throws when both are set, a preset's testMatch included.
  if (regex && regex.length > 0 && config.testMatch !== undefined && config.testMatch !== null) {
    const from = own.testMatch === undefined ? ` (testMatch from preset ${String(own.preset)})` : '';
    ctx.note(`${source}: testMatch and testRegex are both set${from}, which Jest refuses ("cannot be used together"); no tests listed`);
    return [];
  }
  const guard = (s: string): RegExp | null => projectRegExp(s, '', (why) => ctx.note(`${source}: regex ${JSON.stringify(s.slice(0, 80))} is not used: ${why}`));
  const testRegex = regex?.map((r) => (typeof r === 'string' ? guard(r) : r)).filter((r): r is RegExp => r !== null) ?? [];
  const matchGlobs = (matchList ?? (major >= 30 ? MATCH_30 : MATCH_29)).flatMap((m) => topLevelAlternatives(ctx, source, m));
  const testMatch = compileGlobs(testRegex.length > 0 ? [] : matchGlobs.map((m) => sub(picomatchGroups(m))), { dot: true });
  const ignores = (stringList(ctx, config, 'testPathIgnorePatterns', source) ?? ['/node_modules/'])
    .concat(stringList(ctx, config, 'modulePathIgnorePatterns', source) ?? [])
    .map((s) => guard(sub(s))).filter((r): r is RegExp => r !== null);
  const exts = new Set(stringList(ctx, config, 'moduleFileExtensions', source) ?? (major >= 30 ? EXT_30 : EXT_29));
  // Perf: one concatenation per candidate onto the package's absolute prefix (not joinPath per file),
  // and each root is reduced to a package-relative prefix test, so files outside every root cost no string.
  const absPkg = absDir(ctx, pkg, '') + '/';
  const rootPrefixes = roots.map((r) => r + '/');
  const relRoots = rootPrefixes.map((r) => (absPkg.startsWith(r) ? '' : r.startsWith(absPkg) ? r.slice(absPkg.length) : null));
  // Perf: Jest's default testMatch takes only a file below a `__tests__` folder or one whose name holds
  // `test` or `spec`; every other file (most of a tree) is passed over before its absolute path is made and
  // matched. Exact while the package's own absolute path holds no `__tests__` (which would match them all).
  const named = testRegex.length === 0 && matchList === undefined && !absPkg.includes('__tests__');
  const out: string[] = [];
  for (const f of pkg.files) {
    if (named && !f.includes('test') && !f.includes('spec')) continue;
    const ext = f.slice(f.lastIndexOf('.') + 1);
    if (!exts.has(ext)) continue;
    if (!relRoots.some((r) => r !== null && f.startsWith(r))) continue;
    const a = absPkg + f;
    if (testRegex.length > 0 ? !testRegex.some((r) => r.test(a)) : !testMatch.match(a)) continue;
    if (ignores.some((r) => r.test(a))) continue;
    out.push(f);
  }
  return out;
}

/** `projects` entries: globs or paths of dirs/config files, or inline config objects. */
async function expandProjects(ctx: ScanContext, pkg: Pkg, entries: Lit[], rootDir: string, sub: (s: string) => string, source: string): Promise<Resolved[]> {
  const out: Resolved[] = [];
  const absRoot = absDir(ctx, pkg, '');
  for (const entry of entries) {
    if (isObject(entry)) { out.push({ config: { rootDir: rootDir || '.', ...entry }, dir: '', source }); continue; }
    if (typeof entry !== 'string') { ctx.note(`${source}: a \`projects\` entry is computed; skipped`); continue; }
    let path = sub(entry);
    path = path.startsWith(absRoot + '/') ? path.slice(absRoot.length + 1) : path === absRoot ? '' : joinPath(rootDir, path);
    const targets = isGlob(path) ? [...pkg.dirs, ...pkg.files].filter((p) => compileGlobs([path]).match(p)).sort() : [path];
    for (const t of targets) {
      if (pkg.dirs.has(t) || t === '') out.push(await fromDir(ctx, pkg, t));
      else if (pkg.has(t)) out.push(await fromFile(ctx, pkg, t));
    }
  }
  return out;
}

function abs(ctx: ScanContext, pkg: Pkg, f: string): string {
  return ctx.root + '/' + joinPath(pkg.dir, f);
}

function absDir(ctx: ScanContext, pkg: Pkg, dir: string): string {
  const d = joinPath(pkg.dir, dir);
  return d === '' ? ctx.root : ctx.root + '/' + d;
}

/**
 * A testMatch glob with a `|` outside any group (`**\/*.spec.js|**\/*.test.js`): picomatch compiles it to
 * one regex whose top-level alternatives are the parts, the first as written and each later one with
 * `**\/` read as a single segment (`[^/]*?\/`), all matched against the absolute path (checked with Jest
 * 30.5: `src/b.test.js` is not listed). The parts are returned in that reading, with a note.
 */
function topLevelAlternatives(ctx: ScanContext, source: string, glob: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') i++;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    else if (c === '|' && depth === 0) { parts.push(glob.slice(from, i)); from = i + 1; }
  }
  if (parts.length === 0) return [glob];
  parts.push(glob.slice(from));
  ctx.note(`${source}: testMatch ${JSON.stringify(glob)} has a \`|\` outside any group; as Jest's matcher reads it, `
    + `each part after the first has \`**/\` as one directory level`);
  return parts.map((p, i) => (i === 0 ? p : p.replace(/\*\*\//g, '*/')));
}

