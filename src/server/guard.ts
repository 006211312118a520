import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { httpError } from './http.ts';

export interface GuardOptions {
  /** Extra Host names accepted besides `localhost`, `127.0.0.1` and `[::1]` (lower-case, no port). */
  readonly allowedHosts?: readonly string[];
  /** Extra exact origins (e.g. `http://localhost:5173`) allowed to call the API from a browser. */
  readonly allowedOrigins?: readonly string[];
  /** When set, every route but `/health` needs `Authorization: Bearer <token>`. */
  readonly token?: string;
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const HOST = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i;

/**
 * Builds the request boundary of docs "Security": Host allow-list (DNS rebinding), fetch metadata and
 * Origin policy (cross-site requests), bearer token (non-loopback binds). `check` throws an HttpError
 * and returns the CORS headers an allowed cross-origin caller gets.
 */
export function createGuard(
  { allowedHosts = [], allowedOrigins = [], token }: GuardOptions,
  getPort: () => number,
) {
  const hosts = new Set([...LOOPBACK_HOSTS, ...allowedHosts.map((h) => h.toLowerCase())]);
  const extraOrigins = new Set(allowedOrigins);
  const tokenDigest = token === undefined ? undefined : digest(token);

  const originAllowed = (origin: string): boolean => {
    const port = getPort();
    return extraOrigins.has(origin) || LOOPBACK_HOSTS.some((host) => origin === `http://${host}:${port}`);
  };

  return {
    /**
     * `open`: a public file (the dashboard's), which needs no token and may be reached from a cross-site
     * link.
     */
    check(
      req: IncomingMessage,
      path: string,
      { open = false }: { open?: boolean } = {},
    ): Record<string, string> {
      // With a token, the token is the boundary (a rebinding page cannot know it), so any Host may be used.
      if (tokenDigest === undefined) {
        const host = HOST.exec(req.headers.host ?? '');
        if (!host || !hosts.has(host[1]!.toLowerCase())) {
          throw httpError(403, 'HOST_NOT_ALLOWED', 'Host not allowed');
        }
      }
      if (!open && isCrossSite(req.headers['sec-fetch-site'])) {
        throw httpError(403, 'CROSS_SITE', 'Cross-site request refused');
      }
      const origin = req.headers.origin;
      const cors: Record<string, string> = {};
      if (origin !== undefined) {
        // Same origin as the Host this request passed with (the dashboard served on a LAN address in token
        // mode, or on an allowed host name) is the page's own origin, not a cross-origin caller.
        const sameOrigin = req.headers.host !== undefined && origin === `http://${req.headers.host}`;
        if (!sameOrigin && !originAllowed(origin)) {
          throw httpError(403, 'ORIGIN_NOT_ALLOWED', 'Origin not allowed: start projdex with '
            + `--allowed-origin ${JSON.stringify(origin.slice(0, 200)).slice(1, -1)} to allow it`);
        }
        cors['Access-Control-Allow-Origin'] = origin;
        cors.Vary = 'Origin';
      }
      if (tokenDigest !== undefined && !open && path !== '/health' && req.method !== 'OPTIONS') {
        // The auth scheme is case-insensitive (RFC 9110 section 11.1); the token itself is compared exactly.
        const match = /^Bearer +([^\s]+) *$/i.exec(req.headers.authorization ?? '');
        if (!match || !timingSafeEqual(digest(match[1]!), tokenDigest)) {
          throw httpError(401, 'UNAUTHORIZED', 'Missing or invalid token', {
            headers: { ...cors, 'WWW-Authenticate': 'Bearer' },
          });
        }
      }
      return cors;
    },
  };
}

/** `cross-site`, compared as the token it is (any case, and in a repeated header's joined list). */
function isCrossSite(value: string | undefined): boolean {
  return value !== undefined && value.split(',').some((v) => v.trim().toLowerCase() === 'cross-site');
}

/** Fixed-length digests, so the comparison takes the same time whatever the token's length. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
