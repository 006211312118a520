/**
 * A first scan's test files, read ahead on the helper thread (walk/helper.ts) while the scanning thread
 * counts the ones already read: the opens, stats and reads of thousands of files leave the thread that
 * runs the rules. The same checked read as the scanning thread's (read-whole.ts `readChecked`): only files
 * the context let through (walked regular files), no link followed, at most `maxFileBytes` each.
 *
 * With a counter the helper knows ({@link AHEAD_COUNTERS}), the helper counts each file's cases itself and
 * sends back the counts, not the texts: files can then be given as soon as a rule knows it will count them
 * (JS: as each package's runner claims them), and are counted while the rules go on, holding no text.
 *
 * Bounded: files go in batches of {@link AHEAD_BATCH}, at most {@link WINDOW} batches of one call in hand at
 * a time (a batch is asked for when one is used up; counting, once one is answered: a reply holds numbers,
 * so every batch given may be in flight at once), and a batch stops at {@link BATCH_CHARS} of text; the files
 * it did not get to, like every file of a batch the helper did not answer (none running, or it died), are
 * read by the scanning thread as before.
 */
import type { Helper } from './walk/helper.ts';
import { CROSSED, NOT_OPENED, readChecked } from './read-whole.ts';
import { STAMP, writeStamp, type StampClock } from './incremental/snapshot.ts';
import { countCases } from '../discover/js/cases.ts';
import type { Counter } from '../rules/with-cases.ts';

/** Files per batch asked of the helper. */
export const AHEAD_BATCH = 128;
/** Batches of one call asked for and not used up, at most. */
const WINDOW = 4;
/** Text per batch, at most (UTF-16 code units): the rest of the batch is left to the scanning thread. */
const BATCH_CHARS = 1 << 20;

/** {@link ReadReply} code: read (its stamp taken; its text undefined when not a regular file or too big). */
export const READ = 2;
/** {@link ReadReply} code: not read by the helper (over the batch's budget): the scanning thread reads it. */
export const LEFT = 3;

/**
 * The counters a helper thread runs by name: module-level functions of `(text, file)` alone, so a count
 * made there is the one the scanning thread would make.
 */
export const AHEAD_COUNTERS: ReadonlyMap<string, Counter> = new Map([['js-cases', countCases]]);

/** The name the helper knows `count` by, if it does. */
export function counterName(count: Counter): string | undefined {
  for (const [name, known] of AHEAD_COUNTERS) if (known === count) return name;
  return undefined;
}

export interface ReadRequest {
  readonly kind: 'read';
  readonly base: string;
  readonly realBase: string;
  readonly files: readonly string[];
  readonly maxFileBytes: number;
  readonly clock: StampClock;
  /** A name of {@link AHEAD_COUNTERS}: the reply carries each file's count instead of its text. */
  readonly counter?: string | undefined;
}

export interface ReadReply {
  /** Per file: `NOT_OPENED`, `CROSSED` (read-whole.ts), {@link READ} or {@link LEFT}. */
  readonly codes: Uint8Array;
  /** Per file read, its text (without a counter) or its count (NaN: none); undefined when not read. */
  readonly values: Array<string | number | undefined>;
  /** Per file, its stamp (snapshot.ts) where the code is {@link READ}. */
  readonly stamps: Float64Array;
}

/** The helper thread's side: reads the batch in order (and counts each file, with a counter). */
export function answerRead({ base, realBase, files, maxFileBytes, clock, counter }: ReadRequest): ReadReply {
  const codes = new Uint8Array(files.length).fill(LEFT);
  const values = new Array<string | number | undefined>(files.length).fill(undefined);
  const stamps = new Float64Array(files.length * STAMP).fill(NaN);
  const count = counter === undefined ? undefined : AHEAD_COUNTERS.get(counter);
  // A counter this thread does not know: every file is left to the scanning thread.
  if (counter !== undefined && !count) return { codes, values, stamps };
  let at = 0;
  const stamp = (_file: string, info: Parameters<typeof writeStamp>[2]): void => {
    writeStamp(stamps, at * STAMP, info, clock);
  };
  let chars = 0;
  for (; at < files.length && chars <= BATCH_CHARS; at++) {
    const got = readChecked(base, realBase, files[at]!, maxFileBytes, stamp);
    if (got === NOT_OPENED || got === CROSSED) { codes[at] = got; continue; }
    if (count && got !== undefined) {
      // A counter that throws leaves the file to the scanning thread, where it throws as it would have;
      // here it would end the thread's turn of requests.
      try { values[at] = count(got, files[at]!) ?? NaN; } catch { continue; }
    } else {
      values[at] = got;
    }
    codes[at] = READ;
    chars += got?.length ?? 0;
  }
  return { codes, values, stamps };
}

/**
 * What the scanning thread does with one file's outcome (see context.ts): `V` is what a file read ahead
 * gives, its text (`string`), or its count (`number`) with a `counter`.
 */
export interface ReadAheadOptions<V extends string | number> {
  readonly helper: Helper;
  readonly request: Omit<ReadRequest, 'kind' | 'files'>;
  /** The name of the counter (see {@link AHEAD_COUNTERS}) each file is counted with, instead of sent back. */
  readonly counter?: string;
  /**
   * The text `readOnce` answers for `file` (its count, with `counter`: undefined for none), from the
   * helper's `code` (and `stamp` at `at` of `stamps` when read); `LEFT`: read (and count) it on this thread.
   */
  readonly settle: (file: string, code: number, value: V | undefined, stamps: Float64Array, at: number)
    => V | undefined | Promise<V | undefined>;
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

/**
 * Reads (or counts) files ahead for a context: `start` with a list, then `take` each file as its text (or
 * count) is wanted.
 */
export function createReadAhead<V extends string | number>(
  { helper, request, counter, settle, waiting }: ReadAheadOptions<V>,
) {
  const ahead = new Map<string, { batch: Batch; at: number }>();
  const ask = (batch: Batch): void => {
    batch.reply = helper.ask<ReadReply>({ kind: 'read', ...request, files: batch.files, counter });
    void batch.reply.then(() => {
      batch.answered = true;
      // Counts hold no text: the next batch is asked for at once, so the helper keeps counting while the
      // rules that gave the files go on.
      if (counter !== undefined) askNext(batch.calls);
    });
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
      for (let i = 0; i < files.length; i += AHEAD_BATCH) {
        const batch: Batch = { files: files.slice(i, i + AHEAD_BATCH), calls, answered: false, left: 0 };
        batch.left = batch.files.length;
        calls.batches.push(batch);
        batch.files.forEach((file, at) => ahead.set(file, { batch, at }));
      }
      for (let k = 0; k < WINDOW; k++) askNext(calls);
    },
    /** Whether `file` is being read ahead and not taken yet. */
    has: (file: string): boolean => ahead.has(file),
    /** The text (or count) of `file` (see `has`), once; its batch is asked for now if it was not yet. */
    take(file: string): Promise<V | undefined> {
      const { batch, at } = ahead.get(file)!;
      ahead.delete(file);
      if (!batch.reply) ask(batch);
      if (!batch.answered) waiting?.(file);
      return batch.reply!.then((reply) => {
        if (--batch.left === 0) askNext(batch.calls);
        if (!reply) return settle(file, LEFT, undefined, new Float64Array(0), at);
        const value = reply.values[at] as V | undefined;
        reply.values[at] = undefined; // read once: not kept once taken
        return settle(file, reply.codes[at]!, value, reply.stamps, at);
      });
    },
  };
}

export type ReadAhead<V extends string | number> = ReturnType<typeof createReadAhead<V>>;
