import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BASE_HEADERS } from '../http.ts';

/**
 * The dashboard's files are public (no project data is in them), so they are served without the token:
 * a browser cannot send a header when it navigates. Every data request the page makes carries it.
 * The policy allows nothing but this server: no inline script, no other origin, no framing.
 */
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
  + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
};

/** Only flat names of known types are served: no path in a URL ever reaches the filesystem. */
const NAME = /^[a-z0-9][a-z0-9-]*\.(html|js|css|svg)$/;

interface Asset { readonly body: Buffer; readonly type: string; readonly etag: string }

/**
 * Serves `GET /` (index.html) and `GET /ui/<name>` from a directory read once, at the first request
 * (`src/web` beside `src/api`, or `dist/web` in the package). Answers `undefined` for any other path.
 *
 * @example
 * const assets = createStatic();
 * if (assets.match('/')) assets.serve(req, res, '/', {});
 */
export function createStatic({ dir = new URL('../web/', import.meta.url) }: { dir?: URL } = {}) {
  let files: Map<string, Asset> | undefined;
  const load = (): Map<string, Asset> => {
    files = new Map();
    for (const name of readdirSync(dir)) {
      const ext = NAME.exec(name)?.[1];
      if (!ext) continue;
      const body = readFileSync(new URL(name, dir));
      files.set(name, {
        body,
        type: TYPES[ext]!,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
      });
    }
    return files;
  };
  const nameOf = (path: string): string | undefined => path === '/' || path === '/index.html' ? 'index.html'
    : path.startsWith('/ui/') ? path.slice(4) : undefined;

  return {
    /** True when `path` names a dashboard file (GET and HEAD only). */
    match(method: string, path: string): boolean {
      if (method !== 'GET' && method !== 'HEAD') return false;
      const name = nameOf(path);
      return name !== undefined && (files ?? load()).has(name);
    },
    serve(req: IncomingMessage, res: ServerResponse, path: string, headers: Record<string, string>): void {
      const asset = (files ?? load()).get(nameOf(path)!)!;
      const out = {
        ...BASE_HEADERS,
        ...headers,
        // Revalidated on every load (a new version of the package must show at once), cheap with the ETag.
        'Cache-Control': 'no-cache',
        ETag: asset.etag,
        'Content-Security-Policy': CSP,
        'Referrer-Policy': 'no-referrer',
        'X-Frame-Options': 'DENY',
      };
      if (req.headers['if-none-match'] === asset.etag) {
        res.writeHead(304, out);
        res.end();
        return;
      }
      res.writeHead(200, { ...out, 'Content-Type': asset.type, 'Content-Length': asset.body.length });
      res.end(req.method === 'HEAD' ? undefined : asset.body);
    },
  };
}
