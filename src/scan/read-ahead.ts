/**
 * A first scan's test files, read ahead on the helper thread (walk/helper.ts) while the scanning thread
 * counts the ones already read: the opens, stats and reads of thousands of files leave the thread that
 * runs the rules. The same checked read as the scanning thread's (read-whole.ts `readChecked`): only files
 * the context let through (walked regular files), no link followed, at most `maxFileBytes` each.
 *
 * Bounded: files go in batches of {@link BATCH}, at most {@link WINDOW} batches of one call in hand at a
 * time (a batch is asked for when one is used up), and a batch stops at {@link BATCH_CHARS} of text; the
 * files it did not get to, like every file of a batch the helper did not answer (none running, or it
 * died), are read by the scanning thread as before.
 */
import type { Helper } from './walk/helper.ts';
import { CROSSED, NOT_OPENED, readChecked } from './read-whole.ts';
import { STAMP, writeStamp, type StampClock } from './incremental/snapshot.ts';

/** Files per batch asked of the helper. */
const BATCH = 128;
/** Batches of one call asked for and not used up, at most. */
const WINDOW = 4;
/** Text per batch, at most (UTF-16 code units): the rest of the batch is left to the scanning thread. */
const BATCH_CHARS = 1 << 20;

/** {@link ReadReply} code: read (its stamp taken; its text undefined when not a regular file or too big). */
export const READ = 2;
/** {@link ReadReply} code: not read by the helper (over the batch's budget): the scanning thread reads it. */
export const LEFT = 3;

export interface ReadRequest {
  readonly kind: 'read';
  readonly base: string;
  readonly realBase: string;
  readonly files: readonly string[];
  readonly maxFileBytes: number;
  readonly clock: StampClock;
}

export interface ReadReply {
  /** Per file: `NOT_OPENED`, `CROSSED` (read-whole.ts), {@link READ} or {@link LEFT}. */
  readonly codes: Uint8Array;
  readonly texts: Array<string | undefined>;
  /** Per file, its stamp (snapshot.ts) where the code is {@link READ}. */
  readonly stamps: Float64Array;
}

/** The helper thread's side: reads the batch in order. */
export function answerRead({ base, realBase, files, maxFileBytes, clock }: ReadRequest): ReadReply {
  const codes = new Uint8Array(files.length).fill(LEFT);
  const texts = new Array<string | undefined>(files.length).fill(undefined);
  const stamps = new Float64Array(files.length * STAMP).fill(NaN);
  let at = 0;
  const stamp = (_file: string, info: Parameters<typeof writeStamp>[2]): void => {
    writeStamp(stamps, at * STAMP, info, clock);
  };
  let chars = 0;
  for (; at < files.length && chars <= BATCH_CHARS; at++) {
    const got = readChecked(base, realBase, files[at]!, maxFileBytes, stamp);
    if (got === NOT_OPENED || got === CROSSED) { codes[at] = got; continue; }
    codes[at] = READ;
    texts[at] = got;
    chars += got?.length ?? 0;
  }
  return { codes, texts, stamps };
}

/** What the scanning thread does with one file's outcome (see context.ts). */
export interface ReadAheadOptions {
  readonly helper: Helper;
  readonly request: Omit<ReadRequest, 'kind' | 'files'>;
  /**
   * The text `readOnce` answers for `file`, from the helper's `code` (and `stamp` at `at` of `stamps`
   * when read); `LEFT`: read it on this thread.
   */
  readonly settle: (file: string, code: number, text: string | undefined, stamps: Float64Array, at: number)
    => string | undefined | Promise<string | undefined>;
  /** Told of a file the scan waits for that the helper has not answered yet (so a stuck read is named). */
  readonly waiting?: (file: string) => void;
}

interface Batch {
  readonly files: readonly string[];
  readonly calls: Calls;
  reply?: Promise<ReadReply | undefined>;
  answered: boolean;
  left: number;
}
interface Calls { readonly batches: Batch[]; next: number }

/** Reads files ahead for a context: `start` with a list, then `take` each file as its text is wanted. */
export function createReadAhead({ helper, request, settle, waiting }: ReadAheadOptions) {
  const ahead = new Map<string, { batch: Batch; at: number }>();
  const ask = (batch: Batch): void => {
    batch.reply = helper.ask<ReadReply>({ kind: 'read', ...request, files: batch.files });
    void batch.reply.then(() => { batch.answered = true; });
  };
  const askNext = (calls: Calls): void => {
    while (calls.next < calls.batches.length) {
      const batch = calls.batches[calls.next++]!;
      if (!batch.reply) { ask(batch); return; }
    }
  };
  return {
    /** Starts reading `files` (none of them asked for already) on the helper thread. */
    start(files: readonly string[]): void {
      const calls: Calls = { batches: [], next: 0 };
      for (let i = 0; i < files.length; i += BATCH) {
        const batch: Batch = { files: files.slice(i, i + BATCH), calls, answered: false, left: 0 };
        batch.left = batch.files.length;
        calls.batches.push(batch);
        batch.files.forEach((file, at) => ahead.set(file, { batch, at }));
      }
      for (let k = 0; k < WINDOW; k++) askNext(calls);
    },
    /** Whether `file` is being read ahead and not taken yet. */
    has: (file: string): boolean => ahead.has(file),
    /** The text of `file` (read ahead, see `has`), once; its batch is asked for now if it was not yet. */
    take(file: string): Promise<string | undefined> {
      const { batch, at } = ahead.get(file)!;
      ahead.delete(file);
      if (!batch.reply) ask(batch);
      if (!batch.answered) waiting?.(file);
      return batch.reply!.then((reply) => {
        if (--batch.left === 0) askNext(batch.calls);
        if (!reply) return settle(file, LEFT, undefined, new Float64Array(0), at);
        const text = reply.texts[at];
        reply.texts[at] = undefined; // read once: not kept once taken
        return settle(file, reply.codes[at]!, text, reply.stamps, at);
      });
    },
  };
}

export type ReadAhead = ReturnType<typeof createReadAhead>;
