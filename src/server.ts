import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createHandler, type Logger } from './app.ts';
import { createEvents, type Events } from './events.ts';
import type { GuardOptions } from './guard.ts';
import { BASE_HEADERS } from './http.ts';
import { listen } from './port.ts';
import type { ScanWorkerOptions, WorkerScanOptions } from './scan/pool.ts';
import { createScanner } from './scanning.ts';
import { openStore, type Store } from './store.ts';
import { watchController } from './watch-mode.ts';

export interface ServerOptions extends GuardOptions {
  /**
   * Port to listen on, or a list tried in order (the first free one is taken); 0 picks any free port.
   * @default 0
   */
  readonly port?: number | readonly number[];
  /** Interface to bind. A non-loopback host requires `token`. @default '127.0.0.1' */
  readonly host?: string;
  /**
   * Directory holding `projdex.db` and, while the server runs, `server.json`. Created 0700.
   * Ignored when `db` is given.
   */
  readonly dataDir?: string;
  /** Database file, or `':memory:'`. @default ':memory:' unless `dataDir` is set */
  readonly db?: string;
  /** Limits for each scan's walk (`maxDepth`, `maxEntries`, `timeoutMs`, `concurrency`). */
  readonly scan?: WorkerScanOptions;
  /** V8 heap limits of the scanning thread (`resourceLimits`); see `createScanPool`. */
  readonly scanWorker?: ScanWorkerOptions;
  /** Largest request body, in bytes. @default 1_048_576 */
  readonly bodyLimit?: number;
  /** @default console */
  readonly logger?: Logger;
  /** @default Date.now */
  readonly now?: () => number;
  /**
   * Watch mode: rescan registered projects when their files change (see src/watch.ts). Undefined
   * follows the `watch` setting (`on` / `off`), checked while the server runs.
   */
  readonly watch?: boolean;
}

export interface RunningServer {
  /** e.g. `http://127.0.0.1:38124` */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  readonly store: Store;
  /** The event hub (`/api/events` serves it). */
  readonly events: Events;
  /** Stops accepting connections, lets in-flight requests and scans finish, closes the database. Idempotent. */
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
    if (!Number.isInteger(p) || p < 0 || p > 65535) throw new RangeError('The `port` option must be an integer between 0 and 65535');
  }
  if (typeof host !== 'string' || host === '') throw new TypeError('The `host` option must be a non-empty string');
  if (!LOOPBACK.has(host) && !options.token) {
    throw new TypeError(`Binding ${host} exposes projdex beyond this machine: the \`token\` option is required for a non-loopback host`);
  }
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dbFile = options.db ?? (dataDir === undefined ? ':memory:' : join(dataDir, 'projdex.db'));

  const store = openStore(dbFile, { now });
  const events = createEvents();
  const scanner = createScanner(store, options.scan, options.scanWorker);
  let actualPort = 0;
  const server = createHttpServer({
    // Slow clients are cut off: headers within 10 s, the whole request within 30 s.
    headersTimeout: 10_000,
    requestTimeout: 30_000,
    keepAliveTimeout: 5_000,
    connectionsCheckingInterval: 1_000,
  }, createHandler({ ...options, store, scanner, events, logger, now, getPort: () => actualPort, ...(bodyLimit === undefined ? {} : { bodyLimit }) }));
  server.on('clientError', answerClientError);

  try {
    actualPort = await listen(server, { ports, host });
  } catch (error) {
    store.close();
    throw error;
  }
  const watching = watchController({ store, scanner, events, ...(options.watch === undefined ? {} : { force: options.watch }) });
  const url = `http://${isIP(host) === 6 ? `[${host}]` : host}:${actualPort}`;
  const instance = randomUUID();
  const infoFile = dataDir === undefined ? undefined : join(dataDir, 'server.json');
  if (infoFile) writeAtomic(infoFile, JSON.stringify({ url, port: actualPort, pid: process.pid, instance }, null, 2) + '\n');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => (closing ??= (async () => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await watching.close();
    await scanner.close();
    store.close();
    if (infoFile && ownsInfoFile(infoFile, instance)) rmSync(infoFile, { force: true });
  })());

  return { url, port: actualPort, server, store, events, close };
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
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const body = JSON.stringify({ error: status === 431 ? 'Request headers too large' : status === 408 ? 'Request timeout' : 'Bad request' });
  const head = Object.entries(BASE_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}Content-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** Temp file, then rename: readers never see a half-written server.json. */
function writeAtomic(file: string, text: string): void {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text, { mode: 0o600 });
  renameSync(temp, file);
}

/** Another server may have replaced server.json since; only remove our own. */
function ownsInfoFile(file: string, instance: string): boolean {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { instance?: string }).instance === instance;
  } catch {
    return false;
  }
}
