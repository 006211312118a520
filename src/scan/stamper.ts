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
import { pushStamp, type StampClock, type StatLike } from './snapshot.ts';

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
 * Stamps of `paths` (relative to `base`, which is `''` when the process's working directory is the root;
 * `''` is the root, stat'ed as `root`), four numbers each.
 */
export function stampPaths(base: string, paths: readonly string[], clock: StampClock, root = base): Float64Array {
  const out: number[] = [];
  for (const p of paths) pushStamp(out, lstatOrUndefined(p === '' ? root : base + p), clock);
  return Float64Array.from(out);
}

let helper: { worker: Worker; pending: Map<number, (stamps: Float64Array) => void>; next: number } | undefined;

/**
 * Like {@link stampPaths}, on the helper thread (started on first use, kept, never keeping the process
 * alive); falls back to this thread if the helper cannot start.
 */
export function stampElsewhere(base: string, paths: readonly string[], clock: StampClock, root = base): Promise<Float64Array> {
  if (!helper) {
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
      return Promise.resolve(stampPaths(base, paths, clock, root));
    }
  }
  const state = helper;
  const id = state.next++;
  return new Promise<Float64Array>((resolve) => {
    state.pending.set(id, (stamps) => resolve(stamps.length === paths.length * 4 ? stamps : stampPaths(base, paths, clock, root)));
    state.worker.ref();
    state.worker.postMessage({ id, base, root, paths: paths.join('\0'), count: paths.length, clock } satisfies StampRequest);
  });
}

if (!isMainThread && (workerData as { stamper?: boolean } | null)?.stamper) {
  parentPort!.on('message', ({ id, base, root, paths, count, clock }: StampRequest) => {
    const stamps = stampPaths(base, count === 0 ? [] : paths.split('\0'), clock, root);
    parentPort!.postMessage({ id, stamps } satisfies StampReply, [stamps.buffer as ArrayBuffer]);
  });
}
