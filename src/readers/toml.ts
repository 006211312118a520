/**
 * A small, tolerant TOML reader: enough for `pyproject.toml`, `Cargo.toml` and `bunfig.toml`.
 * Supports tables, arrays of tables, dotted and quoted keys, the four string kinds, arrays (also
 * multi-line, with comments), inline tables, integers, floats and booleans; dates come back as strings.
 * A line it cannot read is skipped, so bad input gives a partial result and never throws.
 */

export type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
export interface TomlTable { [key: string]: TomlValue }

interface Cursor { s: string; i: number }

/**
 * Parses TOML text into plain objects (null-prototype, so keys like `__proto__` are inert).
 *
 * @example
 * parseToml('[workspace]\nmembers = ["a", "crates/*"]').workspace; // { members: ['a', 'crates/*'] }
 */
export function parseToml(text: string): TomlTable {
  const root: TomlTable = table();
  let current = root;
  const c: Cursor = { s: text, i: 0 };
  while (c.i < c.s.length) {
    skipBlank(c, true);
    if (c.i >= c.s.length) break;
    const lineStart = c.i;
    try {
      if (c.s[c.i] === '[') {
        const isArray = c.s[c.i + 1] === '[';
        c.i += isArray ? 2 : 1;
        const path = readKey(c);
        skipSpace(c);
        if (!c.s.startsWith(isArray ? ']]' : ']', c.i)) throw new SyntaxError('header');
        c.i += isArray ? 2 : 1;
        current = isArray ? appendTable(root, path) : descend(root, path);
      } else {
        const path = readKey(c);
        skipSpace(c);
        if (c.s[c.i] !== '=') throw new SyntaxError('expected =');
        c.i++;
        skipSpace(c);
        const value = readValue(c);
        const parent = descend(current, path.slice(0, -1));
        parent[path[path.length - 1]!] = value;
      }
      skipSpace(c);
      if (c.s[c.i] === '#') skipComment(c);
      if (c.i < c.s.length && c.s[c.i] !== '\n' && c.s[c.i] !== '\r') throw new SyntaxError('trailing');
    } catch {
      // Tolerance: drop the rest of the offending line and carry on with the next one.
      c.i = Math.max(c.i, lineStart);
      skipComment(c);
    }
  }
  return root;
}

/** Reads `a.b.c` from a parsed table, or `undefined` when any step is missing. */
export function tomlGet(doc: TomlTable | undefined, path: string): TomlValue | undefined {
  let node: TomlValue | undefined = doc;
  for (const key of path.split('.')) {
    if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** The string items of an array value (or a lone string as one item); anything else gives `undefined`. */
export function tomlStrings(value: TomlValue | undefined): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return undefined;
  return value.filter((v): v is string => typeof v === 'string');
}

function table(): TomlTable {
  return Object.create(null) as TomlTable;
}

function descend(from: TomlTable, path: string[]): TomlTable {
  let node = from;
  for (const key of path) {
    let next = node[key];
    if (Array.isArray(next)) next = next[next.length - 1];
    if (!next || typeof next !== 'object' || Array.isArray(next)) node[key] = next = table();
    node = next as TomlTable;
  }
  return node;
}

function appendTable(root: TomlTable, path: string[]): TomlTable {
  const parent = descend(root, path.slice(0, -1));
  const key = path[path.length - 1]!;
  const list = Array.isArray(parent[key]) ? parent[key] as TomlValue[] : (parent[key] = []);
  const fresh = table();
  list.push(fresh);
  return fresh;
}

function skipSpace(c: Cursor): void {
  while (c.s[c.i] === ' ' || c.s[c.i] === '\t') c.i++;
}

function skipComment(c: Cursor): void {
  while (c.i < c.s.length && c.s[c.i] !== '\n') c.i++;
}

/** Skips spaces, newlines and comments (newlines only when `lines`). */
function skipBlank(c: Cursor, lines: boolean): void {
  for (;;) {
    const ch = c.s[c.i];
    if (ch === ' ' || ch === '\t' || (lines && (ch === '\n' || ch === '\r'))) c.i++;
    else if (ch === '#' && lines) skipComment(c);
    else return;
  }
}

function readKey(c: Cursor): string[] {
  const parts: string[] = [];
  for (;;) {
    skipSpace(c);
    const ch = c.s[c.i];
    if (ch === '"' || ch === "'") parts.push(readString(c));
    else {
      const m = /^[A-Za-z0-9_-]+/.exec(c.s.slice(c.i, c.i + 256));
      if (!m) throw new SyntaxError('key');
      parts.push(m[0]);
      c.i += m[0].length;
    }
    skipSpace(c);
    if (c.s[c.i] !== '.') return parts;
    c.i++;
  }
}

function readValue(c: Cursor): TomlValue {
  const ch = c.s[c.i];
  if (ch === '"' || ch === "'") return readString(c);
  if (ch === '[') return readArray(c);
  if (ch === '{') return readInline(c);
  // Numbers, booleans and dates: one bare token, up to a delimiter.
  const m = /^[^\s,\]}#]+(?: [0-9][^\s,\]}#]*)?/.exec(c.s.slice(c.i, c.i + 128));
  if (!m) throw new SyntaxError('value');
  c.i += m[0].length;
  const raw = m[0];
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  const clean = raw.replace(/_/g, '');
  if (/^[+-]?(?:0x[0-9a-f]+|0o[0-7]+|0b[01]+)$/i.test(clean)) return Number(clean.replace(/^\+/, ''));
  if (/^[+-]?(?:\d+(?:\.\d+)?(?:e[+-]?\d+)?|inf|nan)$/i.test(clean)) {
    return Number(clean.replace(/inf/i, 'Infinity'));
  }
  return raw;
}

