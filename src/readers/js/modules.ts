/**
 * The static evaluator's entry point: evaluates a JS/TS config module without running it. Local imports
 * and requires (relative paths, `.js/.cjs/.mjs/.ts/.json`, `index.*`) are read and evaluated the same way,
 * with a depth cap, a module-count cap and a cycle guard; a package import is unknown except for the
 * config helpers every runner ships (`defineConfig`, `mergeConfig`, ...) and Node's `path`/`url`.
 * Bounded: a source size cap, a step cap and a nesting cap; past them the answer is unknown, with a note.
 *
 * Its parts, each importing only parts before it: tokens, lit, values, cursor, builtins, functions,
 * literals, calls, expressions, statements, top, this file. Parts below expressions are handed the
 * expression reader as a parameter; the one way back up is `env.invoke` (values.ts): an expression that
 * calls a function written in the config runs that function's body as statements.
 */

import { isComputed, isRegex, type Lit } from './lit.ts';
import { parseJsonc } from '../jsonc.ts';
import { tokenize } from './tokens.ts';
import {
  builtinModule, dirOf, identityHelper, mergeConfig, normalize, objectStatics, pathModule, urlCtor,
} from './builtins.ts';
import { callFn } from './statements.ts';
import {
  BudgetError, createBudget, isFn, native, processEnv, toLit, unknown, type Env, type Obj, type Val,
} from './values.ts';
import { runTopLevel, type ModuleRecord } from './top.ts';

export interface EvalOptions {
  /** Absolute path of the config file; `cwd` is the directory the test command runs in. */
  readonly file: string;
  readonly cwd: string;
  /** Reads an absolute path (undefined when absent or outside what may be read). */
  read(path: string): Promise<string | undefined>;
  /** Values of package modules the caller knows (presets: `kcd-scripts/jest`), by specifier. */
  readonly known?: Readonly<Record<string, Lit>>;
  /**
   * Finds the module a bare specifier (`@org/jest-config`) names, as seen from directory `fromDir`
   * (absolute): its absolute path and text, or undefined to leave it unknown. The caller decides which
   * packages are worth reading and how (readers know nothing of node_modules). A `known` value wins.
   */
  readonly resolvePackage?: (
    spec: string,
    fromDir: string,
  ) => Promise<{ path: string; text: string } | undefined>;
  /**
   * The runner's command line (`['node', 'vitest', '--run']`) as the config sees it in `process.argv`;
   * unknown when not given.
   */
  readonly argv?: readonly string[];
  /**
   * What an exported function is called with (Karma's `module.exports = (config) => config.set({...})` is
   * handed an object whose `set` records); none by default, as Jest and Vitest call a config function.
   */
  readonly exportArgs?: readonly Val[];
}

export interface EvalResult {
  /** The module's export (`export default`, else `module.exports`), or undefined when none was found. */
  readonly value: Lit | undefined;
  /** Assumptions and unknowns met on the way, deduplicated, in order. */
  readonly notes: string[];
  /** Absolute paths of every module read (the config first). */
  readonly files: string[];
}

/** How far imports are followed, how many modules and how large one may be: real configs stay well under. */
const MAX_IMPORT_DEPTH = 4;
const MAX_MODULES = 24;
const MAX_BYTES = 256 * 1024;

const EXTS = [
  '', '.ts', '.js', '.mjs', '.cjs', '.mts', '.cts', '.json',
  '/index.ts', '/index.js', '/index.mjs', '/index.cjs',
];
const HELPERS: Record<string, 'identity' | 'merge'> = { mergeConfig: 'merge', merge: 'merge' };

/**
 * Evaluates a config module's export statically.
 *
 * @example
 * await evaluateModule(
 *   "const base = { testDir: 'e2e' };\nexport default { ...base, retries: 1 }",
 *   { file: '/p/x.mjs', cwd: '/p', read },
 * )
 * // { value: { testDir: 'e2e', retries: 1 }, notes: [], files: ['/p/x.mjs'] }
 */
