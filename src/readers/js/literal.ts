/**
 * Static reading of JS/TS config files as text: finds the exported config object (`module.exports =`,
 * `export default`, `defineConfig({...})`, a `const config = {...}` exported by name) and parses its
 * literal parts. Anything that is not a literal (calls, identifiers, templates with `${}`, spreads of
 * unknown values) becomes a `Computed` node carrying its source text, so callers can fall back to a
 * default and say why. Nothing is executed. Shared by test discovery (runner configs) and ports
 * (dev-server `port` keys); the tokenizer is in js-tokens.ts.
 */

import { MAX_DEPTH, noteLimit } from '../budget.ts';
import { tokenize, type Tok } from './tokens.ts';

/** A value that could not be read statically; `text` is its source, `spread` marks `...x` in arrays. */
export interface Computed { readonly computed: string; readonly spread?: boolean }
export interface RegexLit { readonly regex: string; readonly flags: string }
export type Lit = string | number | boolean | null | RegexLit | Computed | Lit[] | { [key: string]: Lit };

export const isComputed = (v: unknown): v is Computed => typeof v === 'object' && v !== null && 'computed' in v;
export const isRegex = (v: unknown): v is RegexLit => typeof v === 'object' && v !== null && 'regex' in v;
export const isObject = (v: unknown): v is { [key: string]: Lit } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isComputed(v) && !isRegex(v);

const CLOSERS = new Set([',', '}', ']', ')', ';']);

/** A recursive-descent reader over the token list; `pos` advances past what it parsed. */
function createParser(src: string, toks: Tok[]) {
  let pos = 0;
  const peek = (k = 0): Tok | undefined => toks[pos + k];

  /** Skips one balanced expression, stopping before a top-level closer. */
  const skipExpr = (): void => {
    let depth = 0;
    for (; pos < toks.length; pos++) {
      const t = toks[pos]!.t;
      if (toks[pos]!.kind !== 'punct') continue;
      if (t === '(' || t === '[' || t === '{') depth++;
      else if (t === ')' || t === ']' || t === '}') { if (depth === 0) return; depth--; }
      else if ((t === ',' || t === ';') && depth === 0) return;
    }
  };

  const computedFrom = (from: number): Computed => {
    skipExpr();
    const a = toks[from]?.start ?? 0;
    const b = toks[pos - 1]?.end ?? a;
    return { computed: src.slice(a, b).trim() };
  };

  const parseValue = (): Lit => {
    const from = pos;
    const tok = peek();
    if (!tok) return { computed: '' };
    let value: Lit | undefined;
    if (tok.kind === 'str') { pos++; value = tok.value!; }
    else if (tok.kind === 'num') { pos++; value = Number(tok.t.replace(/_/g, '')); }
    else if (tok.kind === 'regex') { pos++; const [regex, flags] = tok.value!.split('\0'); value = { regex: regex!, flags: flags! }; }
    else if (tok.t === 'true' || tok.t === 'false') { pos++; value = tok.t === 'true'; }
    else if (tok.t === 'null' || tok.t === 'undefined') { pos++; value = null; }
    else if (tok.t === '[' ) value = parseArray();
    else if (tok.t === '{') value = parseObject();
    else if (tok.kind === 'id' && peek(1)?.t === '(' && /^define[A-Z]\w*$|^mergeConfig$/.test(tok.t)) value = parseCall();
    else if (tok.t === '(' ) { pos++; const inner = parseValue(); if (peek()?.t === ')') { pos++; value = inner; } else { pos = from; } }
    if (value === undefined) return computedFrom(from);
    // `[...] as const` and `{...} satisfies Config` keep their value; any other continuation is computed.
    const next = peek();
    if (next && (next.t === 'as' || next.t === 'satisfies')) { skipExpr(); return value; }
    if (next && !CLOSERS.has(next.t)) { pos = from; return computedFrom(from); }
    return value;
  };

  const parseArray = (): Lit[] => {
    const out: Lit[] = [];
    pos++;
    while (pos < toks.length && peek()!.t !== ']') {
      const at = pos;
      if (peek()!.t === '...') { pos++; const v = parseValue(); out.push(isComputed(v) ? { computed: v.computed, spread: true } : v); }
      else out.push(parseValue());
      endItem(']', at);
    }
    pos++;
    return out;
  };

  /** Consumes the `,` after a list item; guarantees progress on malformed input. */
  const endItem = (close: string, at: number): void => {
    if (peek()?.t !== ',' && peek()?.t !== close) skipExpr();
    if (peek()?.t === ',') pos++;
    else if (pos === at || (peek() && peek()!.t !== close)) pos++;
  };

  const parseObject = (): { [key: string]: Lit } => {
    const out: { [key: string]: Lit } = Object.create(null);
    pos++;
    while (pos < toks.length && peek()!.t !== '}') {
      const at = pos;
      const tok = peek()!;
      if (tok.t === '...') { pos++; const v = parseValue(); out[`...${spreadCount(out)}`] = isComputed(v) ? v : { computed: 'spread' }; }
      else if (tok.kind === 'id' || tok.kind === 'str' || tok.kind === 'num') {
        pos++;
        const key = tok.kind === 'str' ? tok.value! : tok.t;
        if (peek()?.t === ':') { pos++; out[key] = parseValue(); }
        else if (peek()?.t === '(') { skipExpr(); out[key] = { computed: `${key}()` }; }
        else out[key] = { computed: key };
      } else if (tok.t === '[') { const from = pos; out[`[computed${pos}]`] = computedFrom(from); }
      else { skipExpr(); }
      endItem('}', at);
    }
    pos++;
    return out;
  };

  /** `defineConfig({...})`, `mergeConfig(base, {...})`: object arguments merged left to right. */
  const parseCall = (): Lit => {
    pos += 2;
    let merged: { [key: string]: Lit } | undefined;
    let computedArgs = false;
    let array: Lit[] | undefined;
    while (pos < toks.length && peek()!.t !== ')') {
      const at = pos;
      const v = parseValue();
      if (isObject(v)) merged = merged ? mergeDeep(merged, v) : v;
      else if (Array.isArray(v)) array = v;
      else computedArgs = true;
      endItem(')', at);
    }
    pos++;
    // `defineWorkspace([...])` wraps a list.
    if (!merged) return array ?? { computed: 'call' };
    if (computedArgs) merged['...base'] = { computed: 'merged with a computed config' };
    return merged;
  };

  return {
    parseValue,
    /** Moves to the first token at or after a source offset. */
    seek: (offset: number) => { pos = toks.findIndex((t) => t.start >= offset); if (pos === -1) pos = toks.length; },
    /** Moves to a token index. */
    at: (index: number) => { pos = index; },
    /** The token index the parser is at. */
    index: () => pos,
    endItem,
    /** The object literal whose `{` is the token at `index`. */
    objectAt: (index: number) => { pos = index; return parseObject(); },
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

/**
 * Looks a dotted key up in a read config: `found` is false when absent, `value` may be `Computed`.
 * A computed spread or merge in any object on the way makes an absent key "maybe present": reported computed.
 */
export function getKey(root: Lit | undefined, path: string): { found: boolean; value?: Lit } {
  let cur: Lit | undefined = root;
  for (const part of path.split('.')) {
    if (!isObject(cur)) return isComputed(cur) ? { found: true, value: cur } : { found: false };
    if (part in cur) { cur = cur[part]; continue; }
    const spread = Object.keys(cur).find((k) => k.startsWith('...'));
    return spread ? { found: true, value: cur[spread]! } : { found: false };
  }
  return { found: true, value: cur };
}
