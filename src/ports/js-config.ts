/**
 * Dev-server ports in JS/TS config files (vite.config.ts, nuxt.config.ts, webpack.config.js, ...):
 * the `port` directly inside `key: { ... }` object literals, read with the shared literal reader
 * (readers/js-literal.ts), never executing the file. A computed port yields the literal default in its
 * source (`Number(process.env.PORT) || 5174` -> 5174), a bare identifier is looked up among the
 * file's declarations, and anything else is reported as unresolved.
 */
import { createLiteralReader, isComputed, isObject, type Lit, type LiteralReader } from '../readers/js/literal.ts';

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
 * Ports of dev-server proxy targets: `proxy: { '/api': 'http://localhost:8000' }` (Vite) or
 * `{ '/api': { target: 'http://localhost:8000' } }` (Vite, webpack, Vue CLI). The dev server forwards to
 * them, so they are ports this project connects to.
 *
 * @example
 * proxyPorts("export default { server: { proxy: { '/api': { target: 'http://localhost:8000' } } } }"); // [8000]
 */
export function proxyPorts(source: string): number[] {
  const out: number[] = [];
  for (const [, object] of createLiteralReader(source).objectsUnder(['proxy'])) {
    for (const value of Object.values(object)) {
      const target = typeof value === 'string' ? value : isObject(value) && typeof value.target === 'string' ? value.target : undefined;
      const m = target === undefined ? null : /^[a-z][a-z0-9+.-]*:\/\/[^/:]+:(\d{1,5})(?:[/?#]|$)/i.exec(target);
      const port = m ? Number(m[1]) : undefined;
      if (port !== undefined && port >= 1 && port <= 65535) out.push(port);
    }
  }
  return out;
}

/** How many identifiers deep a `port: P` -> `const P = Q` -> ... chain is followed. */
const MAX_INDIRECTION = 3;

/**
 * The `port` values directly inside object literals named `keys`.
 *
 * @example
 * configPorts('export default { server: { port: 5174, hmr: { port: 1 } } }', ['server']);
 * // [{ key: 'server', port: 5174, expression: '5174' }]
 */
export function configPorts(source: string, keys: readonly string[]): ConfigPort[] {
  const reader = createLiteralReader(source);
  const out: ConfigPort[] = [];
  for (const [key, object] of reader.objectsUnder(keys)) {
    // The reader's objects are null-prototype, so `in` sees only keys written in the file.
    if (!('port' in object)) continue;
    const value = object.port!;
    out.push({ key, port: literalPort(value, reader, 0), expression: isComputed(value) ? value.computed : JSON.stringify(value) });
  }
  return out;
}

/**
 * The port a JS expression's source text gives: a literal, the literal default of a computed value
 * (`process.env.PORT || 5000`), or an identifier's declaration in the same source followed.
 *
 * @example
 * expressionPort('PORT', createLiteralReader('const PORT = process.env.PORT ?? 4000;')); // 4000
 */
export function expressionPort(expr: string, reader: LiteralReader): number | undefined {
  return literalPort({ computed: expr.trim() }, reader, 0);
}

function literalPort(value: Lit, reader: LiteralReader, depth: number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 1 && value <= 65535 ? value : undefined;
  if (typeof value === 'string') return defaultPort(value);
  if (!isComputed(value)) return undefined;
  const expr = value.computed.replace(/\s+as\s+\w+$/, '').trim();
  if (/^[A-Za-z_$][\w$]*$/.test(expr)) {
    if (depth >= MAX_INDIRECTION) return undefined;
    const declared = reader.declared(expr);
    return declared === undefined ? undefined : literalPort(declared, reader, depth + 1);
  }
  return defaultPort(expr);
}

/** The first number in 1..65535 standing alone in an expression's text; a parseInt radix is not a port. */
export function defaultPort(expr: string): number | undefined {
  const withoutRadix = expr.replace(/,\s*(?:10|16|8|2)\s*\)/g, ')');
  for (const m of withoutRadix.matchAll(/(?<![\w$.])(\d{1,5})(?![\w.])/g)) {
    const n = Number(m[1]);
    if (n >= 1 && n <= 65535) return n;
  }
  return undefined;
}