export async function evaluateModule(src: string, opts: EvalOptions): Promise<EvalResult> {
  const notes = new Set<string>();
  const note = (m: string): void => { notes.add(m); };
  const budget = createBudget();
  const sources = new Map<string, string>();
  const links = new Map<string, Map<string, string>>();
  sources.set(opts.file, src);
  await loadGraph(src, opts, sources, links, note);
  const records = new Map<string, ModuleRecord | 'loading'>();
  const evaluate = (file: string): ModuleRecord | undefined => {
    const seen = records.get(file);
    if (seen === 'loading') {
      note(`${short(opts, file)}: imports itself in a cycle; that value is unknown`);
      return undefined;
    }
    if (seen) return seen;
    records.set(file, 'loading');
    const text = sources.get(file)!;
    const rec: ModuleRecord = { named: Object.create(null), exports: undefined, default: undefined };
    if (file.endsWith('.json')) rec.exports = parseJsonc(text) as Val;
    else {
      const env = makeEnv(file, text);
      runTopLevel({ env, pos: 0 }, { vars: globals(env, opts.argv) }, rec);
    }
    records.set(file, rec);
    return rec;
  };
  const makeEnv = (file: string, text: string): Env => {
    const local = links.get(file) ?? new Map<string, string>();
    const moduleOf = (spec: string, text: string, as: 'value' | 'namespace'): Val => {
      const target = local.get(spec);
      if (target) {
        const rec = evaluate(target);
        if (!rec) return unknown(text);
        if (as === 'namespace') {
          return rec.exports !== undefined && !rec.default
            ? withDefault(rec.exports)
            : { ...rec.named, ...(rec.default !== undefined ? { default: rec.default as Lit } : {}) };
        }
        return rec.exports ?? rec.default ?? rec.named;
      }
      const known = opts.known?.[spec];
      if (known !== undefined) return as === 'namespace' ? withDefault(known) : known;
      const builtin = builtinModule(spec, opts.cwd);
      if (builtin) return as === 'namespace' ? builtin : builtin.default;
      if (/^\.\.?\//.test(spec)) {
        note(`${short(opts, file)}: ${spec} could not be read; its value is unknown`);
        return unknown(text);
      }
      return packageModule(spec);
    };
    return {
      toks: tokenize(text), src: text, file, cwd: opts.cwd, budget, note, dry: 0,
      load: (spec, t) => moduleOf(spec, t, 'value'),
      namespace: (spec, t) => moduleOf(spec, t, 'namespace'),
      resolvePath: (spec) => local.get(spec),
      invoke: callFn,
    };
  };
  try {
    const rec = evaluate(opts.file);
    let value = rec ? (rec.default ?? rec.exports) : undefined;
    // Jest and Vitest accept a config function (`module.exports = async () => ({...})`): it is called with
    // no arguments.
    if (isFn(value) && value.fn) value = callFn(value.fn, [...(opts.exportArgs ?? [])]);
    return {
      value: value === undefined ? undefined : toLit(value),
      notes: [...notes],
      files: [...sources.keys()],
    };
  } catch (e) {
    if (!(e instanceof BudgetError)) throw e;
    note(`${short(opts, opts.file)}: ${e.message}; read nothing from it`);
    return { value: undefined, notes: [...notes], files: [...sources.keys()] };
  }
}

function withDefault(v: Val): Val {
  return { default: (v ?? null) as Lit };
}

function short(opts: EvalOptions, file: string): string {
  return file.startsWith(opts.cwd + '/') ? file.slice(opts.cwd.length + 1) : file;
}

/** A package's module: unknown, except the config helpers it is known to export. */
function packageModule(spec: string): Val {
  const members: Obj = Object.create(null);
  for (const name of HELPER_NAMES) members[name] = helper(name) as Lit;
  return { computed: spec, members } as unknown as Val;
}

const HELPER_NAMES = ['defineConfig', 'defineProject', 'defineWorkspace', 'defineJestConfig', 'mergeConfig'];

/** The value a package export named `name` is known to have, or undefined. */
function helper(name: string): Val {
  if (/^define[A-Z]\w*$/.test(name)) {
    return identityHelper(name, (f, a) => (f.fn ? callFn(f.fn, a) : unknown(name)));
  }
  if (HELPERS[name] === 'merge') return mergeConfig;
  return undefined;
}

