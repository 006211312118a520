import { BASE_HEADERS, httpError } from '../http.ts';
import type { Events, ProjdexEvent } from '../../core/events.ts';
import type { Context } from './context.ts';

export interface SseOptions {
  /**
   * Milliseconds between heartbeat comments, which keep proxies and clients from timing out.
   * @default 15_000
   */
  readonly heartbeatMs?: number;
  /** Streams open at once; one more is refused with 503 instead of growing without bound. @default 32 */
  readonly maxClients?: number;
  /** Bytes a slow client may leave unread before its stream is cut. @default 1_048_576 */
  readonly maxBuffered?: number;
  /** Client reconnect delay advertised with `retry:`. @default 2_000 */
  readonly retryMs?: number;
}

/**
 * One event in the `text/event-stream` framing; `data` is one line of JSON, so no line splitting is
 * needed.
 */
export function frame({ id, type, data }: ProjdexEvent): string {
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * `GET /api/events`: the hub as server-sent events. A client that sends `Last-Event-ID` first receives
 * the events it missed; when they are no longer kept (or the id belongs to an earlier server life) it gets
 * one `reset` event and should reload its state. Every stream starts with a `ready` event whose id is
 * the newest event's, so a client that has seen nothing yet can still resume from there.
 */
export function eventsHandler(events: Events, {
  heartbeatMs = 15_000, maxClients = 32, maxBuffered = 1_048_576, retryMs = 2_000,
}: SseOptions = {}) {
  let open = 0;
  return ({ req, res, query, headers }: Context): undefined => {
    if (open >= maxClients) {
      throw httpError(503, 'TOO_MANY_LISTENERS', `Too many event streams open (limit ${maxClients})`, {
        headers: { 'Retry-After': '5' },
      });
    }
    const raw = req.headers['last-event-id'] ?? query.lastEventId;
    const resumeFrom = raw === undefined || raw === '' ? undefined : Number(raw);
    open++;
    res.writeHead(200, {
      ...BASE_HEADERS,
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    if (req.method === 'HEAD') {
      open--;
      res.end();
      return undefined;
    }
    res.socket?.setNoDelay(true);

    let ended = false;
    let off = (): void => {};
    let beat: ReturnType<typeof setInterval> | undefined;
    const write = (text: string): void => {
      if (ended) return;
      res.write(text);
      // A client that stopped reading is cut, not buffered forever.
      if (res.writableLength > maxBuffered) end();
    };
    const end = (): void => {
      if (ended) return;
      ended = true;
      open--;
      off();
      clearInterval(beat);
      res.end();
    };

    // Subscribe before replaying, so nothing emitted in between is lost; replayed ids are skipped live.
    let replayedUpTo = 0;
    res.on('close', end);
    off = events.subscribe((event) => { if (event.id > replayedUpTo) write(frame(event)); }, end);
    if (ended) return undefined; // The server is shutting down.
    beat = setInterval(() => write(': heartbeat\n\n'), heartbeatMs);
    beat.unref();

    write(`retry: ${retryMs}\n\n`);
    if (resumeFrom !== undefined) {
      const missed = Number.isSafeInteger(resumeFrom) && resumeFrom >= 0 && resumeFrom <= events.lastId
        ? events.since(resumeFrom) : undefined;
      if (missed === undefined) {
        const data = {
          reason: `events after ${String(raw)} are not kept by this server`,
          lastId: events.lastId,
        };
        write(`id: ${events.lastId}\nevent: reset\ndata: ${JSON.stringify(data)}\n\n`);
      } else {
        for (const event of missed) write(frame(event));
      }
    }
    replayedUpTo = events.lastId;
    write(`id: ${events.lastId}\nevent: ready\n`
      + `data: ${JSON.stringify({ lastId: events.lastId, instance: events.instance })}\n\n`);
    return undefined;
  };
}
