import type { IncomingMessage, ServerResponse } from 'node:http';

import { httpError } from '../core/errors.ts';

export { HttpError, httpError } from '../core/errors.ts';

/** Headers every response carries: JSON that no other origin may embed, sniff or cache. */
export const BASE_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

const PARTS = Symbol('projdex.jsonParts');

/** Pre-serialised JSON in pieces, written one after another: a big answer is never concatenated. */
export interface JsonParts { readonly [PARTS]: readonly Buffer[] }

const STREAM = Symbol('projdex.jsonStream');

/** JSON produced piece by piece while it is sent (chunked): a huge list never exists whole. */
export interface JsonStream { readonly [STREAM]: () => AsyncIterable<Buffer> }

/** Wraps an async source of JSON pieces for `send`; their concatenation must be one JSON value. */
export function jsonStream(pieces: () => AsyncIterable<Buffer>): JsonStream {
  return { [STREAM]: pieces };
}

/** Writes a `jsonStream` body, waiting for the socket to drain; a failure midway cuts the connection. */
async function pump(res: ServerResponse, pieces: AsyncIterable<Buffer>): Promise<void> {
  try {
    for await (const piece of pieces) {
      if (res.destroyed) return;
      if (!res.write(piece)) await drained(res);
    }
    res.end();
  } catch {
    res.destroy();
  }
}

/**
 * Resolves on `drain` or `close`, whichever comes first, and leaves no listener behind (a long stream
 * waits often).
 */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Wraps JSON pieces (each a Buffer) for `send`; their concatenation must be one JSON value. */
export function jsonParts(parts: readonly Buffer[]): JsonParts {
  return { [PARTS]: parts };
}

/**
 * Sends `data` as JSON. Stringifies before writing any header, so a serialisation failure can still
 * become a 500. `null` data (or status 204/304) sends no body. A pre-serialised `Buffer` or
 * `jsonParts(...)` is sent as is.
 */
export function send(
  res: ServerResponse,
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): void {
  const noBody = status === 204 || status === 304 || data === null;
  if (!noBody && typeof data === 'object' && STREAM in data) {
    res.writeHead(status, { ...BASE_HEADERS, ...headers, 'Content-Type': 'application/json; charset=utf-8' });
    void pump(res, (data as JsonStream)[STREAM]());
    return;
  }
  const parts: readonly Buffer[] = noBody ? []
    : typeof data === 'object' && PARTS in data ? (data as JsonParts)[PARTS]
      : [Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data))];
  const out: Record<string, string | number> = { ...BASE_HEADERS, ...headers };
  if (!noBody) {
    out['Content-Type'] = 'application/json; charset=utf-8';
    out['Content-Length'] = parts.reduce((sum, part) => sum + part.length, 0);
  }
  res.writeHead(status, out);
  for (const part of parts) res.write(part);
  res.end();
}

export interface ReadJsonOptions {
  /** Largest body accepted, in bytes. @default 1_048_576 */
  readonly limit?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * How long a client may keep sending after its 413 (a chunked body), or stall (a declared length), before
 * the cut.
 */
const DISCARD_GRACE_MS = 2_000;
/** A declared body up to this size is drained while it keeps arriving, however slow the link. */
const DISCARD_DECLARED_MAX = 16 * 1024 * 1024;

/** True when the request carries a body (a declared non-zero length, or chunked transfer). */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && Number(length) !== 0) || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Throws 415 unless a request with a body declares JSON: media-type essence exactly
 * `application/json` (parsed, so `text/plain; application/json` fails) and, if a charset is given,
 * UTF-8. A bodiless request passes whatever it declares. Browsers can send `text/plain`, form and
 * multipart bodies cross-site without a preflight; refusing them keeps every write preflighted.
 */
export function assertJsonBody(req: IncomingMessage): void {
  if (!hasBody(req)) return;
  const [essence = '', ...params] = (req.headers['content-type'] ?? '').split(';');
  let ok = essence.trim().toLowerCase() === 'application/json';
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1').toLowerCase();
    if (charset !== 'utf-8' && charset !== 'utf8') ok = false;
  }
  if (!ok) throw httpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
}

/**
 * Reads a request body as a JSON object. A request without a body reads as `{}` so that field rules
 * ("Name and path are required") answer it. Throws `HttpError`: 415 for a body that is not
 * `application/json`, 413 over `limit`, 400 for invalid UTF-8, invalid JSON or a non-object.
 */
export async function readJson(
  req: IncomingMessage,
  { limit = 1_048_576 }: ReadJsonOptions = {},
): Promise<Record<string, unknown>> {
  if (!hasBody(req)) return {};
  assertJsonBody(req);
  const length = req.headers['content-length'];
  if (length !== undefined && Number(length) > limit) {
    discardRest(req);
    throw httpError(413, 'BODY_TOO_LARGE', 'Request body too large');
  }

  const { chunks, size } = await collect(req, limit);
  if (size === 0) return {};
  let text: string;
  try {
    text = utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  } catch (cause) {
    throw httpError(400, 'INVALID_UTF8', 'Request body is not valid UTF-8', { cause });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw httpError(400, 'INVALID_JSON', 'Request body is not valid JSON', { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw httpError(400, 'BODY_NOT_OBJECT', 'Request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

/**
 * Buffers a body up to `limit` bytes. Past the limit it rejects with 413 but keeps consuming (and
 * dropping) the rest: destroying the request would reset the socket and the client would never see
 * the 413. A client that keeps sending is cut off shortly after (`discardRest`).
 */
function collect(req: IncomingMessage, limit: number): Promise<{ chunks: Buffer[]; size: number }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (over) return;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        discardRest(req);
        reject(httpError(413, 'BODY_TOO_LARGE', 'Request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => { if (!over) resolve({ chunks, size }); });
    req.on('error', (cause) => reject(
      httpError(400, 'BODY_ABORTED', 'Request body was not received in full', { cause }),
    ));
  });
}

/**
 * After a 413, lets Node drain (and drop) the rest of the body so the client reads its answer instead
 * of a TCP reset. A body of a declared length (up to `DISCARD_DECLARED_MAX`) is drained while bytes keep
 * coming: the grace counts from the last one, so a slow link or a loaded machine still gets its 413 whole.
 * A chunked or huge body is cut `DISCARD_GRACE_MS` after the 413 however it trickles (an endless chunked
 * body would otherwise hold the socket until `requestTimeout`).
 */
function discardRest(req: IncomingMessage): void {
  if (req.complete) return;
  req.resume();
  const socket = req.socket;
  const declared = Number(req.headers['content-length']);
  const timer = setTimeout(() => socket.destroy(), DISCARD_GRACE_MS);
  timer.unref();
  if (
    req.headers['transfer-encoding'] === undefined
    && Number.isSafeInteger(declared) && declared <= DISCARD_DECLARED_MAX
  ) {
    req.on('data', () => timer.refresh());
  }
  const stop = (): void => clearTimeout(timer);
  req.once('end', stop);
  socket.once('close', stop);
}
