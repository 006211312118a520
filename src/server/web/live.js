// Live events: a fetch-based reader of /api/events. EventSource cannot send an Authorization header and a
// token must never go into a URL, so the stream is read with fetch, and Last-Event-ID is kept here.
import { authHeaders, askToken, token } from './api.js';

/**
 * Connects and calls `onEvent({ id, type, data })` for each event; reconnects with the last id after a drop.
 * `onState('live' | 'offline')` reports the connection. Returns a function that stops it.
 */
export function connectLive({ onEvent, onState }) {
  let lastId = null;
  let stopped = false;
  let controller;
  let delay = 1000;

  const run = async () => {
    while (!stopped) {
      controller = new AbortController();
      try {
        const sent = token();
        const headers = { Accept: 'text/event-stream', ...authHeaders() };
        if (lastId !== null) headers['Last-Event-ID'] = lastId;
        const res = await fetch('/api/events', { headers, signal: controller.signal, cache: 'no-store' });
        // A token replaced while this request was on its way is tried before the prompt comes back.
        if (res.status === 401) { if (token() === sent) await askToken(sent !== null); continue; }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        onState('live');
        delay = 1000;
        await read(res.body, (event) => {
          if (event.id !== undefined) lastId = event.id;
          if (event.retry) delay = Number(event.retry) || delay;
          if (event.type) {
            onEvent({
              id: Number(event.id), type: event.type, data: event.data ? JSON.parse(event.data) : {},
            });
          }
        });
      } catch (error) {
        if (stopped) return;
      }
      if (stopped) return;
      onState('offline');
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 15000);
    }
  };
  run();
  return () => { stopped = true; controller?.abort(); };
}

/** Parses the event-stream framing: blocks separated by a blank line, `field: value` lines, `:` comments. */
async function read(body, emit) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replace(/\r\n?/g, '\n');
    let at;
    while ((at = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      const event = {};
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const val = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event.type = val;
        else if (field === 'data') event.data = event.data === undefined ? val : `${event.data}\n${val}`;
        else if (field === 'id') event.id = val;
        else if (field === 'retry') event.retry = val;
      }
      emit(event);
    }
  }
}
