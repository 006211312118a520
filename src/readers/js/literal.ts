/**
 * Static queries over one JS/TS source, answered by the evaluator's own expression reader
 * (expressions.ts) in a closed world: the exported config (`module.exports =`, `export default`,
 * `defineConfig({...})`, a `const config = {...}` exported by name), a declaration's value, every object
 * under given keys anywhere in the file, and the calls of given functions with their arguments.
 *
 * The closed world is what the callers rely on: values are read where they stand, with no name resolved
 * (`port: PORT` stays `{ computed: 'PORT' }` for the caller to look up with `declared`), no import read
 * and no function run; only `define*`/`mergeConfig` calls merge their object arguments (arrays replaced,
 * as the callers expect). `objectsUnder` finds `server: {...}` in code that may never run (a function
 * body, a branch), which whole-module evaluation (modules.ts) by design does not visit. Anything not
 * known is a `Computed` carrying its source text, so callers can fall back to a default and say why.
 */

import { MAX_DEPTH, noteLimit } from '../budget.ts';
import { tokenize, type Tok } from './tokens.ts';
import { skipExpr, type Cur } from './cursor.ts';
import { expr } from './expressions.ts';
import { isComputed, isObject, type Lit } from './lit.ts';
import { BudgetError, createBudget, native, toLit, type Env, type Scope, type Val } from './values.ts';

export { getKey, isComputed, isObject, isRegex, type Computed, type Lit, type RegexLit } from './lit.ts';

/** Config helpers whose call is read as the merge of its object arguments. */
const MERGING_HELPER = /^define[A-Z]\w*$|^mergeConfig$/;

/**
 * Reads one value at a time: each read is an expression of the evaluator, with its own step budget so
 * one hostile value cannot starve the rest, in a scope that knows only the merging helpers.
 */
function createValueReader(src: string, toks: readonly Tok[]) {
  const vars = new Map<string, Val>();
  for (let i = 0; i + 1 < toks.length; i++) {
    const tok = toks[i]!;
    if (tok.kind === 'id' && toks[i + 1]!.t === '(' && MERGING_HELPER.test(tok.t)) {
      vars.set(tok.t, native(tok.t, mergeArguments));
    }
  }
  const scope: Scope = { vars };
  const closedWorld = (text: string): Val => ({ computed: text });
  const base: Omit<Env, 'budget' | 'dry'> = {
    toks, src, file: '', cwd: '', note: () => {},
    load: (_spec, text) => closedWorld(text),
    namespace: (_spec, text) => closedWorld(text),
    resolvePath: () => undefined,
    invoke: () => closedWorld('call'),
  };
  /** The value of the expression at token `pos` and the token index after it. */
  return (pos: number): { value: Lit; end: number } => {
    const c: Cur = { env: { ...base, budget: createBudget(), dry: 0 }, pos };
    try {
      let value = expr(c, scope);
      // `a = b = value` (`var app = module.exports = express()`): an assignment's value is its right side.
      while (toks[c.pos]?.t === '=' && toks[c.pos + 1]?.t !== '=') { c.pos++; value = expr(c, scope); }
      return { value: toLit(value), end: Math.max(c.pos, pos) };
    } catch (e) {
      if (!(e instanceof BudgetError)) throw e;
      c.pos = pos;
      skipExpr(c);
      const a = toks[pos]?.start ?? 0;
      return { value: { computed: src.slice(a, toks[c.pos - 1]?.end ?? a).trim() }, end: c.pos };
    }
  };
}

/** `defineConfig({...})`, `mergeConfig(base, {...})`: object arguments merged left to right. */
function mergeArguments(args: Val[]): Val {
  let merged: { [key: string]: Lit } | undefined;
  let computedArgs = false;
  let array: Lit[] | undefined;
  for (const v of args) {
    if (isObject(v)) merged = merged ? mergeDeep(merged, v) : v;
    else if (Array.isArray(v)) array = v;
    else computedArgs = true;
  }
  // `defineWorkspace([...])` wraps a list.
  if (!merged) return array ?? { computed: 'call' };
  if (computedArgs) merged['...base'] = { computed: 'merged with a computed config' };
  return merged;
}

