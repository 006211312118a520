import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ScanResult } from './index.ts';
import type { WalkOptions } from './walk.ts';
import type { FoundTest } from './types.ts';
import type { PackedTests, ScanReply, ScanRequest } from './worker.ts';

/** The walk limits a worker scan takes: plain data, since functions and signals do not cross threads. */
export type WorkerScanOptions = Pick<WalkOptions, 'maxDepth' | 'maxEntries' | 'timeoutMs' | 'concurrency'>;

export interface ScanWorkerOptions {
  /**
   * V8 heap limits of the scanning thread. A small young generation keeps a big scan's garbage from
   * inflating the process (the 1M-file tree: ~650 MB peak RSS in-thread, see bench/README.md).
   * @default { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 512 }
   */
  readonly resourceLimits?: { readonly maxYoungGenerationSizeMb?: number; readonly maxOldGenerationSizeMb?: number };
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
export function createScanPool({ resourceLimits = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 512 } }: ScanWorkerOptions = {}) {
  // src/ runs as .ts under type stripping, dist/ as .js: load the worker file of the same kind.
  const entry = new URL(`./worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
  const pending = new Map<number, { resolve: (r: ScanResult) => void; reject: (e: Error) => void }>();
  let worker: Worker | undefined;
  let nextId = 1;

  const failAll = (error: Error): void => {
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };

  const start = (): Worker => {
    const w = new Worker(entry, { resourceLimits });
    w.unref(); // An idle scanner must not keep the process alive.
    w.on('message', (reply: ScanReply) => {
      const job = pending.get(reply.id);
      if (!job) return;
      pending.delete(reply.id);
      if ('result' in reply) job.resolve({ tests: unpackTests(reply.tests), ...reply.result });
      else job.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
      if (pending.size === 0) w.unref();
    });
    w.on('error', (error) => { if (worker === w) worker = undefined; failAll(error); });
    w.on('exit', (code) => { if (worker === w) worker = undefined; failAll(new Error(`scan worker exited with code ${code}`)); });
    return w;
  };

  return {
    scan(root: string, { maxDepth, maxEntries, timeoutMs, concurrency }: WorkerScanOptions = {}): Promise<ScanResult> {
      worker ??= start();
      const id = nextId++;
      const limits = Object.fromEntries(Object.entries({ maxDepth, maxEntries, timeoutMs, concurrency }).filter(([, v]) => v !== undefined));
      const request: ScanRequest = { id, root, options: limits };
      return new Promise<ScanResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker!.ref(); // A scan in flight keeps the process alive until it answers.
        worker!.postMessage(request);
      });
    },
    /** Stops the worker; scans still in flight reject. */
    async close(): Promise<void> {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
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