function globals(env: Env, argv: readonly string[] | undefined): Map<string, Val> {
  const { file, cwd } = env;
  const vars = new Map<string, Val>();
  const resolvePath = native('require.resolve', (a, t) => (
    typeof a[0] === 'string' ? env.resolvePath(a[0]) ?? unknown(t) : unknown(t)));
  vars.set('require', {
    computed: 'require',
    native: (a: Val[], t: string) => (typeof a[0] === 'string' ? env.load(a[0], t) : unknown(t)),
    members: { resolve: resolvePath },
  } as unknown as Val);
  vars.set('__dirname', dirOf(file));
  vars.set('__filename', file);
  vars.set('process', {
    env: processEnv(),
    cwd: native('process.cwd', () => cwd),
    platform: unknown('process.platform'),
    argv: argv ? [...argv] : unknown('process.argv'),
  } as unknown as Lit);
  vars.set('Object', objectStatics);
  vars.set('URL', urlCtor);
  vars.set('Boolean', native('Boolean', (a) =>
    !(a[0] === undefined || a[0] === null || a[0] === false || a[0] === 0 || a[0] === '')));
  vars.set('String', native('String', (a, t) => (
    typeof a[0] === 'string' || typeof a[0] === 'number' ? String(a[0]) : unknown(t))));
  vars.set('Array', {
    isArray: native('Array.isArray', (a, t) => (isComputed(a[0]) ? unknown(t) : Array.isArray(a[0]))),
  });
  vars.set('path', pathModule(cwd));
  for (const name of HELPER_NAMES) vars.set(name, helper(name));
  return vars;
}

/** Reads every local module the config reaches (breadth first, capped), keyed by absolute path. */
async function loadGraph(
  src: string,
  opts: EvalOptions,
  sources: Map<string, string>,
  links: Map<string, Map<string, string>>,
  note: (m: string) => void,
): Promise<void> {
  let queue: Array<[file: string, text: string]> = [[opts.file, src]];
  const seen = new Set([opts.file]);
  for (let depth = 0; queue.length > 0; depth++) {
    const next: Array<[string, string]> = [];
    for (const [file, text] of queue) {
      const specs = importSpecs(text);
      const map = new Map<string, string>();
      links.set(file, map);
      for (const spec of specs) {
        const local = /^\.\.?(\/|$)/.test(spec);
        if (
          !local
          && (!opts.resolvePackage || opts.known?.[spec] !== undefined || builtinModule(spec, opts.cwd))
        ) {
          continue;
        }
        if (depth >= MAX_IMPORT_DEPTH) {
          note(`${short(opts, file)}: imports nested deeper than ${MAX_IMPORT_DEPTH} were not followed`);
          continue;
        }
        const found = await resolve(opts, dirOf(file), spec, local, sources);
        if (!found) continue;
        map.set(spec, found.path);
        if (seen.has(found.path)) continue;
        if (seen.size >= MAX_MODULES) {
          note(`${short(opts, file)}: more than ${MAX_MODULES} modules; ${spec} was not followed`);
          map.delete(spec);
          continue;
        }
        if (found.text.length > MAX_BYTES) {
          note(`${short(opts, found.path)}: larger than ${MAX_BYTES} bytes; not read`);
          map.delete(spec);
          continue;
        }
        seen.add(found.path);
        sources.set(found.path, found.text);
        next.push([found.path, found.text]);
      }
    }
    queue = next;
  }
}

/**
 * Specifiers of `import ... from 'x'`, `import 'x'`, `require('x')`, `require.resolve('x')`,
 * `export ... from 'x'`.
 */
function importSpecs(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/\b(?:from|import|require(?:\.resolve)?\s*\()\s*(['"])([^'"\n]{1,300})\1/g)) {
    out.add(m[2]!);
  }
  return [...out];
}

async function resolve(opts: EvalOptions, dir: string, spec: string, local: boolean,
  known: ReadonlyMap<string, string>): Promise<{ path: string; text: string } | undefined> {
  if (!local) return opts.resolvePackage?.(spec, dir);
  const base = normalize(dir + '/' + spec);
  const candidates = EXTS.map((e) => base + e);
  // TypeScript ESM writes `./shared.js` for `./shared.ts`.
  if (/\.[cm]?js$/.test(base)) candidates.push(base.replace(/\.([cm]?)js$/, '.$1ts'));
  for (const path of candidates) {
    const text = known.get(path) ?? await opts.read(path);
    if (text !== undefined) return { path, text };
  }
  return undefined;
}
