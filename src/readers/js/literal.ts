/**
 * The static JS reader: reads JS/TS config text without running anything. It finds the exported config
 * object (`module.exports =`, `export default`, `defineConfig({...})`, a `const config = {...}` exported
 * by name), a declaration's value, or every object under given keys anywhere in the file, and parses
 * their literal parts. Anything that is not a literal (calls, identifiers, templates with `${}`, spreads
 * of unknown values) becomes a `Computed` node carrying its source text, so callers can fall back to a
 * default and say why. Ports use it for dev-server `port` keys.
 *
 * Why it stands beside the evaluator (modules.ts) instead of over it: a different contract, which its
 * callers rely on. It is synchronous and never follows a name, an import or a call: `port: PORT` stays
 * `{ computed: 'PORT' }` for the caller to look up with `declared`, where the evaluator would resolve,
 * read imported files (async) and run functions. `objectsUnder` finds `server: {...}` in code that may
 * never run (a function body, a branch), which evaluation by design does not visit. Its merge of
 * `defineConfig`/`mergeConfig` arguments replaces arrays where Vite's (the evaluator's) concatenates.
 * What the two share is below the contract: the tokens (tokens.ts), the cursor (cursor.ts: peek, eat,
 * skipping code) and the values they give (lit.ts: `Lit`, `getKey`, which callers import from here).
 */

import { MAX_DEPTH, noteLimit } from '../budget.ts';
import { tokenize, type Tok } from './tokens.ts';
import { eat, peek, skipExpr, tokAt, type TokenCursor } from './cursor.ts';
import { isComputed, isObject, tokenLiteral, type Computed, type Lit } from './lit.ts';

export { getKey, isComputed, isObject, isRegex, type Computed, type Lit, type RegexLit } from './lit.ts';

const CLOSERS = new Set([',', '}', ']', ')', ';']);

/** A recursive-descent reader over the token list; the cursor advances past what it parsed. */
function createParser(src: string, toks: Tok[]) {
  const c: TokenCursor = { env: { toks, src }, pos: 0 };

  const computedFrom = (from: number): Computed => {
    skipExpr(c);
    const a = toks[from]?.start ?? 0;
    const b = toks[c.pos - 1]?.end ?? a;
    return { computed: src.slice(a, b).trim() };
  };

  const parseValue = (): Lit => {
    const from = c.pos;
    const tok = tokAt(c);
    if (!tok) return { computed: '' };
    let value: Lit | undefined = tokenLiteral(tok);
    if (value !== undefined) c.pos++;
    else if (tok.t === 'true' || tok.t === 'false') { c.pos++; value = tok.t === 'true'; }
    else if (tok.t === 'null' || tok.t === 'undefined') { c.pos++; value = null; }
    else if (tok.t === '[' ) value = parseArray();
    else if (tok.t === '{') value = parseObject();
    else if (tok.kind === 'id' && peek(c, 1) === '(' && /^define[A-Z]\w*$|^mergeConfig$/.test(tok.t)) value = parseCall();
    else if (eat(c, '(')) { const inner = parseValue(); if (eat(c, ')')) value = inner; else c.pos = from; }
    if (value === undefined) return computedFrom(from);
    // `[...] as const` and `{...} satisfies Config` keep their value; any other continuation is computed.
    const next = peek(c);
    if (next === 'as' || next === 'satisfies') { skipExpr(c); return value; }
    if (next !== undefined && !CLOSERS.has(next)) { c.pos = from; return computedFrom(from); }
    return value;
  };

  const parseArray = (): Lit[] => {
    const out: Lit[] = [];
    c.pos++;
    while (c.pos < toks.length && peek(c) !== ']') {
      const at = c.pos;
      if (eat(c, '...')) { const v = parseValue(); out.push(isComputed(v) ? { computed: v.computed, spread: true } : v); }
      else out.push(parseValue());
      endItem(']', at);
    }
    c.pos++;
    return out;
  };

  /** Consumes the `,` after a list item; guarantees progress on malformed input. */
  const endItem = (close: string, at: number): void => {
    if (peek(c) !== ',' && peek(c) !== close) skipExpr(c);
    if (!eat(c, ',') && (c.pos === at || (peek(c) !== undefined && peek(c) !== close))) c.pos++;
  };

  const parseObject = (): { [key: string]: Lit } => {
    const out: { [key: string]: Lit } = Object.create(null);
    c.pos++;
    while (c.pos < toks.length && peek(c) !== '}') {
      const at = c.pos;
      const tok = tokAt(c)!;
      if (eat(c, '...')) { const v = parseValue(); out[`...${spreadCount(out)}`] = isComputed(v) ? v : { computed: 'spread' }; }
      else if (tok.kind === 'id' || tok.kind === 'str' || tok.kind === 'num') {
        c.pos++;
        const key = tok.kind === 'str' ? tok.value! : tok.t;
        if (eat(c, ':')) out[key] = parseValue();
        else if (peek(c) === '(') { skipExpr(c); out[key] = { computed: `${key}()` }; }
        else out[key] = { computed: key };
      } else if (tok.t === '[') { const from = c.pos; out[`[computed${c.pos}]`] = computedFrom(from); }
      else skipExpr(c);
      endItem('}', at);
    }
    c.pos++;
    return out;
  };

  /** `defineConfig({...})`, `mergeConfig(base, {...})`: object arguments merged left to right. */
  const parseCall = (): Lit => {
    c.pos += 2;
    let merged: { [key: string]: Lit } | undefined;
    let computedArgs = false;
    let array: Lit[] | undefined;
    while (c.pos < toks.length && peek(c) !== ')') {
      const at = c.pos;
      const v = parseValue();
      if (isObject(v)) merged = merged ? mergeDeep(merged, v) : v;
      else if (Array.isArray(v)) array = v;
      else computedArgs = true;
      endItem(')', at);
    }
    c.pos++;
    // `defineWorkspace([...])` wraps a list.
    if (!merged) return array ?? { computed: 'call' };
    if (computedArgs) merged['...base'] = { computed: 'merged with a computed config' };
    return merged;
  };

  return {
    parseValue,
    /** Moves to the first token at or after a source offset. */
    seek: (offset: number) => { c.pos = toks.findIndex((t) => t.start >= offset); if (c.pos === -1) c.pos = toks.length; },
    /** Moves to a token index. */
    at: (index: number) => { c.pos = index; },
    /** The token index the parser is at. */
    index: () => c.pos,
    /** Consumes the `,` after a list item (for callers reading a list item by item). */
    endItem,
    /** The object literal whose `{` is the token at `index`. */
    objectAt: (index: number) => { c.pos = index; return parseObject(); },
  };
}