function mergeDeep(a: { [key: string]: Lit }, b: { [key: string]: Lit }): { [key: string]: Lit } {
  const out: { [key: string]: Lit } = Object.assign(Object.create(null), a);
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = isObject(prev) && isObject(v) ? mergeDeep(prev, v) : v;
  }
  return out;
}

const EXPORTS = /\bmodule\.exports\s*=\s*|\bexport\s+default\s+|\bexports\.default\s*=\s*/g;
const DECLARE = new Set(['const', 'let', 'var']);

/** What can be read statically from one JS/TS source; it is tokenized once. */
export interface LiteralReader {
  /** The exported config, as literals where possible; `undefined` when no export was found. */
  exported(): Lit | undefined;
  /** The value assigned by the first `const|let|var name ... =` (a type annotation may sit between). */
  declared(name: string): Lit | undefined;
  /** Every `key: {...}` or `key: () => ({...})` object literal, in source order, for the given keys. */
  objectsUnder(keys: readonly string[]): Array<readonly [key: string, object: { [key: string]: Lit }]>;
  /**
   * Every call of a function named in `names` (`execSync(...)`, `spawn.sync(...)`, `shell.exec(...)`), in
   * source order: the callee as written (the name with the object before it, if any) and its arguments,
   * an identifier argument replaced by its declared value when it has one.
   */
  callsOf(names: ReadonlySet<string>): Array<{ readonly callee: string; readonly args: Lit[] }>;
}

/**
 * Reads a JS/TS source without running it; strings and comments never match a declaration or key.
 *
 * @example
 * const reader = createLiteralReader('const P = 5180;\nexport default { server: { port: P } }');
 * reader.objectsUnder(['server']); // [['server', { port: { computed: 'P' } }]]
 * reader.declared('P'); // 5180
 */
