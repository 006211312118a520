/**
 * Stamps (lstat) lists of paths, here or on the helper thread (helper.ts), so a rescan's quick check runs
 * on both cores. Stamping after a directory was listed is safe: anything changed since the scan started
 * has a time inside the racy window and is recorded as never matching (see snapshot.ts).
 */
import { lstatSync } from 'node:fs';
import type { Helper } from '../walk/helper.ts';
import { STAMP, writeStamp, type StampClock, type StatLike } from './snapshot.ts';

/** `lstatSync`, undefined when the path is missing or cannot be stat'ed. */
export function lstatOrUndefined(abs: string): StatLike | undefined {
  try {
    return lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * Stamps of `paths` (relative to `base`, which is `''` when the process's working directory is the root; `''`
 * is the root, stat'ed as `root`), four numbers each.
 */
export function stampPaths(
  base: string, paths: readonly string[], clock: StampClock, root = base,
): Float64Array {
  const out = new Float64Array(paths.length * STAMP);
  stampRange(out, paths, 0, paths.length, base, root, clock);
  return out;
}

/** Writes the stamps of `paths[start..end)` at their own indexes of `out`. */
function stampRange(out: Float64Array, paths: readonly string[], start: number, end: number, base: string,
  root: string, clock: StampClock): void {
  for (let i = start; i < end; i++) {
    const p = paths[i]!;
    writeStamp(out, i * STAMP, lstatOrUndefined(p === '' ? root : base + p), clock);
  }
}

/**
 * Paths a thread claims at a time: few enough that the last chunk the other thread holds is short to wait
 * for (~0.5 ms of lstat), many enough that claiming costs nothing beside the stats.
 */
const CHUNK = 256;

/** How long this thread waits for a chunk the helper claimed before it stamps that chunk itself. */
const CLAIMED_WAIT_MS = 20;

/**
 * A request for the helper thread (helper-thread.ts): stamps of the first `count` of the joined `paths`,
 * claimed a chunk at a time from the counter both threads share (`claim`), written into `stamps` (four
 * numbers per path), each chunk marked in `written` once its stamps are in.
 */
export interface StampRequest {
  readonly kind: 'stamp'; readonly base: string; readonly root: string; readonly paths: string;
  readonly count: number; readonly clock: StampClock;
  readonly claim: SharedArrayBuffer; readonly written: SharedArrayBuffer; readonly stamps: SharedArrayBuffer;
}

/**
 * Stamps of `list` (its paths also `\0`-joined in `joined`, as a snapshot keeps them: the helper splits them,
 * not this thread), shared with the helper thread: both claim chunks from one counter, so neither idles while
 * the other still has a fixed half to do (the helper may start late, or be slower). `first` is this
 * thread's other work, done now while the helper starts; the function returned takes this thread's share and
 * gives the stamps. Called later, this thread does other work meanwhile and the helper stamps alone (what it
 * has not claimed by then is stamped here). Without a helper, or one that never answers, every chunk is
 * stamped here.
 */
export function stampShared(
  base: string, joined: string, list: readonly string[], clock: StampClock, root: string,
  helper: Helper | undefined, first: () => void,
): () => Float64Array {
  const count = list.length;
  const chunks = Math.ceil(count / CHUNK);
  const request: StampRequest = {
    kind: 'stamp', base, root, paths: joined, count, clock, claim: new SharedArrayBuffer(4),
    written: new SharedArrayBuffer(chunks * 4), stamps: new SharedArrayBuffer(count * STAMP * 8),
  };
  // Not awaited: what the helper has not claimed by the time this thread is done is stamped here.
  if (count > CHUNK) void helper?.ask(request);
  first();
  return () => {
    stampChunks(request, list);
    const written = new Int32Array(request.written);
    for (let chunk = 0; chunk < chunks; chunk++) {
      if (Atomics.load(written, chunk) === 1) continue;
      // Claimed by the helper and not yet written: it is in hand there, unless that thread stalls or died.
      Atomics.wait(written, chunk, 0, CLAIMED_WAIT_MS);
      if (Atomics.load(written, chunk) !== 1) stampChunk(request, list, chunk);
    }
    return new Float64Array(request.stamps);
  };
}

/** What the helper thread does with a {@link StampRequest}: claims and stamps chunks until none is left. */
export function answerStamp(request: StampRequest): void {
  // Asked late (this thread busy with an earlier request): the scanning thread took every chunk already.
  if (Atomics.load(new Int32Array(request.claim), 0) >= request.count) return;
  stampChunks(request, request.paths.split('\0', request.count));
}

/** Claims chunks of `list` from the request's counter and stamps each, until none is left. */
function stampChunks(request: StampRequest, list: readonly string[]): void {
  const claim = new Int32Array(request.claim);
  for (let start = Atomics.add(claim, 0, CHUNK); start < request.count; start = Atomics.add(claim, 0, CHUNK)) {
    stampChunk(request, list, start / CHUNK);
  }
}

/** Stamps one chunk into the shared stamps and marks it written (waking a thread waiting for it). */
function stampChunk(
  { base, root, clock, count, stamps, written }: StampRequest, list: readonly string[], chunk: number,
): void {
  const end = Math.min(count, (chunk + 1) * CHUNK);
  stampRange(new Float64Array(stamps), list, chunk * CHUNK, end, base, root, clock);
  const marks = new Int32Array(written);
  Atomics.store(marks, chunk, 1);
  Atomics.notify(marks, chunk);
}
