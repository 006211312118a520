/**
 * The scan's helper thread, seen from the scanning thread: one worker (helper-thread.ts) per scan cache
 * (a scan process makes one), started on demand, kept, never keeping the process alive. It takes half of a
 * rescan's stat checks (stamper.ts) and subtrees of a first walk (walk-split.ts), so a scan uses the second core. Requests are
 * answered in turn; a helper that dies answers its pending requests with `undefined` (the caller does
 * the work itself) and is started again next time.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type MessagePort } from 'node:worker_threads';

interface HelperState {
  readonly worker: Worker;
  readonly pending: Map<number, (reply: unknown) => void>;
  next: number;
  /** True once the thread has loaded its modules and said so. */
  ready: boolean;
}

/**
 * The helper thread of one scan engine (made by `createScanCache`): started on demand, kept, never keeping
 * the process alive.
 */
export function createHelper() {
  let helper: HelperState | undefined;
  /** The status cell the thread watches (`watch`), handed to every thread started. */
  let watched: SharedArrayBuffer | undefined;
  let closed = false;

  /** Starts the helper thread if it is not running (loading takes a while: do it before it is needed). */
  const start = (): void => {
    if (helper) return;
    try {
      const worker = new Worker(new URL(`./helper-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url), {
        workerData: { projdexHelper: true, ...(watched ? { watch: watched } : {}) },
        // The files of a walk it takes (at most 40k, see walk-split.ts) live here until they are sent back.
        resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 96 },
      });
      worker.unref();
      const state: HelperState = { worker, pending: new Map(), next: 1, ready: false };
      worker.on('message', (message: { id?: number; ready?: boolean; reply?: unknown }) => {
        if (message.ready) { state.ready = true; return; }
        state.pending.get(message.id!)?.(message.reply);
        state.pending.delete(message.id!);
        // Not once closed: `terminate()` keeps the loop alive until the thread exits, and an unref here (a
        // reply that arrives after it) would let the process end with `close()` never settled.
        if (state.pending.size === 0 && helper === state) worker.unref();
      });
      const fail = (): void => {
        for (const [id, resolve] of state.pending) { state.pending.delete(id); resolve(undefined); }
        if (helper !== state) return;
        helper = undefined;
        // The watchdog lives on this thread: one that had loaded and then died is started again at once
        // (one that never loaded is not, or a thread that cannot start would be started forever).
        if (watched && state.ready && !closed) start();
      };
      worker.on('error', fail);
      worker.on('exit', fail);
      helper = state;
    } catch {
      helper = undefined;
    }
  };

  return {
    start,
    /**
     * Runs the scan process's watchdog (probe.ts `watchStatus` over `status`) on this thread, from now on and
     * in every thread started after one dies; starts the thread. False when no thread could be started.
     */
    watch(status: SharedArrayBuffer): boolean {
      if (watched) return helper !== undefined;
      watched = status;
      if (helper) helper.worker.postMessage({ watch: status });
      else start();
      return helper !== undefined;
    },
    /** Whether the helper has loaded and has nothing in hand: a request now starts at once. */
    idle: (): boolean => helper !== undefined && helper.ready && helper.pending.size === 0,
    /**
     * Sends `request` to the helper (starting it if needed) and resolves with its reply, or with `undefined`
     * when there is no helper or it died before answering.
     */
    ask<T>(request: object, transfer: Array<ArrayBuffer | MessagePort> = []): Promise<T | undefined> {
      start();
      const state = helper;
      if (!state) return Promise.resolve(undefined);
      const id = state.next++;
      return new Promise<T | undefined>((resolve) => {
        state.pending.set(id, resolve as (reply: unknown) => void);
        state.worker.ref();
        state.worker.postMessage({ id, request }, transfer);
      });
    },
    /** Ends the thread; pending requests answer `undefined` (their callers do the work themselves). */
    async close(): Promise<void> {
      closed = true;
      const state = helper;
      helper = undefined;
      await state?.worker.terminate();
    },
  };
}

export type Helper = ReturnType<typeof createHelper>;
