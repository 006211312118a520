/**
 * Connection housekeeping the HTTP server does not do itself: a socket that never sends a byte is not
 * covered by `headersTimeout` (Node checks only requests that have begun), so 256 silent sockets would
 * hold every slot forever. Here a socket must begin a request within `firstRequestMs`, and once `max`
 * sockets are open a new one takes the place of the oldest socket with no request in flight (silent,
 * half-sent or idle between keep-alive requests); only when all are busy is the new one refused.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionLimits {
  /** Open connections kept at once. @default 256 */
  readonly max?: number;
  /** Time a connection has to begin its first request before it is closed. @default 10_000 */
  readonly firstRequestMs?: number;
}

interface Tracked {
  /** Requests received and not yet answered. */
  inFlight: number;
  /** Cleared once the first request arrives. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * Applies the limits to `server`; call before it listens.
 *
 * @example
 * limitConnections(server, { max: 256, firstRequestMs: 10_000 });
 */
export function limitConnections(
  server: Server,
  { max = 256, firstRequestMs = 10_000 }: ConnectionLimits = {},
): void {
  // Insertion order is age order: the first idle entry is the oldest idle socket.
  const open = new Map<Socket, Tracked>();
  // A backstop for descriptors; the eviction below keeps the count at `max` before Node's own cut.
  server.maxConnections = max + 1;

  server.on('connection', (socket: Socket) => {
    if (open.size >= max && !evictIdle(open)) {
      socket.destroy();
      return;
    }
    const timer = setTimeout(() => socket.destroy(), firstRequestMs);
    timer.unref();
    open.set(socket, { inFlight: 0, timer });
    socket.once('close', () => {
      clearTimeout(open.get(socket)?.timer);
      open.delete(socket);
    });
  });

  server.on('request', (req, res) => {
    const tracked = open.get(req.socket as Socket);
    if (!tracked) return;
    clearTimeout(tracked.timer);
    tracked.timer = undefined;
    tracked.inFlight++;
    res.once('close', () => { tracked.inFlight--; });
  });
}

/** Closes the oldest socket with no request in flight; false when every socket is busy. */
function evictIdle(open: Map<Socket, Tracked>): boolean {
  for (const [socket, tracked] of open) {
    if (tracked.inFlight > 0) continue;
    clearTimeout(tracked.timer);
    open.delete(socket);
    socket.destroy();
    return true;
  }
  return false;
}
