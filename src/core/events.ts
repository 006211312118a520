import { randomUUID } from 'node:crypto';

/** Names of the events projdex publishes (served as server-sent events at `/api/events`). */
export type EventType =
  | 'project.created' | 'project.updated' | 'project.deleted'
  | 'scan.started' | 'scan.progress' | 'scan.finished' | 'scan.failed'
  | 'settings.changed'
  | 'run.started' | 'run.output' | 'run.file' | 'run.finished'
  | 'process.started' | 'process.output' | 'process.exited';

export interface ProjdexEvent {
  /** Increasing within one server's life, from 1. */
  readonly id: number;
  readonly type: EventType;
  readonly data: Record<string, unknown>;
}

export interface EventsOptions {
  /** Events kept for `Last-Event-ID` resume. @default 1000 */
  readonly keep?: number;
  /** Bytes of event data (as JSON) kept for resume, whatever their count. @default 4 MiB */
  readonly keepBytes?: number;
}

/**
 * The in-process event hub: state changes are published here, and listeners (the SSE route, the watcher)
 * subscribe. Listeners are called synchronously; one that throws does not stop the others.
 *
 * @example
 * const events = createEvents();
 * const off = events.subscribe((e) => console.log(e.type));
 * events.emit('settings.changed', { key: 'a' });
 * off();
 */
export function createEvents({ keep = 1000, keepBytes = 4 * 1024 * 1024 }: EventsOptions = {}) {
  // Ids restart with each server life; a client holding an id of an earlier life can tell by this.
  const instance = randomUUID();
  const recent: ProjdexEvent[] = [];
  // Sizes of `recent`'s data as JSON, and their sum: big events are dropped from the buffer sooner.
  const sizes: number[] = [];
  let bytes = 0;
  const listeners = new Map<(event: ProjdexEvent) => void, (() => void) | undefined>();
  let lastId = 0;
  let closed = false;
  return {
    emit(type: EventType, data: Record<string, unknown>): ProjdexEvent {
      const event = { id: ++lastId, type, data };
      const size = JSON.stringify(data).length;
      recent.push(event);
      sizes.push(size);
      bytes += size;
      while (recent.length > keep || (bytes > keepBytes && recent.length > 1)) {
        recent.shift();
        bytes -= sizes.shift()!;
      }
      for (const listener of [...listeners.keys()]) {
        try { listener(event); } catch { /* a failing listener must not break the publisher */ }
      }
      return event;
    },
    /**
     * Adds a listener; `onClose` runs once when the hub closes (server shutdown), so a long-lived stream
     * can end instead of holding the server open. Subscribing to a closed hub calls `onClose` at once.
     */
    subscribe(listener: (event: ProjdexEvent) => void, onClose?: () => void): () => void {
      if (closed) {
        onClose?.();
        return () => {};
      }
      listeners.set(listener, onClose);
      return () => { listeners.delete(listener); };
    },
    /** Events after `id` still kept, oldest first; `undefined` when some were already dropped. */
    since(id: number): ProjdexEvent[] | undefined {
      const first = recent[0];
      if (first && id < first.id - 1) return undefined;
      return recent.filter((event) => event.id > id);
    },
    /** Random per hub (per server life): ids are only comparable within one. */
    instance,
    /** Id of the newest event, 0 before the first. */
    get lastId(): number { return lastId; },
    get listenerCount(): number { return listeners.size; },
    /** Ends every subscription (their `onClose` runs); later emits reach no one. Idempotent. */
    close(): void {
      if (closed) return;
      closed = true;
      const closers = [...listeners.values()];
      listeners.clear();
      for (const onClose of closers) {
        try { onClose?.(); } catch { /* one stream failing to end must not keep the others open */ }
      }
    },
  };
}

export type Events = ReturnType<typeof createEvents>;
