import type { ScanContext } from '../../../rules/types.ts';
import { compileGlobs, isGlob, picomatchGroups } from '../../../rules/glob.ts';
import { flagValues, hasFlag, positionals } from '../args.ts';
import { argvOf, boolKey, configValue, firstExisting, readConfigFile, readConfigValue, stringKey, stringList, where, type ConfigObject } from '../config/config.ts';
import { isComputed, isObject, type Lit } from '../../../readers/js/literal.ts';
import { depsOf, majorOf, type Pkg, type RunnerRule } from '../types.ts';
import { dirname, joinPath } from '../../../rules/paths.ts';

const EXTS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'];
const CONFIG_NAMES = [...EXTS.map((e) => `vitest.config.${e}`), ...EXTS.map((e) => `vite.config.${e}`)];
const WORKSPACE_NAMES = [...EXTS, 'json'].flatMap((e) => [`vitest.workspace.${e}`, `vitest.projects.${e}`]);
const INCLUDE = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];
const TYPECHECK = ['**/*.{test,spec}-d.?(c|m)[jt]s?(x)'];
const EXCLUDE_4 = ['**/node_modules/**', '**/.git/**'];
const EXCLUDE_3 = ['**/node_modules/**', '**/dist/**', '**/cypress/**', '**/.{idea,git,cache,output,temp}/**',
  '**/{karma,rollup,webpack,vite,vitest,jest,ava,babel,nyc,cypress,tsup,build,eslint,prettier}.config.*'];
const VALUE_FLAGS = new Set(['-c', '--config', '-r', '--root', '--dir', '--project', '--environment', '--pool', '-t', '--testNamePattern', '--reporter', '--shard', '--mode']);

/**
 * Vitest: tinyglobby over `dir || root` with `include`/`exclude` (dot files included), per project
 * when `projects` / `vitest.workspace.*` exist. Positional CLI arguments are substring filters.
 */
