/**
 * The apply thread, seen from the store (file databases only): it runs the last transaction of a big
 * save (`finish.ts` `applyStaged`) on a second connection, so that transaction (100k changed rows: about
 * half a second) does not hold the HTTP thread. Started on demand, never keeping the process alive. While
 * a big save runs, the store's own connection leaves WAL checkpoints (copying tens of megabytes into the
 * database: 40-160 ms measured on a commit of the HTTP thread) to this thread as well.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { HttpError } from '../errors.ts';
import type { ApplyRequest, WholeSaveRequest } from './finish.ts';

interface Reply {
  readonly id: number; readonly ok?: boolean; readonly generation?: number; readonly list?: Uint8Array;
  readonly error?: Record<string, unknown> & { message: string };
}
/**
 * A save in the thread's answer: the generation it saved, or false (the project gone, or another save of it
 * first), and the list it built when asked; `ok` alone for a checkpoint.
 */
export interface ThreadSave { readonly ok: boolean; readonly saved: number | false; readonly list?: Uint8Array }
interface Pending { resolve(reply: ThreadSave | undefined): void; reject(error: Error): void }

export function createApplier(file: string, maxBytes: number | undefined) {
  let thread: { worker: Worker; pending: Map<number, Pending>; next: number } | undefined;

  const start = (): NonNullable<typeof thread> | undefined => {
    if (thread) return thread;
    try {
      const worker = new Worker(new URL(`./apply-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url), {
        workerData: maxBytes === undefined ? { file } : { file, maxBytes },
        // A big save's rows arrive as one message and go to SQLite in one pass: short-lived objects that a
        // young generation of V8's default size (tens of MB, kept once grown) would hold on to between saves.
        resourceLimits: { maxYoungGenerationSizeMb: 4 },
      });
      worker.unref();
      const state = { worker, pending: new Map<number, Pending>(), next: 1 };
      worker.on('message', ({ id, ok, generation, list, error }: Reply) => {
        const waiting = state.pending.get(id);
        state.pending.delete(id);
        if (state.pending.size === 0) worker.unref();
        if (!error) {
          const saved = ok === true && generation !== undefined ? generation : false;
          waiting?.resolve({ ok: ok === true, saved, ...(list ? { list } : {}) });
          return;
        }
        const { message, status, code, ...fields } = error;
        waiting?.reject(typeof status === 'number'
          ? new HttpError(status, String(code), message)
          : Object.assign(new Error(message), { code, ...fields }));
      });
      // A thread that fails or exits answers what it had with undefined: the store applies in its own thread.
      const fail = (): void => {
        if (thread === state) thread = undefined;
        for (const [id, waiting] of state.pending) { state.pending.delete(id); waiting.resolve(undefined); }
      };
      worker.on('error', fail);
      worker.on('exit', fail);
      thread = state;
      return state;
    } catch {
      return undefined;
    }
  };

  const send = (request: ApplyRequest | WholeSaveRequest | 'checkpoint'): Promise<ThreadSave | undefined> => {
    const state = start();
    if (!state) return Promise.resolve(undefined);
    const id = state.next++;
    state.worker.ref();
    return new Promise((resolve, reject) => {
      state.pending.set(id, { resolve, reject });
      state.worker.postMessage({ id, request });
    });
  };

  return {
    /** Starts the thread ahead of its first request (loading it takes a while). */
    warm: (): void => { start(); },
    /**
     * Runs the last transaction of a big save in the thread: its outcome (see `applyStaged`: the generation
     * saved, or false), or undefined when the thread could not run it, so the caller runs it itself. Rejects
     * with the transaction's error.
     */
    async apply(request: ApplyRequest): Promise<number | false | undefined> {
      return (await send(request))?.saved;
    },
    /** A whole save in the thread (`saveWhole`): its outcome and list, or undefined as for `apply`. */
    saveWhole: (request: WholeSaveRequest): Promise<ThreadSave | undefined> => send(request),
    /** Copies the WAL into the database in the thread; undefined when the thread could not. */
    async checkpoint(): Promise<boolean | undefined> {
      return (await send('checkpoint'))?.ok;
    },
    close(): void {
      const state = thread;
      thread = undefined;
      if (state) void state.worker.terminate();
    },
  };
}

export type Applier = ReturnType<typeof createApplier>;
