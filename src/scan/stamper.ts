/**
 * Stamps (lstat) a list of paths on a helper thread, so a scan's bookkeeping runs on the second core
 * while the scanning thread walks or runs the rules: the directory stamps of a first scan, half of a
 * rescan's checks. Stamping after a directory was listed is safe: anything changed since the scan
 * started has a time inside the racy window and is recorded as never matching (see snapshot.ts).
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { lstatSync } from 'node:fs';
import { STAMP, writeStamp, type StampClock, type StatLike } from './snapshot.ts';

/** `lstatSync`, undefined when the path is missing or cannot be stat'ed. */
export function lstatOrUndefined(abs: string): StatLike | undefined {
  try {
    return lstatSync(abs, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

interface StampRequest {
  readonly id: number; readonly base: string; readonly root: string; readonly paths: string; readonly count: number; readonly clock: StampClock;
}
interface StampReply { readonly id: number; readonly stamps: Float64Array }

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

let helper: { worker: Worker; pending: Map<number, (stamps: Float64Array) => void>; next: number } | undefined;

/**
 * Starts the helper thread now (a scan process does once it has loaded), so the first rescan does not
 * wait for a thread to load its module.
 */
export function startStamper(): void {
  if (helper) return;
  try {
    const worker = new Worker(new URL(`./stamper${extname(fileURLToPath(import.meta.url))}`, import.meta.url), {
      workerData: { stamper: true }, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 64 },
    });
    worker.unref();
    const state = { worker, pending: new Map<number, (stamps: Float64Array) => void>(), next: 1 };
    worker.on('message', ({ id, stamps }: StampReply) => {
      state.pending.get(id)?.(stamps);
      state.pending.delete(id);
      if (state.pending.size === 0) worker.unref();
    });
    const fail = (): void => {
      // The helper died: finish its jobs here, start a new one next time.
      if (helper === state) helper = undefined;
      for (const [id, resolve] of state.pending) { state.pending.delete(id); resolve(new Float64Array(0)); }
    };
    worker.on('error', fail);
    worker.on('exit', fail);
    helper = state;
  } catch {
    helper = undefined;
  }
}

/**
 * Like {@link stampPaths} over the first `count` of the `\0`-joined `joined`, on the helper thread
 * (started on first use, kept, never keeping the process alive); this thread does it if the helper cannot.
 * Joined, as a snapshot keeps its paths: the helper splits them, not this thread.
 */
export function stampElsewhere(base: string, joined: string, count: number, clock: StampClock, root = base): Promise<Float64Array> {
  startStamper();
  const here = (): Float64Array => stampPaths(base, count === 0 ? [] : joined.split('\0', count), clock, root);
  const state = helper;
  if (!state) return Promise.resolve(here());
  const id = state.next++;
  return new Promise<Float64Array>((resolve) => {
    state.pending.set(id, (stamps) => resolve(stamps.length === count * STAMP ? stamps : here()));
    state.worker.ref();
    state.worker.postMessage({ id, base, root, paths: joined, count, clock } satisfies StampRequest);
  });
}

if (!isMainThread && (workerData as { stamper?: boolean } | null)?.stamper) {
  parentPort!.on('message', ({ id, base, root, paths, count, clock }: StampRequest) => {
    const stamps = stampPaths(base, count === 0 ? [] : paths.split('\0', count), clock, root);
    parentPort!.postMessage({ id, stamps } satisfies StampReply, [stamps.buffer as ArrayBuffer]);
  });
}
