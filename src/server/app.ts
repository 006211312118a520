import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Handler } from './api/context.ts';
import type { SseOptions } from './api/events.ts';
import { createRoutes } from './api/routes.ts';
import { createStatic } from './api/static.ts';
import { createEvents, type Events } from '../core/events.ts';
import { createGuard, type GuardOptions } from './guard.ts';
import { assertJsonBody, HttpError, httpError, readJson, send } from './http.ts';
import { createRouter } from './router.ts';
import { sqliteFailure } from '../core/store/store.ts';
import type { Scanner } from '../core/scanner.ts';
import type { ProcessManager } from '../core/processes/manager.ts';
import type { Store } from '../core/store/store.ts';
import { createRuns, type Runs } from '../core/runs/engine.ts';

/** Where unexpected errors go. `console` fits; tests inject a collector. */
export interface Logger {
  error(...args: unknown[]): void;
}

export interface HandlerOptions extends GuardOptions {
  /** The server's secret instance id, which `/health` proves to a client sending a challenge. */
  readonly instance?: string;
  readonly store: Store;
  readonly scanner: Scanner;
  /**
   * Test runs (the `runs` routes). @default a runner of its own, never closed (startServer passes its
   * own)
   */
  readonly runs?: Runs;
  /** Scripts started in the background; the server closes it. @default one that is never closed */
  readonly processes?: ProcessManager;
  /** Where state changes are published. @default a private hub */
  readonly events?: Events;
  /** Limits of `GET /api/events` streams (heartbeat interval, listener cap). */
  readonly sse?: SseOptions;
  /** Port the server listens on, for the Origin policy (known only after listen). */
  readonly getPort: () => number;
  /** Largest request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** @default console */
  readonly logger?: Logger;
  /** @default Date.now */
  readonly now?: () => number;
  /** Renders every error. Default: the error's status and message, or a generic 500 that logs the cause. */
  readonly onError?: (
    error: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
  ) => void;
}

const CORS_PREFLIGHT = {
  'Access-Control-Allow-Methods': 'GET, POST, PUT, DELETE',
  'Access-Control-Allow-Headers': 'content-type, authorization',
  'Access-Control-Max-Age': '600',
};

/**
 * Builds the `node:http` request listener: boundary checks, routing, body parsing, handler, response.
 * No request can throw out of it: every failure becomes a JSON error response.
 *
 * @example
 * http.createServer(createHandler({ store, scanner, getPort: () => 0 }));
 */
export function createHandler(options: HandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const { store, scanner, getPort, bodyLimit = 1_048_576, logger = console, now = Date.now } = options;
  const events = options.events ?? createEvents();
  const runs = options.runs
    ?? createRuns({ store, scanner, events, now, secrets: options.token ? [options.token] : [] });
  const router = createRouter<Handler>(createRoutes(store, scanner, {
    now, events, sse: options.sse, instance: options.instance, runs, processes: options.processes,
  }));
  const guard = createGuard(options, getPort);
  const assets = createStatic();

  const onError = options.onError ?? ((error, req, res, headers) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error instanceof HttpError) {
      if (error.status >= 500) logger.error(`projdex: ${req.method} ${req.url}:`, error.cause ?? error);
      send(res, error.status, { error: error.message, ...error.body }, { ...headers, ...error.headers });
      return;
    }
    logger.error(`projdex: ${req.method} ${req.url}:`, error);
    const database = sqliteFailure(error);
    send(res, database?.status ?? 500, { error: database?.message ?? 'Internal server error' }, headers);
  });

  const handle = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string>,
  ): Promise<void> => {
    const target = req.url ?? '';
    if (!target.startsWith('/') || target.includes('#')) {
      throw httpError(400, 'BAD_TARGET', 'Malformed request target');
    }
    const queryAt = target.indexOf('?');
    const path = queryAt === -1 ? target : target.slice(0, queryAt);
    // The dashboard's files hold no data: they need no token and may be opened from a link on another site.
    const isAsset = assets.match(req.method ?? '', path);
    Object.assign(headers, guard.check(req, path, { open: isAsset }));
    if (isAsset) {
      assets.serve(req, res, path, headers);
      return;
    }

    const found = router.match(req.method ?? '', path);
    if (req.method === 'OPTIONS') {
      if (!found) throw httpError(404, 'NOT_FOUND', 'Not found');
      const allowed = 'allowed' in found ? found.allowed : [];
      send(res, 204, null, { ...headers, ...CORS_PREFLIGHT, Allow: allowed.join(', ') });
      return;
    }
    if (!found) throw httpError(404, 'NOT_FOUND', 'Not found');
    if ('allowed' in found) {
      throw httpError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed', {
        headers: { Allow: found.allowed.join(', ') },
      });
    }
    // Also for routes that ignore their body: a cross-site form post must not start a scan.
    assertJsonBody(req);

    let parsed: Promise<Record<string, unknown>> | undefined;
    const ctx: Context = {
      req,
      res,
      params: decodeAll(found.params),
      query: parseQuery(queryAt === -1 ? '' : target.slice(queryAt + 1)),
      headers,
      body: () => (parsed ??= readJson(req, { limit: bodyLimit })),
    };
    const result = await found.handler(ctx);
    if (result === undefined) return; // The handler wrote the response itself.
    send(res, result === null ? 204 : res.statusCode, result, headers);
  };

  const one = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.statusCode = 200;
    const headers: Record<string, string> = {};
    return handle(req, res, headers).catch((error: unknown) => {
      try {
        onError(error, req, res, headers);
      } catch (renderError) {
        logger.error('projdex: error handler failed:', renderError);
        res.destroy();
      }
    });
  };

  // Pipelined requests on one connection run one after another, each once the previous answer is sent:
  // a GET sent after a PUT on the same connection sees the PUT (Node would otherwise start both at once).
  const inFlight = new WeakMap<object, Promise<void>>();
  return (req, res) => {
    const previous = inFlight.get(req.socket);
    const run = previous ? previous.then(() => one(req, res)) : one(req, res);
    const done = run.then(() => (res.writableEnded || res.destroyed
      ? undefined
      : new Promise<void>((resolve) => {
        res.once('finish', resolve);
        res.once('close', resolve);
      })));
    inFlight.set(req.socket, done);
    void done.then(() => { if (inFlight.get(req.socket) === done) inFlight.delete(req.socket); });
  };
}

function decode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (cause) {
    throw httpError(400, 'BAD_ENCODING', 'Malformed percent-encoding in URL', { cause });
  }
}

function decodeAll(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const key in params) out[key] = decode(params[key]!);
  return out;
}

function parseQuery(search: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (search === '') return out;
  for (const pair of search.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decode((eq === -1 ? pair : pair.slice(0, eq)).replaceAll('+', ' '));
    out[key] = eq === -1 ? '' : decode(pair.slice(eq + 1).replaceAll('+', ' '));
  }
  return out;
}