function spreadCount(o: object): number {
  return Object.keys(o).filter((k) => k.startsWith('...')).length;
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
    return { exported: () => undefined, declared: () => undefined, objectsUnder: () => [], callsOf: () => [] };
  }
  const parser = createParser(src, toks);

  const declared = (name: string): Lit | undefined => {
    for (let i = 0; i + 1 < toks.length; i++) {
      if (toks[i]!.kind !== 'id' || !DECLARE.has(toks[i]!.t) || toks[i + 1]!.t !== name || toks[i + 1]!.kind !== 'id') continue;
      let eq = i + 2;
      while (eq < toks.length && toks[eq]!.t !== '=') eq++;
      if (eq === toks.length) return undefined;
      parser.at(eq + 1);
      return parser.parseValue();
    }
    return undefined;
  };

  const exported = (): Lit | undefined => {
    let found: Lit | undefined;
    for (const m of src.matchAll(EXPORTS)) {
      parser.seek(m.index + m[0].length);
      found = parser.parseValue();
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
      if (tok.kind !== 'id' || !wanted.has(tok.t) || toks[i + 1]!.t !== ':' || toks[i - 1]?.t === '.' || toks[i - 1]?.t === '?.') continue;
      let open = i + 2;
      if (toks[open]!.t === '(' && toks[open + 1]?.t === ')' && toks[open + 2]?.t === '=>') open += toks[open + 3]?.t === '(' ? 4 : 3;
      if (toks[open]?.t === '{') out.push([tok.t, parser.objectAt(open)]);
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
      if (tok.kind !== 'id' || !names.has(tok.t) || toks[i + 1]!.t !== '(' || toks[i - 1]?.t === 'function') continue;
      // A method of something other than a plain name (`/re/.exec(s)`, `a().exec()`) reads as `?.name`.
      const dotted = toks[i - 1]?.t === '.' || toks[i - 1]?.t === '?.';
      const object = dotted ? (toks[i - 2]?.kind === 'id' ? toks[i - 2]!.t : '?') : '';
      const args: Lit[] = [];
      parser.at(i + 2);
      for (let n = 0; n < MAX_ARGS; n++) {
        const at = parser.index();
        if (at >= toks.length || toks[at]!.t === ')') break;
        const v = parser.parseValue();
        const after = parser.index();
        // `declared` moves the parser: back to the end of this argument afterwards.
        const named = isComputed(v) && /^[A-Za-z_$][\w$]*$/.test(v.computed) && v.computed !== tok.t ? lookUp(v.computed) : undefined;
        args.push(named ?? v);
        parser.at(after);
        parser.endItem(')', at);
      }
      out.push({ callee: dotted ? `${object}.${tok.t}` : tok.t, args });
    }
    return out;
  };

  return { exported, declared, objectsUnder, callsOf };
}

const MAX_CALLS = 256;
const MAX_NAMES = 32;
const MAX_ARGS = 8;

function tokensTooDeep(toks: readonly Tok[]): boolean {
  let depth = 0;
  for (const { t, kind } of toks) {
    if (kind === 'str') continue;
    if (t === '(' || t === '[' || t === '{') { if (++depth > MAX_DEPTH) return true; } else if ((t === ')' || t === ']' || t === '}') && depth > 0) depth--;
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
