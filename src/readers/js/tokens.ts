/**
 * The tokenizer of the static evaluator (whole modules, modules.ts; static queries, literal.ts): enough of
 * JS/TS lexing to read config files (strings, templates, numbers, identifiers, regex literals,
 * punctuation), with comments skipped, so commented-out code is never read.
 */

/** One token: `t` is its text (the quote for strings), `value` the unescaped string or regex body. */
export interface Tok {
  readonly t: string;
  readonly kind: 'punct' | 'str' | 'num' | 'id' | 'regex' | 'tmpl';
  readonly start: number;
  readonly end: number;
  readonly value?: string;
}

const PUNCT = ['...', '=>', '===', '!==', '==', '!=', '&&', '||', '??', '?.'];
const REGEX_BEFORE = new Set(['(', ',', '[', ':', '=', '{', '!', '&&', '||', '??', '?', ';', 'return', '=>']);

/**
 * Splits JS/TS source into tokens, dropping whitespace and comments; a `/` after an operator or
 * keyword starts a regex literal. Never throws: an unterminated string or comment runs to the end.
 *
 * @example
 * tokenize('a: 1 // x').map((t) => t.t); // ['a', ':', '1']
 */
export function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === ' ' || c === '\n' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '/' && src[i + 1] === '/') { while (i < n && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e === -1 ? n : e + 2;
      continue;
    }
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
