/**
 * Notes and runs of one part of a scan collected apart and handed on later in a fixed order, so the answer
 * does not depend on which part's reads came back first: each discovery family (scan/index.ts), and each
 * rule within the non-JS family (discover/others/index.ts).
 */
import { readerNotes } from '../readers/budget.ts';
import type { RunInfo, ScanContext } from './types.ts';

/** Notes kept per log before they are handed on: a hostile tree may cause thousands. */
const LOG_NOTES = 256;

/** One part's notes and runs: `run` it on a view whose notes (readers' too) and runs it keeps; `replay` them. */
export function partLog() {
  const notes = new Set<string>();
  const runs: RunInfo[] = [];
  // Cut long before the context's own cut (400 characters), so what reaches it is the same.
  const note = (message: string): void => { if (notes.size < LOG_NOTES) notes.add(message.slice(0, 1_000)); };
  return {
    run<T>(view: ScanContext, part: (ctx: ScanContext) => Promise<T>): Promise<T> {
      const own: ScanContext = Object.create(view);
      own.note = note;
      own.follow = (info) => { runs.push(info); };
      return readerNotes.run(note, () => part(own));
    },
    replay(ctx: ScanContext): void {
      for (const message of notes) ctx.note(message);
      for (const info of runs) ctx.follow(info);
    },
  };
}

/**
 * `Promise.all(items.map(...))` for work that notes and follows runs: each item's notes and runs reach
 * `ctx` in the items' order, whatever finishes first (a rescan answers some reads from what it kept, so
 * completion order differs from a full scan's).
 */
export async function allInOrder<T, R>(ctx: ScanContext, items: readonly T[],
  each: (ctx: ScanContext, item: T) => Promise<R>): Promise<R[]> {
  const logs = items.map(() => partLog());
  const results = await Promise.all(items.map((item, i) => logs[i]!.run(ctx, (own) => each(own, item))));
  for (const log of logs) log.replay(ctx);
  return results;
}
