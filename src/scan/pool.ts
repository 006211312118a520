import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ScanOptions, ScanResult } from './index.ts';
import type { WalkOptions } from './walk.ts';
import type { FoundTest } from './types.ts';
import type { PackedTests, ScanReply, ScanRequest } from './worker.ts';

/**
 * The walk limits a worker scan takes, and the previous snapshot: plain data, since functions and signals
 * do not cross threads.
 */
export type WorkerScanOptions = Pick<WalkOptions, 'maxDepth' | 'maxEntries' | 'timeoutMs' | 'concurrency'> & Pick<ScanOptions, 'previous'>;

type HeapLimits = { readonly maxYoungGenerationSizeMb?: number; readonly maxOldGenerationSizeMb?: number };

export interface ScanWorkerOptions {
  /**
   * V8 heap limits of the scanning thread. Small limits make V8 collect a big scan's garbage early
   * instead of growing the process (1M-file tree: 526 MB peak RSS with 512 MB, 425 MB with 256 MB).
   * @default { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 }
   */
  readonly resourceLimits?: HeapLimits;
  /**
   * Limits of a one-off thread that retries a scan which ran out of memory under `resourceLimits`
   * (a tree near the walk's entry cap); null to fail such a scan at once.
   * @default { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 2048 }
   */
  readonly fallbackLimits?: HeapLimits | null;
}

/**
 * Runs scans on one worker thread, started on first use and kept for the next scan: the walk and the
 * rules never run on the thread that answers HTTP, and their garbage lives in a heap of its own.
 * A worker that dies (out of memory, say) fails the scans it held and is replaced on the next one.
 *
 * @example
 * const pool = createScanPool();
 * const result = await pool.scan('/home/me/app');
 * await pool.close();
 */
export function createScanPool({
  resourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 256 },
  fallbackLimits = { maxYoungGenerationSizeMb: 16, maxOldGenerationSizeMb: 2048 },
}: ScanWorkerOptions = {}) {
  // src/ runs as .ts under type stripping, dist/ as .js: load the worker file of the same kind.
  const entry = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  let shared: ReturnType<typeof spawn> | undefined;
  let nextId = 1;

  const submit = (thread: ReturnType<typeof spawn>, root: string, { maxDepth, maxEntries, timeoutMs, concurrency, previous }: WorkerScanOptions): Promise<ScanResult> => {
    const limits = Object.fromEntries(Object.entries({ maxDepth, maxEntries, timeoutMs, concurrency, previous }).filter(([, v]) => v !== undefined && v !== null));
    return thread.run({ id: nextId++, root, options: limits });
  };

  return {
    async scan(root: string, options: WorkerScanOptions = {}): Promise<ScanResult> {
      shared ??= spawn(entry, resourceLimits, (dead) => { if (shared === dead) shared = undefined; });
      try {
        return await submit(shared, root, options);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY' || !fallbackLimits) throw error;
        // Rare: a tree near the entry cap. One roomier thread for this scan only, then the small one again.
        const roomy = spawn(entry, fallbackLimits, () => {});
        try {
          return await submit(roomy, root, options);
        } finally {
          await roomy.terminate();
        }
      }
    },
    /** Stops the worker; scans still in flight reject. */
    async close(): Promise<void> {
      const thread = shared;
      shared = undefined;
      await thread?.terminate();
    },
  };
}

/** One worker thread answering scan requests by id; `onDeath` runs once it has exited or failed. */
function spawn(entry: URL, resourceLimits: HeapLimits, onDeath: (thread: ReturnType<typeof spawn>) => void) {
  const worker = new Worker(entry, { resourceLimits });
  worker.unref(); // An idle scanner must not keep the process alive.
  const pending = new Map<number, { resolve: (r: ScanResult) => void; reject: (e: Error) => void }>();
  const failAll = (error: Error): void => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
    onDeath(thread);
  };
  worker.on('message', (reply: ScanReply) => {
    const job = pending.get(reply.id);
    if (!job) return;
    pending.delete(reply.id);
    if ('result' in reply) job.resolve({ tests: unpackTests(reply.tests), ...reply.result });
    else job.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    if (pending.size === 0) worker.unref();
  });
  worker.on('error', failAll);
  worker.on('exit', (code) => failAll(new Error(`scan worker exited with code ${code}`)));
  const thread = {
    run(request: ScanRequest): Promise<ScanResult> {
      return new Promise<ScanResult>((resolve, reject) => {
        pending.set(request.id, { resolve, reject });
        worker.ref(); // A scan in flight keeps the process alive until it answers.
        worker.postMessage(request);
      });
    },
    terminate: async (): Promise<void> => { await worker.terminate(); },
  };
  return thread;
}

export type ScanPool = ReturnType<typeof createScanPool>;

/** The objects worker.ts `packTests` was given, equal field for field (no `cases` key where there was none). */
function unpackTests({ files, frameworks, kinds, cases }: PackedTests): FoundTest[] {
  if (kinds.length === 0) return [];
  return files.split('\0').map((file, i) => {
    const framework = frameworks[kinds[i]!]!;
    const n = cases[i]!;
    return Number.isNaN(n) ? { file, framework } : { file, framework, cases: n };
  });
}
