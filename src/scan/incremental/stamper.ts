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
 * Stamps of `paths` from index `from` on (relative to `base`, which is `''` when the process's working
 * directory is the root; `''` is the root, stat'ed as `root`), four numbers each.
 */
export function stampPaths(base: string, paths: readonly string[], clock: StampClock, root = base, from = 0): Float64Array {
  const out = new Float64Array(Math.max(0, paths.length - from) * STAMP);
  for (let i = from; i < paths.length; i++) {
    const p = paths[i]!;
    writeStamp(out, (i - from) * STAMP, lstatOrUndefined(p === '' ? root : base + p), clock);
  }
  return out;
}

/** A request for the helper thread (helper-thread.ts): stamps of the first `count` of the joined `paths`. */
export interface StampRequest {
  readonly kind: 'stamp'; readonly base: string; readonly root: string; readonly paths: string; readonly count: number;
  readonly clock: StampClock;
}

/**
 * Like {@link stampPaths} over the first `count` of the `\0`-joined `joined`, on the helper thread
 * (helper.ts); this thread does it if there is none or it cannot. Joined, as a snapshot keeps its paths: the
 * helper splits them, not this thread.
 */
export async function stampElsewhere(base: string, joined: string, count: number, clock: StampClock, root = base,
  helper?: Helper): Promise<Float64Array> {
  const request: StampRequest = { kind: 'stamp', base, root, paths: joined, count, clock };
  const stamps = await helper?.ask<Float64Array>(request);
  return stamps && stamps.length === count * STAMP ? stamps : answerStamp(request);
}

/** What the helper thread does with a {@link StampRequest}. */
export function answerStamp({ base, root, paths, count, clock }: StampRequest): Float64Array {
  return stampPaths(base, count === 0 ? [] : paths.split('\0', count), clock, root);
}
