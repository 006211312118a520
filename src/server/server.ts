import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createHandler, type Logger } from './app.ts';
import {
  AlreadyRunningError, ensureRegularFile, liveServer, prepareDataDir, publishServerInfo, removeServerInfo,
} from './datadir.ts';
import type { SseOptions } from './api/events.ts';
import { createEvents, type Events } from '../core/events.ts';
import type { GuardOptions } from './guard.ts';
import { BASE_HEADERS } from './http.ts';
import { limitConnections } from './connections.ts';
import { listen } from './listen.ts';
import type { ScanWorkerOptions, WorkerScanOptions } from '../scan/process/pool.ts';
import { createScanner } from '../core/scanner.ts';
import { createRuns, type RunsOptions } from '../core/runs/engine.ts';
import { createProcessManager } from '../core/processes/manager.ts';
import { openStore, type Store } from '../core/store/store.ts';
import { watchController } from '../core/watch-setting.ts';

export interface ServerOptions extends GuardOptions {
  /**
   * Port to listen on, or a list tried in order (the first free one is taken); 0 picks any free port.
   * @default 0
   */
  readonly port?: number | readonly number[];
  /** Interface to bind. A non-loopback host requires `token`. @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Directory holding `projdex.db` and, while the server runs, `server.json`. Created 0700; refused
   * (DataDirError) when owned by another user or writable by group or others. One server per data dir:
   * when `server.json` names a live server, start rejects with AlreadyRunningError (`info` holds its url
   * and pid); a stale file is replaced. The database file is taken from `db` when that is given.
   */
  readonly dataDir?: string;
  /** Database file, or `':memory:'`. @default ':memory:' unless `dataDir` is set */
  readonly db?: string;
  /** Limits for each scan's walk (`maxDepth`, `maxEntries`, `maxPathChars`, `timeoutMs`, `concurrency`). */
  readonly scan?: WorkerScanOptions;
  /**
   * Scan processes: how many, their heap, the whole-scan deadline, the grace on close; see
   * `createScanPool`.
   */
  readonly scanWorker?: ScanWorkerOptions;
  /** Largest request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /**
   * Slow clients are cut off: `headersMs` for the request's headers, `requestMs` for the whole request
   * (Node's `headersTimeout` and `requestTimeout`, checked every `checkMs`). @default 10 s, 30 s, checked
   * every 1 s
   */
  readonly timeouts?: { readonly headersMs?: number; readonly requestMs?: number; readonly checkMs?: number };
  /**
   * Open connections kept at once, so descriptors cannot run out: past it a new connection takes the place
   * of the oldest one with no request in flight, and is closed only when all are busy. A connection that
   * sends no request within 10 s is closed. @default 256
   */
  readonly maxConnections?: number;
  /** Largest database size in bytes (see `openStore`). @default no limit */
  readonly maxDbBytes?: number;
  /** Limits of `GET /api/events` streams (heartbeat interval, listener cap). */
  readonly sse?: SseOptions;
  /** @default console */
  readonly logger?: Logger;
  /** @default Date.now */
  readonly now?: () => number;
  /**
   * Watch mode: rescan registered projects when their files change (see core/watch.ts), reported as scan
   * events on `events`. Undefined follows the `watch` setting (`on` / `off`), checked while the server runs.
   */
  readonly watch?: boolean;
  /** Test runs: the environment steps start from, a deadline or concurrency overriding the settings. */
  readonly runs?: Pick<RunsOptions, 'env' | 'deadlineMs' | 'concurrency'>;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:38124` */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  readonly store: Store;
  /** The event hub (`/api/events` serves it). */
  readonly events: Events;
  /**
   * Resolves once what finished scans left behind is done: each keeps its snapshot (what the next scan of
   * the project starts from) just after its answer. For code that reads `store` directly; the API waits by
   * itself.
   */
  settled(): Promise<void>;
  /**
   * Stops accepting connections, gives running scans a short grace (then kills their processes), lets
   * in-flight requests finish, closes the database. Idempotent.
   */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Starts the projdex HTTP service.
 *
 * @example
 * const { url, close } = await startServer({ port: 0 }); // in-memory database
 * await fetch(`${url}/health`);
 * await close();
 */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const { port = 0, host = '127.0.0.1', dataDir, bodyLimit, logger = console, now = Date.now } = options;
  const ports = typeof port === 'number' ? [port] : port;
  for (const p of ports) {
    if (!Number.isInteger(p) || p < 0 || p > 65535) {
      throw new RangeError('The `port` option must be an integer between 0 and 65535');
    }
  }
  if (typeof host !== 'string' || host === '') {
    throw new TypeError('The `host` option must be a non-empty string');
  }
  // RFC 6750's token characters: a token with a space (or any other) could never be sent in a header.
  if (
    options.token !== undefined
    && (typeof options.token !== 'string' || !/^[A-Za-z0-9\-._~+/]{1,512}=*$/.test(options.token))
  ) {
    throw new TypeError('The `token` option must be 1 to 512 characters of A-Z a-z 0-9 - . _ ~ + / '
      + '(then any =), as a Bearer token is');
  }
  if (!LOOPBACK.has(host) && !options.token) {
    throw new TypeError(`Binding ${host} exposes projdex beyond this machine: `
      + 'the `token` option is required for a non-loopback host');
  }
  if (dataDir !== undefined) {
    prepareDataDir(dataDir);
    // Checked before taking a port too, so a second start does not hold one while it finds out.
    const live = await liveServer(dataDir);
    if (live) throw new AlreadyRunningError(live);
  }
  const dbFile = options.db ?? (dataDir === undefined ? ':memory:' : join(dataDir, 'projdex.db'));
  if (dataDir !== undefined && options.db === undefined) ensureRegularFile(dbFile);

  const store = openStore(dbFile, {
    now,
    ...(options.maxDbBytes === undefined ? {} : { maxBytes: options.maxDbBytes }),
  });
  const events = createEvents();
  const scanner = createScanner(store, options.scan, options.scanWorker, { events });
  const runs = createRuns({
    ...options.runs, store, scanner, events, now, secrets: options.token ? [options.token] : [],
  });
  // Kept processes of an earlier server on this data dir are found again here (or marked gone).
  const processes = createProcessManager({
    store, events, now, ...(dataDir === undefined ? {} : { logDir: join(dataDir, 'processes') }),
  });
  let actualPort = 0;
  const { headersMs = 10_000, requestMs = 30_000, checkMs = 1_000 } = options.timeouts ?? {};
  // Secret to server.json's readers: /health proves it without sending it (identity.ts).
  const instance = randomUUID();
  const server = createHttpServer({
    headersTimeout: headersMs,
    requestTimeout: requestMs,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: checkMs,
  }, createHandler({
    ...options, instance, store, scanner, runs, processes, events, logger, now, getPort: () => actualPort,
    ...(bodyLimit === undefined ? {} : { bodyLimit }),
  }));
  server.on('clientError', answerClientError);
  limitConnections(server, { max: options.maxConnections ?? 256 });

  try {
    actualPort = await listen(server, { ports, host });
  } catch (error) {
    await runs.close();
    await processes.close();
    store.close();
    throw error;
  }
  const watching = watchController({
    store, scanner, events, logger, ...(options.watch === undefined ? {} : { force: options.watch }),
  });
  const url = `http://${isIP(host) === 6 ? `[${host}]` : host}:${actualPort}`;
  const shutdown = async (): Promise<void> => {
    await watching.close(); // No rescan starts once the shutdown has begun.
    await runs.close(); // Every run's process group is gone before the server says it stopped.
    await processes.close(); // Scripts not started with `keep` stop with the server.
    events.close(); // Ends the event streams, which would otherwise hold server.close open forever.
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // Scans end first (a short grace, then their processes are killed), so their requests can be answered.
    await scanner.close();
    server.closeIdleConnections();
    // A connection that never finishes its request must not hold the shutdown: cut what is left after 3 s.
    const force = setTimeout(() => server.closeAllConnections(), 3_000);
    await drained;
    clearTimeout(force);
    store.close();
  };
  if (dataDir !== undefined) {
    const info = {
      url, port: actualPort, pid: process.pid, instance, ...(options.token ? { token: options.token } : {}),
    };
    let published;
    try {
      published = await publishServerInfo(
        dataDir,
        info,
        async () => (await liveServer(dataDir)) === undefined,
      );
    } catch (error) {
      await shutdown();
      throw error;
    }
    if (!published) {
      // Another server started on this data dir while this one was listening: it wins.
      await shutdown();
      const other = await liveServer(dataDir);
      if (other) throw new AlreadyRunningError(other);
      throw new Error(`Another projdex started on ${dataDir} at the same moment; try again.`);
    }
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= (async () => {
    await shutdown();
    if (dataDir !== undefined) removeServerInfo(dataDir, instance);
  })());

  return { url, port: actualPort, server, store, events, settled: () => scanner.settled(), close };
}

/**
 * Node's own answers to requests it cannot parse (400), headers over 16 KiB (431) and timeouts (408)
 * are bare; these get the same JSON body and headers as every other error.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408
      : 400;
  const body = JSON.stringify({
    error: status === 431 ? 'Request headers too large' : status === 408 ? 'Request timeout' : 'Bad request',
  });
  const head = Object.entries(BASE_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}`
    + 'Content-Type: application/json; charset=utf-8\r\n'
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