export const vitest: RunnerRule = {
  framework: 'vitest',
  async discover(ctx, pkg, inv) {
    const major = majorOf(depsOf(pkg.json).vitest) ?? 4;
    const cfgFlag = flagValues(inv, '--config', '-c')[0];
    const rootFlag = flagValues(inv, '--root', '-r')[0];
    const cwd = joinPath(rootFlag ?? '');
    const file = cfgFlag ? joinPath(cfgFlag) : findUp(pkg, cwd);
    const config = file ? await readConfigFile(ctx, pkg, file, { argv: argvOf(inv) }) : undefined;
    const source = file ? where(pkg, file) : 'vitest defaults';
    const base = { dir: flagValues(inv, '--dir')[0], typecheck: hasFlag(inv, '--typecheck'), major };
    const projects = await projectList(ctx, pkg, config, cwd, source);
    let files: string[];
    if (projects) {
      const all = new Set<string>();
      for (const p of selectProjects(ctx, pkg, projects, flagValues(inv, '--project'))) {
        for (const f of await globProject(ctx, pkg, p.config, p.root, p.source, base)) all.add(f);
      }
      files = [...all];
    } else {
      files = await globProject(ctx, pkg, config, cwd, source, base);
    }
    const filters = positionals(inv, VALUE_FLAGS).map((p) => p.arg.replace(/^\.\//, '')).filter((a) => a !== 'run' && a !== 'watch' && a !== 'dev');
    return filters.length > 0 ? files.filter((f) => filters.some((x) => f.includes(x))) : files;
  },
};

/**
 * The projects `--project NAME` selects (several allowed, `*` a wildcard, `!NAME` excludes): a project's
 * name is its `test.name` (or `name.label`), else its root directory's name. A project named by its
 * package.json (which is not read here) or by a computed value is kept, with a note.
 */
function selectProjects(ctx: ScanContext, pkg: Pkg, projects: Project[], selectors: readonly string[]): Project[] {
  if (selectors.length === 0) return projects;
  const matcher = (sel: string): RegExp => new RegExp('^' + sel.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*') + '$');
  const wanted = selectors.filter((x) => !x.startsWith('!')).map(matcher);
  const unwanted = selectors.filter((x) => x.startsWith('!')).map((x) => matcher(x.slice(1)));
  return projects.filter((p) => {
    const name = projectName(pkg, p);
    if (name === undefined) { ctx.note(`${p.source}: a project's name is computed; kept for --project ${selectors.join(' ')}`); return true; }
    return (wanted.length === 0 || wanted.some((re) => re.test(name))) && !unwanted.some((re) => re.test(name));
  });
}

function projectName(pkg: Pkg, p: Project): string | undefined {
  const test = isObject(p.config) ? p.config.test : undefined;
  const name = isObject(test) ? test.name : undefined;
  if (typeof name === 'string') return name;
  if (isObject(name)) return typeof name.label === 'string' ? name.label : undefined;
  if (name !== undefined) return undefined;
  return p.root === '' || pkg.has(`${p.root}/package.json`) ? undefined : p.root.slice(p.root.lastIndexOf('/') + 1);
}

function findUp(pkg: Pkg, dir: string): string | undefined {
  // The walk upward stops at the package root: above it lies another package's territory.
  for (let d = dir; ; d = dirname(d)) {
    const hit = firstExisting(pkg, d, CONFIG_NAMES);
    if (hit || d === '') return hit;
  }
}

interface Project { config: Lit | undefined; root: string; source: string }

/** `test.projects` / `test.workspace` / a `vitest.workspace.*` file, or null when there are none. */
async function projectList(ctx: ScanContext, pkg: Pkg, config: Lit | undefined, root: string, source: string): Promise<Project[] | null> {
  let entries: Lit | undefined;
  let from = source;
  const test = isObject(config) ? config.test : undefined;
  if (isObject(test)) entries = test.projects ?? test.workspace;
  if (entries === undefined) {
    const ws = firstExisting(pkg, root, WORKSPACE_NAMES);
    if (ws) {
      entries = await readConfigValue(ctx, pkg, ws);
      from = where(pkg, ws);
    }
  }
  if (entries === undefined) return null;
  if (!Array.isArray(entries)) { ctx.note(`${from}: projects list is computed; used the root config alone`); return null; }
  const out: Project[] = [];
  for (const e of entries) {
    if (isObject(e)) {
      const r = typeof e.root === 'string' ? joinPath(root, e.root) : root;
      // `extends: true` inherits the root config; a string is a config file's path from the config's
      // directory, never a package name (vitest 3.2 `resolve(configRoot, options.extends)`).
      let parent: Lit | undefined = e.extends === true ? config : undefined;
      if (typeof e.extends === 'string') parent = await extendsFile(ctx, pkg, joinPath(root, e.extends), e.extends, from);
      out.push({ config: parent !== undefined ? merge(parent, e) : e, root: r, source: from });
    } else if (typeof e === 'string') {
      const path = joinPath(root, e.replaceAll('<rootDir>', '.'));
      const hits = isGlob(path) ? [...pkg.dirs, ...pkg.files].filter((p) => compileGlobs([path], { dot: true }).match(p) && !p.includes('node_modules/')).sort() : [path];
      for (const h of hits) {
        if (pkg.dirs.has(h) || h === '') {
          const cfg = firstExisting(pkg, h, CONFIG_NAMES);
          out.push({ config: cfg ? await readConfigFile(ctx, pkg, cfg) : undefined, root: h, source: cfg ? where(pkg, cfg) : from });
        } else if (pkg.has(h) && /(^|\/)(vitest|vite)(\.[\w-]+)?\.config\.[cm]?[jt]s$/.test(h)) {
          out.push({ config: await readConfigFile(ctx, pkg, h), root: dirname(h), source: where(pkg, h) });
        }
      }
    } else if (isComputed(e)) ctx.note(`${from}: a project entry is computed; skipped`);
  }
  return out;
}

/** The config a project's `extends` path names (a file under node_modules too), or undefined, noted. */
async function extendsFile(ctx: ScanContext, pkg: Pkg, file: string, written: string, from: string): Promise<Lit | undefined> {
  if (pkg.has(file)) return readConfigFile(ctx, pkg, file);
  const rel = joinPath(pkg.dir, file);
  const hit = /(^|\/)node_modules\//.test(rel) ? await ctx.readPackage(rel) : undefined;
  if (hit) {
    ctx.note(`${from}: a project extends ${written}, read from ${hit.path}`);
    const value = await configValue(ctx, hit.text, hit.path, pkg.dir, hit.path);
    return isObject(value) ? value : undefined;
  }
  const why = /^[@\w]/.test(written) && !written.includes('.') ? ' (Vitest reads `extends` as a path from the config\'s directory, not as a package name)' : '';
  ctx.note(`${from}: a project extends ${written}, which does not exist${why}; its keys are not applied`);
  return undefined;
}

function merge(parent: Lit | undefined, child: { [key: string]: Lit }): Lit {
  const pt = isObject(parent) && isObject(parent.test) ? parent.test : {};
  const ct = isObject(child.test) ? child.test : {};
  return { ...child, test: { ...pt, ...ct } };
}

async function globProject(ctx: ScanContext, pkg: Pkg, config: Lit | undefined, root: string,
  source: string, base: { dir: string | undefined; typecheck: boolean; major: number }): Promise<string[]> {
  const dir = joinPath(root, base.dir ?? stringKey(ctx, config, 'test.dir', source) ?? '');
  const include = stringList(ctx, config, 'test.include', source) ?? INCLUDE;
  const exclude = readExclude(ctx, config, source, base.major);
  const typecheck = base.typecheck || boolKey(ctx, config, 'test.typecheck.enabled', source) === true;
  const only = typecheck && boolKey(ctx, config, 'test.typecheck.only', source) === true;
  const patterns = [...(only ? [] : include), ...(typecheck ? stringList(ctx, config, 'test.typecheck.include', source) ?? TYPECHECK : [])];
  const inSource = stringList(ctx, config, 'test.includeSource', source) ?? [];
  const match = compileGlobs(patterns.map(clean), { dot: true });
  const matchSource = compileGlobs(inSource.map(clean), { dot: true });
  const skip = compileGlobs(exclude.map(clean), { dot: true });
  const prefix = dir === '' ? '' : dir + '/';
  // Perf: Vitest's default include (and typecheck include) takes only names holding `test` or `spec`: other
  // files are passed over before any matching. A file the include does not take, with no includeSource, is
  // not run through the excludes (most of a tree; Vitest 3 has 19 of them).
  const named = inSource.length === 0 && patterns.every((p) => p === INCLUDE[0] || p === TYPECHECK[0]);
  const out: string[] = [];
  for (const f of pkg.files) {
    if (named && !f.includes('test') && !f.includes('spec')) continue;
    if (prefix && !f.startsWith(prefix)) continue;
    const r = f.slice(prefix.length);
    const included = match.match(r);
    if (!included && inSource.length === 0) continue;
    if (skip.match(r)) continue;
    if (included) out.push(f);
    else if (inSource.length > 0 && matchSource.match(r) && (await pkg.read(f))?.includes('import.meta.vitest')) out.push(f);
  }
  return out;
}

/** `exclude` replaces the default; a spread of `configDefaults.exclude` puts the default back. */
function readExclude(ctx: ScanContext, config: Lit | undefined, source: string, major: number): string[] {
  const defaults = major <= 3 ? EXCLUDE_3 : EXCLUDE_4;
  const test = isObject(config) && isObject(config.test) ? config.test : undefined;
  const value = test?.exclude;
  if (!Array.isArray(value)) return stringList(ctx, config, 'test.exclude', source) ?? defaults;
  const out: string[] = [];
  for (const v of value) {
    if (typeof v === 'string') out.push(v);
    else if (isComputed(v) && v.spread && /(configDefaults|defaultExclude)/.test(v.computed)) out.push(...defaults);
    else ctx.note(`${source}: part of \`test.exclude\` is computed; it was left out`);
  }
  return out;
}

const clean = (p: string): string => picomatchGroups(p.replace(/^\.\//, ''));