function readArray(c: Cursor): TomlValue[] {
  c.i++;
  const out: TomlValue[] = [];
  for (;;) {
    skipBlank(c, true);
    if (c.i >= c.s.length) throw new SyntaxError('unterminated array');
    if (c.s[c.i] === ']') { c.i++; return out; }
    out.push(readValue(c));
    skipBlank(c, true);
    if (c.s[c.i] === ',') c.i++;
    else if (c.s[c.i] !== ']') throw new SyntaxError('array');
  }
}

function readInline(c: Cursor): TomlTable {
  c.i++;
  const out = table();
  for (;;) {
    skipBlank(c, true);
    if (c.s[c.i] === '}') { c.i++; return out; }
    const path = readKey(c);
    skipSpace(c);
    if (c.s[c.i] !== '=') throw new SyntaxError('inline =');
    c.i++;
    skipSpace(c);
    descend(out, path.slice(0, -1))[path[path.length - 1]!] = readValue(c);
    skipBlank(c, true);
    if (c.s[c.i] === ',') c.i++;
    else if (c.s[c.i] !== '}') throw new SyntaxError('inline table');
  }
}

const ESCAPES: Record<string, string> = {
  b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\',
};

function readString(c: Cursor): string {
  const q = c.s[c.i]!;
  const multi = c.s.startsWith(q + q + q, c.i);
  const delim = multi ? q + q + q : q;
  c.i += delim.length;
  // A newline right after the opening delimiter of a multi-line string is trimmed.
  if (multi && c.s[c.i] === '\r') c.i++;
  if (multi && c.s[c.i] === '\n') c.i++;
  let out = '';
  for (;;) {
    if (c.i >= c.s.length) throw new SyntaxError('unterminated string');
    if (c.s.startsWith(delim, c.i)) {
      c.i += delim.length;
      // Up to two extra quotes right before the closing triple belong to the content.
      if (multi) for (let extra = 0; extra < 2 && c.s[c.i] === q; extra++) { out += q; c.i++; }
      return out;
    }
    const ch = c.s[c.i]!;
    if (!multi && ch === '\n') throw new SyntaxError('newline in string');
    if (ch === '\\' && q === '"') {
      const next = c.s[c.i + 1] ?? '';
      if (next === 'u' || next === 'U') {
        const len = next === 'u' ? 4 : 8;
        const code = Number.parseInt(c.s.slice(c.i + 2, c.i + 2 + len), 16);
        out += Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : '';
        c.i += 2 + len;
      } else if (multi && /[ \t\r\n]/.test(next)) {
        // Line-ending backslash: swallow the newline and the indentation after it.
        c.i++;
        while (/[ \t\r\n]/.test(c.s[c.i] ?? '')) c.i++;
      } else {
        out += ESCAPES[next] ?? next;
        c.i += 2;
      }
      continue;
    }
    out += ch;
    c.i++;
  }
}
