import { request, type ClientRequest, type IncomingMessage } from 'node:http';

/** One parsed server-sent event, or a comment line (`: heartbeat`) as `{ comment }`. */
export interface SseEvent { readonly id?: string; readonly event?: string; readonly data?: string; readonly comment?: string }

/**
 * A plain `node:http` client for `text/event-stream`, as any client of `/api/events` would write one.
 * `next(predicate)` waits (with a deadline) for the first received event that matches.
 */
export async function openStream(url: string, headers: Record<string, string> = {}, { timeoutMs = 5_000 } = {}) {
  const received: SseEvent[] = [];
  let waiters: Array<() => void> = [];
  const { res, req } = await new Promise<{ res: IncomingMessage; req: ClientRequest }>((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => resolve({ res, req }));
    req.on('error', reject);
    req.setTimeout(timeoutMs, () => req.destroy(new Error('stream did not answer in time')));
    req.end();
  });
  req.setTimeout(0);
  let buffer = '';
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    body += chunk;
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const event: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) { received.push({ comment: line.slice(1).trim() }); continue; }
        const colon = line.indexOf(':');
        const field = line.slice(0, colon);
        const value = line.slice(colon + 1).replace(/^ /, '');
        event[field] = field === 'data' && event.data !== undefined ? `${event.data}\n${value}` : value;
      }
      if (Object.keys(event).length > 0 && !('retry' in event && Object.keys(event).length === 1)) received.push(event);
    }
    const wake = waiters;
    waiters = [];
    for (const w of wake) w();
  });
  const ended = new Promise<void>((resolve) => { res.on('close', resolve); res.on('end', resolve); });
  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    received,
    /** The raw body so far (for error answers). */
    body: () => body,
    ended,
    /** Resolves with the first event (from the start of the stream) that matches; rejects at the deadline. */
    async next(match: (e: SseEvent) => boolean, what = 'event', deadlineMs = timeoutMs): Promise<SseEvent> {
      const deadline = Date.now() + deadlineMs;
      for (;;) {
        const found = received.find(match);
        if (found) return found;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${what} within ${deadlineMs} ms; got ${JSON.stringify(received)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => { clearTimeout(timer); resolve(); });
        });
      }
    },
    close(): void { req.destroy(); },
  };
}

/** Events of a type, data parsed. */
export function ofType(events: readonly SseEvent[], type: string): Array<{ id: number; data: any }> {
  return events.filter((e) => e.event === type).map((e) => ({ id: Number(e.id), data: JSON.parse(e.data ?? 'null') }));
}
