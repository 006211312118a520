/**
 * The flow half of the YAML reader (yaml.ts): scalars (quoted, plain, typed) and flow collections
 * (`[a, "b"]`, `{ a: 1 }`), which block lines hand over once their brackets balance.
 */

import { MAX_DEPTH, noteLimit, tooDeep } from './budget.ts';

/** Index of the quote closing the string that opens at `start`, or -1. */
export function closingQuote(text: string, start: number): number {
  const q = text[start];
  for (let i = start + 1; i < text.length; i++) {
    if (q === '"' && text[i] === '\\') i++;
    else if (text[i] === q) {
      if (q === "'" && text[i + 1] === "'") i++;
      else return i;
    }
  }
  return -1;
}

/** Whether every `[`/`{` outside quotes is closed. */
export function balanced(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") i = closingQuote(text, i) === -1 ? text.length : closingQuote(text, i);
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  return depth <= 0;
}

/** A scalar: quoted strings unescaped, plain `null`/`~`, booleans and integers typed, aliases null. */
export function scalar(text: string): unknown {
  const t = text.trim();
  if (t[0] === '"') {
    const end = closingQuote(t, 0);
    const body = t.slice(1, end === -1 ? t.length : end);
    return body.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
  }
  if (t[0] === "'") {
    const end = closingQuote(t, 0);
    return t.slice(1, end === -1 ? t.length : end).replace(/''/g, "'");
  }
  if (t === '' || t === '~' || t === 'null' || t === 'Null' || t === 'NULL' || t[0] === '*') return null;
  if (/^(?:true|True|TRUE)$/.test(t)) return true;
  if (/^(?:false|False|FALSE)$/.test(t)) return false;
  if (/^[-+]?\d+$/.test(t)) return Number(t);
  return t;
}

/**
 * A flow node: `[a, "b", {c: 1}]`, `{ a: 1 }` or a scalar.
 *
 * @example
 * parseFlow('[80, "443"]'); // [80, '443']
 */
export function parseFlow(text: string): unknown {
  if (tooDeep(text, '[{', ']}')) {
    noteLimit(`a YAML flow value nests deeper than ${MAX_DEPTH} levels; it was not read`);
    return undefined;
  }
  return new Flow(text).value();
}

class Flow {
  #s: string;
  #i = 0;
  constructor(s: string) { this.#s = s; }

  value(): unknown {
    this.#ws();
    const c = this.#s[this.#i];
    if (c === '[') return this.#seq();
    if (c === '{') return this.#map();
    return this.#scalar();
  }

  #ws(): void { while (/\s/.test(this.#s[this.#i] ?? '')) this.#i++; }

  #seq(): unknown[] {
    const out: unknown[] = [];
    this.#i++;
    for (this.#ws(); this.#i < this.#s.length && this.#s[this.#i] !== ']'; this.#ws()) {
      out.push(this.value());
      this.#ws();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] !== ']') break;
    }
    this.#i++;
    return out;
  }

  #map(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.#i++;
    for (this.#ws(); this.#i < this.#s.length && this.#s[this.#i] !== '}'; this.#ws()) {
      const key = String(this.#scalar(true) ?? '');
      this.#ws();
      let value: unknown = null;
      if (this.#s[this.#i] === ':') { this.#i++; value = this.value(); }
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      this.#ws();
      if (this.#s[this.#i] === ',') this.#i++;
      else if (this.#s[this.#i] !== '}') break;
    }
    this.#i++;
    return out;
  }

  #scalar(isKey = false): unknown {
    const s = this.#s;
    const start = this.#i;
    if (s[start] === '"' || s[start] === "'") {
      const end = closingQuote(s, start);
      this.#i = end === -1 ? s.length : end + 1;
      return scalar(s.slice(start, this.#i));
    }
    while (
      this.#i < s.length
      && !/[,\]}]/.test(s[this.#i]!)
      && !(isKey && s[this.#i] === ':' && /[\s,}]/.test(s[this.#i + 1] ?? ' '))
    ) {
      if (!isKey && s[this.#i] === ':' && /\s/.test(s[this.#i + 1] ?? '')) break;
      this.#i++;
    }
    return scalar(s.slice(start, this.#i));
  }
}
