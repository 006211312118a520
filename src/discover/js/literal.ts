/**
 * Static reading of JS/TS config files as text: finds the exported config object (`module.exports =`,
 * `export default`, `defineConfig({...})`, a `const config = {...}` exported by name) and parses its
 * literal parts. Anything that is not a literal (calls, identifiers, templates with `${}`, spreads of
 * unknown values) becomes a `Computed` node carrying its source text, so callers can fall back to a
 * default and say why. Nothing is executed.
 */

/** A value that could not be read statically; `text` is its source, `spread` marks `...x` in arrays. */
export interface Computed { readonly computed: string; readonly spread?: boolean }
export interface RegexLit { readonly regex: string; readonly flags: string }
export type Lit = string | number | boolean | null | RegexLit | Computed | Lit[] | { [key: string]: Lit };

export const isComputed = (v: unknown): v is Computed => typeof v === 'object' && v !== null && 'computed' in v;
export const isRegex = (v: unknown): v is RegexLit => typeof v === 'object' && v !== null && 'regex' in v;
export const isObject = (v: unknown): v is { [key: string]: Lit } =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !isComputed(v) && !isRegex(v);

interface Tok { readonly t: string; readonly kind: 'punct' | 'str' | 'num' | 'id' | 'regex' | 'tmpl'; readonly start: number; readonly end: number; readonly value?: string }

const PUNCT = ['...', '=>', '===', '!==', '==', '!=', '&&', '||', '??', '?.'];
const REGEX_BEFORE = new Set(['(', ',', '[', ':', '=', '{', '!', '&&', '||', '??', '?', ';', 'return', '=>']);

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') { const e = src.indexOf('*/', i + 2); i = e === -1 ? n : e + 2; continue; }
    const start = i;
    if (c === '"' || c === "'" || c === '`') {
      let value = '';
      let plain = true;
      for (i++; i < n && src[i] !== c; i++) {
        if (src[i] === '\\') { value += unescape(src[++i]!); continue; }
        if (c === '`' && src[i] === '$' && src[i + 1] === '{') plain = false;
        value += src[i];
      }
      i++;
      toks.push({ t: c, kind: plain ? 'str' : 'tmpl', start, end: i, value });
      continue;
    }
    const prev = toks[toks.length - 1];
    if (c === '/' && (!prev || REGEX_BEFORE.has(prev.t))) {
      let inClass = false;
      for (i++; i < n && (src[i] !== '/' || inClass) && src[i] !== '\n'; i++) {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
      }
      const body = src.slice(start + 1, i);
      i++;
      const fl = /^[a-z]*/.exec(src.slice(i))![0];
      i += fl.length;
      toks.push({ t: '/', kind: 'regex', start, end: i, value: body + '\0' + fl });
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(src.slice(i, i + 200));
    if (word) { i += word[0].length; toks.push({ t: word[0], kind: 'id', start, end: i }); continue; }
    const num = /^\d[\d_.eExXa-fA-F]*/.exec(src.slice(i, i + 50));
    if (num) { i += num[0].length; toks.push({ t: num[0], kind: 'num', start, end: i }); continue; }
    const p = PUNCT.find((q) => src.startsWith(q, i)) ?? c;
    i += p.length;
    toks.push({ t: p, kind: 'punct', start, end: i });
  }
  return toks;
}

function unescape(c: string): string {
  return c === 'n' ? '\n' : c === 't' ? '\t' : c;
}

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

  return { parseValue, seek: (offset: number) => { pos = toks.findIndex((t) => t.start >= offset); if (pos === -1) pos = toks.length; } };
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

/**
 * The exported config of a JS/TS module, as literals where possible; `undefined` when no export was found.
 *
 * @example
 * readConfigText('export default defineConfig({ test: { include: ["src/**\/*.test.ts"] } })');
 * // { test: { include: ['src/**\/*.test.ts'] } }
 */
export function readConfigText(src: string): Lit | undefined {
  const toks = tokenize(src);
  const parser = createParser(src, toks);
  let found: Lit | undefined;
  for (const m of src.matchAll(EXPORTS)) {
    parser.seek(m.index + m[0].length);
    found = parser.parseValue();
    // `export default config` / `module.exports = config`: follow one declaration of that name.
    if (isComputed(found) && /^[A-Za-z_$][\w$]*$/.test(found.computed)) {
      const decl = new RegExp(`\\b(?:const|let|var)\\s+${found.computed.replace(/\$/g, '\\$')}\\b[^=]*=\\s*`).exec(src);
      if (decl) { parser.seek(decl.index + decl[0].length); found = parser.parseValue(); }
    }
  }
  return found;
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
