/**
 * A run's output: every piece kept in a 1 MiB tail for the record, and sent as `run.output` events at
 * most once per `everyMs`, each carrying what came since the last one.
 */
import type { Events } from '../events.ts';
import { createTail } from './tail.ts';

/** Characters of output one `run.output` event carries at most. */
const MAX_EVENT_TEXT = 16 * 1024;

export function createRunOutput({ events, id, projectId, everyMs = 100 }: { events?: Events | undefined; id: number; projectId: number; everyMs?: number }) {
  const tail = createTail();
  let pending = '';
  const flush = (): void => {
    if (pending === '') return;
    events?.emit('run.output', { id, project_id: projectId, text: pending });
    pending = '';
  };
  const ticker = setInterval(flush, everyMs);
  return {
    write(text: string): void {
      tail.push(Buffer.from(text));
      pending += text;
      // A flood between two ticks keeps only its end in the event (the hub keeps recent events for
      // resuming clients, so each stays small); the record keeps the last 1 MiB.
      if (pending.length > MAX_EVENT_TEXT) pending = pending.slice(-MAX_EVENT_TEXT);
    },
    /** The kept text so far. */
    text: (): string => tail.text(),
    /** Sends what is pending and stops the ticker; returns the kept text. */
    end(): string {
      clearInterval(ticker);
      flush();
      return tail.text();
    },
  };
}
