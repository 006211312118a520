/**
 * Static reading of JS/TS config files (vite.config.ts, nuxt.config.ts, webpack.config.js, ...): finds
 * `key: { ..., port: <expr> }` object literals in the text and resolves `<expr>` to a literal port,
 * never executing the file. Expressions built from variables yield their literal default
 * (`Number(process.env.PORT) || 5174` -> 5174), a bare identifier is looked up among the file's
 * top-level `const`s, and anything else is reported as unresolved.
 */

/** One `port` found under an object key. */
export interface ConfigPort {
  /** The object key it sits under, e.g. `server`. */
  readonly key: string;
  /** The port, or undefined when the expression has no literal to fall back on. */
  readonly port: number | undefined;
  /** Source text of the expression, for notes. */
  readonly expression: string;
}

/**
 * The `port` values directly inside object literals named `keys`.
 *
 * @example
 * configPorts('export default { server: { port: 5174, hmr: { port: 1 } } }', ['server']);
 * // [{ key: 'server', port: 5174, expression: '5174' }]
 */
export function configPorts(source: string, keys: readonly string[]): ConfigPort[] {
  const text = stripComments(source);
  const out: ConfigPort[] = [];
  const pattern = new RegExp(`(?<![\\w$.])(${keys.join('|')})\\s*:\\s*(?:\\(\\s*\\)\\s*=>\\s*\\(?\\s*)?\\{`, 'g');
  for (const m of text.matchAll(pattern)) {
    const open = m.index + m[0].length - 1;
    const expression = portExpression(text, open);
    if (expression !== undefined) out.push({ key: m[1]!, port: resolve(expression, text, 0), expression });
  }
  return out;
}

/** Source text of `port: <expr>` (or shorthand `port`) at depth 1 of the object opening at `open`. */
function portExpression(text: string, open: number): string | undefined {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') { i = skipString(text, i); continue; }
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') { if (--depth === 0) return undefined; }
    else if (depth === 1 && text.startsWith('port', i) && !/[\w$.]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i + 4] ?? '')) {
      let j = i + 4;
      while (/\s/.test(text[j] ?? '')) j++;
      if (text[j] === ',' || text[j] === '}') return 'port';
      if (text[j] !== ':') continue;
      return valueText(text, j + 1);
    }
  }
  return undefined;
}

/** The expression text from `start` up to the `,` or closing bracket that ends it. */
function valueText(text: string, start: number): string {
  let depth = 0;
  let i = start;
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') { i = skipString(text, i); continue; }
    if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') { if (depth-- === 0) break; }
    else if ((c === ',' || c === ';' || c === '\n') && depth === 0) break;
  }
  return text.slice(start, i).trim();
}

/** Index of the quote that closes the string opening at `i`. */
function skipString(text: string, i: number): number {
  const q = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === q) return j;
  }
  return text.length;
}

function resolve(expression: string, text: string, depth: number): number | undefined {
  const expr = expression.replace(/\s+as\s+\w+$/, '').trim();
  if (/^[A-Za-z_$][\w$]*$/.test(expr)) {
    if (depth > 2) return undefined;
    const decl = new RegExp(`(?:const|let|var)\\s+${expr.replace(/\$/g, '\\$')}\\s*(?::\\s*\\w+\\s*)?=`).exec(text);
    return decl ? resolve(valueText(text, decl.index + decl[0].length), text, depth + 1) : undefined;
  }
  // parseInt(x, 10) / Number.parseInt(x, 16): the radix is not a port.
  const withoutRadix = expr.replace(/,\s*(?:10|16|8|2)\s*\)/g, ')');
  for (const m of withoutRadix.matchAll(/(?<![\w$.])(\d{1,5})(?![\w.])/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= 65535) return n;
  }
  return undefined;
}

/** Removes `//` and `/* *\/` comments outside strings, so commented-out ports are not read. */
export function stripComments(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const end = skipString(text, i);
      out += text.slice(i, end + 1);
      i = end;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else {
      out += c;
    }
  }
  return out;
}