export function createLiteralReader(src: string): LiteralReader {
  const toks = tokenize(src);
  if (tokensTooDeep(toks)) {
    // The parser recurses per bracket: a file nested deeper than any real config is not read at all.
    noteLimit(`a JS/TS config nests deeper than ${MAX_DEPTH} brackets; it was not read`);
    return {
      exported: () => undefined, declared: () => undefined, objectsUnder: () => [], callsOf: () => [],
    };
  }
  const readAt = createValueReader(src, toks);

  const declared = (name: string): Lit | undefined => {
    for (let i = 0; i + 1 < toks.length; i++) {
      if (
        toks[i]!.kind !== 'id' || !DECLARE.has(toks[i]!.t)
        || toks[i + 1]!.t !== name || toks[i + 1]!.kind !== 'id'
      ) continue;
      let eq = i + 2;
      while (eq < toks.length && toks[eq]!.t !== '=') eq++;
      if (eq === toks.length) return undefined;
      return readAt(eq + 1).value;
    }
    return undefined;
  };

  const exported = (): Lit | undefined => {
    let found: Lit | undefined;
    for (const m of src.matchAll(EXPORTS)) {
      const offset = m.index + m[0].length;
      const at = toks.findIndex((t) => t.start >= offset);
      found = at === -1 ? { computed: '' } : readAt(at).value;
      // `export default config` / `module.exports = config`: follow one declaration of that name.
      if (isComputed(found) && /^[A-Za-z_$][\w$]*$/.test(found.computed)) {
        const value = declared(found.computed);
        if (value !== undefined) found = value;
      }
    }
    return found;
  };

  const objectsUnder = (keys: readonly string[]): Array<readonly [string, { [key: string]: Lit }]> => {
    const wanted = new Set(keys);
    const out: Array<readonly [string, { [key: string]: Lit }]> = [];
    for (let i = 0; i + 2 < toks.length; i++) {
      const tok = toks[i]!;
      if (
        tok.kind !== 'id' || !wanted.has(tok.t) || toks[i + 1]!.t !== ':'
        || toks[i - 1]?.t === '.' || toks[i - 1]?.t === '?.'
      ) continue;
      let open = i + 2;
      if (toks[open]!.t === '(' && toks[open + 1]?.t === ')' && toks[open + 2]?.t === '=>') {
        open += toks[open + 3]?.t === '(' ? 4 : 3;
      }
      if (toks[open]?.t !== '{') continue;
      const { value } = readAt(open);
      if (isObject(value)) out.push([tok.t, value]);
    }
    return out;
  };

  const callsOf = (names: ReadonlySet<string>): Array<{ callee: string; args: Lit[] }> => {
    const out: Array<{ callee: string; args: Lit[] }> = [];
    // Each name is looked up once, and only so many: a lookup is a pass over the tokens.
    const known = new Map<string, Lit | undefined>();
    const lookUp = (name: string): Lit | undefined => {
      if (!known.has(name) && known.size < MAX_NAMES) known.set(name, declared(name));
      return known.get(name);
    };
    for (let i = 0; i + 1 < toks.length && out.length < MAX_CALLS; i++) {
      const tok = toks[i]!;
      if (tok.kind !== 'id' || !names.has(tok.t) || toks[i + 1]!.t !== '(' || toks[i - 1]?.t === 'function') {
        continue;
      }
      // A method of something other than a plain name (`/re/.exec(s)`, `a().exec()`) reads as `?.name`.
      const dotted = toks[i - 1]?.t === '.' || toks[i - 1]?.t === '?.';
      const object = dotted ? (toks[i - 2]?.kind === 'id' ? toks[i - 2]!.t : '?') : '';
      const args: Lit[] = [];
      let at = i + 2;
      for (let n = 0; n < MAX_ARGS && at < toks.length && toks[at]!.t !== ')'; n++) {
        const { value, end } = readAt(at);
        const named = isComputed(value) && /^[A-Za-z_$][\w$]*$/.test(value.computed)
          && value.computed !== tok.t
          ? lookUp(value.computed)
          : undefined;
        args.push(named ?? value);
        at = nextItem(toks, at, end);
      }
      out.push({ callee: dotted ? `${object}.${tok.t}` : tok.t, args });
    }
    return out;
  };

  return { exported, declared, objectsUnder, callsOf };
}

/**
 * The index after the list item that began at `from` and was read up to `end`: past its `,`, or at the
 * list's `)`; what the reader left unread (`a b`) is skipped, and the cursor always moves.
 */
function nextItem(toks: readonly Tok[], from: number, end: number): number {
  const c = { env: { toks, src: '' }, pos: end };
  if (toks[c.pos]?.t !== ',' && toks[c.pos]?.t !== ')') skipExpr(c);
  if (toks[c.pos]?.t === ',') return c.pos + 1;
  return c.pos === from ? from + 1 : c.pos;
}

const MAX_CALLS = 256;
const MAX_NAMES = 32;
const MAX_ARGS = 8;

function tokensTooDeep(toks: readonly Tok[]): boolean {
  let depth = 0;
  for (const { t, kind } of toks) {
    if (kind === 'str') continue;
    if (t === '(' || t === '[' || t === '{') {
      if (++depth > MAX_DEPTH) return true;
    } else if ((t === ')' || t === ']' || t === '}') && depth > 0) depth--;
  }
  return false;
}

/**
 * The exported config of a JS/TS module, as literals where possible; `undefined` when no export was found.
 *
 * @example
 * readConfigText('export default defineConfig({ test: { include: ["src/**\/*.test.ts"] } })');
 * // { test: { include: ['src/**\/*.test.ts'] } }
 */
export function readConfigText(src: string): Lit | undefined {
  return createLiteralReader(src).exported();
}
