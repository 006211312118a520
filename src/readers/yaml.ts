/**
 * A reader for the subset of YAML that project files use: compose files, Spring's application.yml,
 * `.mocharc.yml` and `pnpm-workspace.yaml`. Block maps, block sequences (also "indentless" ones under
 * a key), flow sequences and maps (`["80:80"]`, `{ a: 1 }`, across lines too; see yaml-flow.ts), quoted
 * and plain scalars, comments, `|`/`>` block scalars and `---` documents. Anchors and tags are dropped,
 * aliases read as null. It never throws: text it cannot follow yields what was read so far, or undefined.
 */

import { balanced, closingQuote, parseFlow, scalar } from './yaml-flow.ts';

interface Line { indent: number; text: string }
type Value = unknown;

/**
 * Parses the first document of a YAML text.
 *
 * @example
 * parseYaml('services:\n  web:\n    ports: ["8080:80"]'); // { services: { web: { ports: ['8080:80'] } } }
 */
export function parseYaml(text: string): Value {
  return parseYamlDocuments(text)[0];
}

/** Parses every `---`-separated document. */
export function parseYamlDocuments(text: string): Value[] {
  const docs: Value[] = [];
  for (const chunk of text.split(/^(?:---|\.\.\.)[ \t]*(?:#.*)?$/m)) {
    try {
      const lines = toLines(chunk);
      if (lines.length > 0) docs.push(new Parser(lines).block(lines[0]!.indent));
    } catch {
      docs.push(undefined);
    }
  }
  return docs;
}

function toLines(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split('\n')) {
    const body = raw.replace(/\r$/, '');
    const text = stripComment(body).trimEnd();
    const trimmed = text.trimStart();
    if (trimmed === '' || trimmed.startsWith('%')) continue;
    out.push({ indent: text.length - trimmed.length, text: trimmed });
  }
  return out;
}

/** Removes a `#` comment that is outside quotes and starts a word. */
function stripComment(line: string): string {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    const prev = i === 0 ? ' ' : line[i - 1]!;
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if ((c === '"' || c === "'") && /[\s[{,:-]/.test(prev)) {
      quote = c;
    } else if (c === '#' && /\s/.test(prev)) {
      return line.slice(0, i);
    }
  }
  return line;
}

class Parser {
  #lines: Line[];
  #i = 0;
  constructor(lines: Line[]) { this.#lines = lines; }

  /** A block node whose lines sit at exactly `indent`. */
  block(indent: number): Value {
    const line = this.#lines[this.#i];
    if (!line || line.indent < indent) return null;
    if (line.text === '-' || line.text.startsWith('- ')) return this.#sequence(line.indent);
    if (splitKey(line.text)) return this.#map(line.indent);
    this.#i++;
    return this.#inline(line.text, indent);
  }

  #sequence(indent: number): Value[] {
    const items: Value[] = [];
    for (
      let line = this.#lines[this.#i];
      line && line.indent === indent && (line.text === '-' || line.text.startsWith('- '));
      line = this.#lines[this.#i]
    ) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.#i++;
        const next = this.#lines[this.#i];
        items.push(next && next.indent > indent ? this.block(next.indent) : null);
      } else {
        // `- key: value` opens a map whose keys line up with `key`.
        this.#lines[this.#i] = { indent: indent + (line.text.length - rest.length), text: rest };
        items.push(this.block(this.#lines[this.#i]!.indent));
      }
    }
    return items;
  }

  #map(indent: number): Record<string, Value> {
    const map: Record<string, Value> = {};
    for (let line = this.#lines[this.#i]; line && line.indent === indent; line = this.#lines[this.#i]) {
      const kv = splitKey(line.text);
      if (!kv) break;
      this.#i++;
      const [key, rest] = kv;
      let value: Value;
      const next = this.#lines[this.#i];
      if (rest === '' || /^[&!][^\s]*$/.test(rest)) {
        if (next && next.indent > indent) value = this.block(next.indent);
        else if (next && next.indent === indent && (next.text === '-' || next.text.startsWith('- '))) {
          value = this.#sequence(indent);
        }
        else value = null;
      } else if (/^[|>][-+0-9]*$/.test(rest)) {
        value = this.#blockScalar(indent, rest[0] === '>');
      } else {
        value = this.#inline(rest, indent);
      }
      Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return map;
  }

  #blockScalar(indent: number, folded: boolean): string {
    const parts: string[] = [];
    while (this.#lines[this.#i] && this.#lines[this.#i]!.indent > indent) {
      parts.push(this.#lines[this.#i++]!.text);
    }
    return parts.join(folded ? ' ' : '\n');
  }

  /** A scalar or flow node; a flow collection may continue on following lines until its brackets close. */
  #inline(text: string, indent: number): Value {
    let source = text.replace(/^(?:[&!][^\s]*\s+)+/, '');
    if (source[0] === '[' || source[0] === '{') {
      while (!balanced(source) && this.#lines[this.#i] && this.#lines[this.#i]!.indent > indent - 1) {
        source += ' ' + this.#lines[this.#i++]!.text;
      }
      return parseFlow(source);
    }
    // Plain multi-line scalars continue on more-indented lines.
    while (
      source[0] !== '"' && source[0] !== "'"
      && this.#lines[this.#i] && this.#lines[this.#i]!.indent > indent
      && !splitKey(this.#lines[this.#i]!.text)
    ) source += ' ' + this.#lines[this.#i++]!.text;
    return scalar(source);
  }
}

/** `key: rest` -> [key, rest], or undefined when the line is not a map entry. */
function splitKey(text: string): [string, string] | undefined {
  let end: number;
  let key: string;
  if (text[0] === '"' || text[0] === "'") {
    end = closingQuote(text, 0);
    if (end === -1) return undefined;
    key = scalar(text.slice(0, end + 1)) as string;
    end++;
    while (text[end] === ' ') end++;
    if (text[end] !== ':') return undefined;
  } else {
    if (text[0] === '[' || text[0] === '{' || text.startsWith('- ')) return undefined;
    const m = /:(?:\s|$)/.exec(text);
    if (!m) return undefined;
    end = m.index;
    key = text.slice(0, end).trim();
  }
  const rest = text.slice(end + 1);
  if (rest !== '' && !/^\s/.test(rest)) return undefined;
  return [key, rest.trim()];
}
