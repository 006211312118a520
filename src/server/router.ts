/** The HTTP methods projdex routes on. HEAD is answered by GET routes. */
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** `'/api/projects/:id/tests'` -> `{ id: string }`, derived from the literal path. */
export type RouteParams<Path extends string> =
  Path extends `${string}:${infer Key}/${infer Rest}` ? { readonly [K in Key]: string } & RouteParams<Rest>
    : Path extends `${string}:${infer Key}` ? { readonly [K in Key]: string }
      : Record<never, string>;

export interface Route<Handler> {
  readonly method: Method;
  readonly path: string;
  readonly pattern: RegExp;
  readonly keys: readonly string[];
  readonly handler: Handler;
}

export type Match<Handler> =
  | { readonly handler: Handler; readonly params: Record<string, string> }
  | { readonly allowed: readonly Method[] }
  | null;

/**
 * Compiles one route: `:name` captures one non-empty path segment; everything else matches literally.
 *
 * @example
 * route('GET', '/api/projects/:id', getProject)
 */
export function route<Handler>(method: Method, path: string, handler: Handler): Route<Handler> {
  const keys: string[] = [];
  const source = path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    keys.push(segment.slice(1));
    return '([^/]+)';
  }).join('/');
  return { method, path, pattern: new RegExp(`^${source}/?$`), keys, handler };
}

/**
 * Builds a matcher over a fixed route table (a linear scan: ~20 routes). Duplicate method + path pairs
 * fail here, at start-up, naming the offender.
 */
export function createRouter<Handler>(
  routes: ReadonlyArray<Route<Handler>>,
): { match(method: string, path: string): Match<Handler> } {
  const seen = new Set<string>();
  for (const r of routes) {
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) throw new Error(`Route already registered: ${key}`);
    seen.add(key);
  }
  return {
    match(method, path) {
      const wanted = method === 'HEAD' ? 'GET' : method;
      const allowed: Method[] = [];
      for (const r of routes) {
        const found = r.pattern.exec(path);
        if (!found) continue;
        if (r.method === wanted) {
          // Null prototype: a segment named `__proto__` is just a key.
          const params: Record<string, string> = Object.create(null);
          r.keys.forEach((key, i) => { params[key] = found[i + 1]!; });
          return { handler: r.handler, params };
        }
        if (!allowed.includes(r.method)) allowed.push(r.method);
      }
      return allowed.length > 0 ? { allowed } : null;
    },
  };
}
