import { availableParallelism } from 'node:os';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ScanOptions } from '../index.ts';
import { snapshotDigest } from '../incremental/snapshot-cache.ts';
import type { WalkOptions } from '../walk/walk.ts';
import type { ScanProgress } from './probe.ts';
import { startScanProcess, scanError, type ProcessScanResult, type ScanProcess } from './scan-process.ts';

export type { ScanProgress } from './probe.ts';

/**
 * The walk limits a pooled scan takes, and the previous snapshot (bytes, sent as they are by the IPC
 * channel's advanced serialisation): plain data, since functions and signals do not cross processes.
 */
export type WorkerScanOptions = Pick<WalkOptions, 'maxDepth' | 'maxEntries' | 'maxPathChars' | 'timeoutMs' | 'concurrency'>
  & Pick<ScanOptions, 'previous' | 'snapshotMaxEntries' | 'racyMs'>;

export interface ScanWorkerOptions {
  /** Scan processes running at once; more scans wait their turn. @default cores, at most 4 */
  readonly processes?: number;
  /**
   * V8 old-space limit of each scan process, in MB (`--max-old-space-size`). A scan that passes it ends
   * its process only; small limits also make V8 collect a big scan's garbage early. @default 256
   */
  readonly heapMb?: number;
  /**
   * Heap of a one-off process that retries a scan which ran out of memory (a tree near the walk's entry cap);
   * one such retry runs at a time. null fails such a scan at once. @default 2048
   */
  readonly fallbackHeapMb?: number | null;
  /**
   * Milliseconds a whole scan may take, walk and rules together; past it the process is killed (and
   * replaced for the next scan) and the scan fails naming the file it was reading. @default 180_000
   */
  readonly deadlineMs?: number;
  /** On `close()`, how long running scans may still finish before their processes are killed. @default 2_000 */
  readonly graceMs?: number;
  /** An idle process beyond the first is ended after this many milliseconds. @default 10_000 */
  readonly idleMs?: number;
  /** The scan processes' environment. @default the parent's own */
  readonly env?: NodeJS.ProcessEnv;
}

/** Per-call options of `pool.scan`. */
export interface PoolScanCall {
  /** Called about every 250 ms while the scan runs, and once at the end with the exact test count. */
  readonly onProgress?: (progress: ScanProgress) => void;
  /**
   * Resolve with the findings as soon as they arrive, the snapshot following as `snapshotLater` (the
   * process encodes it meanwhile), instead of with both in `snapshot`. @default false
   */
  readonly snapshotLater?: boolean;
  /**
   * For a caller that saves an incremental scan's `delta` (the store does while it still holds the scan the
   * snapshot in `previous` came from): an unchanged result, or one with its delta, comes without its tests,
   * only their count (`testCountOf`); reading its `tests` throws (see `withTestsLeftOut`). Such a caller
   * must scan again without it when the delta no longer applies. @default false
   */
  readonly deltaOnly?: boolean;
  /** Told once the quick check is done, before the rules run (see `ScanProbe.checkedDirs`). */
  readonly onDirsChecked?: (unchanged: boolean) => void;
}

interface Job {
  readonly root: string;
  readonly options: WorkerScanOptions;
  readonly onProgress: ((progress: ScanProgress) => void) | undefined;
  readonly onDirsChecked: ((unchanged: boolean) => void) | undefined;
  readonly deltaOnly: boolean;
  /** Times sent again after the kept process it went to had died (see `retryOrReject`). */
  readonly retried?: number;
  /** Sent again with the snapshot's bytes: the process it was named to no longer held them. */
  readonly withBytes?: boolean;
  resolve(result: ProcessScanResult): void;
  reject(error: Error): void;
}

/**
 * Runs scans in child processes: the walk and the rules never run in the server's process, so nothing a
 * project holds (a runaway expansion, a regex that backtracks for minutes, a huge allocation) can stall
 * or crash it. A process serves one scan at a time and is kept for the next; one that dies, runs out of
 * memory or passes the deadline is killed and replaced on demand.
 *
 * @example
 * const pool = createScanPool({ deadlineMs: 60_000 });
 * const result = await pool.scan('/home/me/app', {}, { onProgress: (p) => console.log(p.files) });
 * await pool.close();
 */
export function createScanPool({
  processes = Math.min(availableParallelism(), 4),
  heapMb = 256,
  fallbackHeapMb = 2048,
  deadlineMs = 180_000,
  graceMs = 2_000,
  idleMs = 10_000,
  env,
}: ScanWorkerOptions = {}) {
  // src/ runs as .ts under type stripping, dist/ as .js: start the entry file of the same kind.
  const entry = fileURLToPath(new URL(`./process${extname(fileURLToPath(import.meta.url))}`, import.meta.url));
  const size = Math.max(1, Math.floor(processes));
  const live = new Set<ScanProcess>();
  const waiting: Job[] = [];
  let retries: Promise<unknown> = Promise.resolve();
  let closed = false;
  let nextId = 1;
  const lastScanner = new Map<string, ScanProcess>();
  // Roots whose snapshot the process named it last time no longer held (a tree too big for its keeper, or
  // evicted by others): their next scan sends the bytes at once, without the digest and the round trip.
  const refused = new Set<string>();

  const runOn = (proc: ScanProcess, job: Job, scannedLast = false): Promise<ProcessScanResult> => {
    const limits = Object.fromEntries(Object.entries(job.options).filter(([k, v]) => v !== undefined && v !== null && LIMIT_KEYS.has(k)));
    // A walk shares the second core only while no other scan runs: two scans already keep both busy.
    const alone = [...live].every((p) => p === proc || p.idle);
    const { root, deltaOnly } = job;
    // The process that scanned the root last most likely keeps the snapshot it made (the one now given back):
    // it is named by its digest, and sent whole only if that process answers that it no longer holds it.
    const { previous } = job.options;
    const named = scannedLast && !job.withBytes && !refused.delete(root) && previous instanceof Uint8Array;
    if (named) delete limits.previous;
    const request = {
      id: nextId++, root, options: { ...limits, shareWalk: alone }, deltaOnly,
      ...(named ? { previousDigest: snapshotDigest(previous) } : {}),
    };
    return proc.run(request, { deadlineMs, onProgress: job.onProgress, onDirsChecked: job.onDirsChecked });
  };

  const start = (mb: number): ScanProcess => {
    const proc = startScanProcess(entry, mb, () => {
      live.delete(proc);
      for (const [root, p] of lastScanner) if (p === proc) lastScanner.delete(root);
      pump();
    }, env);
    live.add(proc);
    return proc;
  };

  // A second process is started only for scans that have waited a while: most scans take milliseconds,
  // and starting a process costs far more (loading the scanner's modules) than waiting for the first.
  let grow: NodeJS.Timeout | undefined;
  const pump = (): void => {
    while (waiting.length > 0 && !closed) {
      // A root goes back to the process that scanned it last when that one is free: it remembers the counting
      // functions of its last rules run there, so a rescan where only test files moved can patch (rescan.ts).
      const idle = [...live].filter((p) => p.idle && p.heapMb === heapMb);
      const last = lastScanner.get(waiting[0]!.root);
      let proc = last && idle.includes(last) ? last : idle[0];
      const reused = proc !== undefined;
      if (!proc) {
        const count = [...live].filter((p) => p.heapMb === heapMb).length;
        if (count >= size) return;
        if (count > 0) {
          grow ??= setTimeout(() => { grow = undefined; if (waiting.length > 0 && !closed) { start(heapMb); pump(); } }, GROW_AFTER_MS).unref();
          return;
        }
        proc = start(heapMb);
      }
      const job = waiting.shift()!;
      const chosen = proc;
      const scannedLast = last === chosen;
      lastScanner.set(job.root, chosen);
      const next = (): void => {
        if (chosen.idle && waiting.length === 0) chosen.stopIfIdleAfter(idleMs, () => [...live].filter((p) => p.idle).length > 1);
        pump();
      };
      // The process takes its next scan before this result goes to the caller, who saves it on this thread
      // (scan/all: 20 saves the processes would otherwise wait out); once either way. A process still
      // encoding the snapshot is busy until it arrives: the caller saves the findings meanwhile.
      runOn(chosen, job, scannedLast).then((result) => {
        if (!result.snapshotLater) {
          try { next(); } finally { job.resolve(result); }
          return;
        }
        job.resolve(result);
        void result.snapshotLater.then(next);
      }, (error: NodeJS.ErrnoException) => {
        try { next(); } finally { retryOrReject(job, error, reused); }
      });
    }
  };

  /**
   * A failed scan's answer. A process killed while idle (the OOM killer, a user) looks idle until its exit
   * is seen, so a scan sent to a process that was idle when picked and died is queued again, at most once
   * per process the pool holds (all may have been killed at once); one forked on the spot for the scan that
   * dies fails it. Out of memory: once more in a roomier process (rare: a tree near the entry cap).
   */
  const retryOrReject = (job: Job, error: NodeJS.ErrnoException, reused: boolean): void => {
    if (error.code === 'SNAPSHOT_NOT_HELD' && !job.withBytes && !closed) {
      refused.add(job.root);
      waiting.unshift({ ...job, withBytes: true });
      return pump();
    }
    if (error.code === 'SCAN_PROCESS_DIED' && reused && (job.retried ?? 0) < size && !closed) {
      waiting.unshift({ ...job, retried: (job.retried ?? 0) + 1 });
      return pump();
    }
    if (error.code !== 'SCAN_OUT_OF_MEMORY' || fallbackHeapMb === null || closed) return job.reject(error);
    // One roomier process at a time, for this scan only.
    const retry = retries.then(async () => {
      const roomy = start(fallbackHeapMb);
      try {
        const result = await runOn(roomy, job);
        // Stopped once its snapshot is in: the next retry waits for that too.
        void Promise.resolve(result.snapshotLater).then(() => roomy.stop());
        return result;
      } catch (error) {
        void roomy.stop();
        throw error;
      }
    });
    retries = retry.then((result) => result.snapshotLater).catch(() => undefined);
    retry.then(job.resolve, job.reject);
  };

  return {
    /** Scans `root` (an absolute real path) in a scan process; rejects with an error carrying a `code`. */
    scan(
      root: string, options: WorkerScanOptions = {},
      { onProgress, snapshotLater = false, deltaOnly = false, onDirsChecked }: PoolScanCall = {},
    ): Promise<ProcessScanResult> {
      if (closed) return Promise.reject(scanError('SCAN_CANCELLED', 'The scanner is closed'));
      const found = new Promise<ProcessScanResult>((resolve, reject) => {
        waiting.push({ root, options, onProgress, onDirsChecked, deltaOnly, resolve, reject });
        pump();
      });
      return snapshotLater ? found : found.then(withSnapshot);
    },
    /** Scans that can run at once (the number of processes). */
    size,
    /**
     * Stops the pool: queued scans fail at once, running ones get `graceMs` to finish, then their
     * processes are killed. Resolves when every scan process has exited.
     */
    async close(): Promise<void> {
      closed = true;
      clearTimeout(grow);
      for (const job of waiting.splice(0)) job.reject(scanError('SCAN_CANCELLED', 'The server is shutting down'));
      const busy = [...live].filter((p) => !p.idle).map((p) => p.done);
      if (busy.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled(busy), new Promise((r) => { timer = setTimeout(r, graceMs); })]);
        clearTimeout(timer);
      }
      await Promise.all([...live].map((p) => p.stop('The server is shutting down')));
    },
  };
}

const GROW_AFTER_MS = 50;

/** The result with its snapshot in `snapshot`, as `scan()` gives it (not copied: tests stay in columns). */
async function withSnapshot(result: ProcessScanResult): Promise<ProcessScanResult> {
  if (!result.snapshotLater) return result;
  const snapshot = await result.snapshotLater;
  const whole = Object.assign(result, { snapshot }) as ProcessScanResult & { snapshotLater?: unknown };
  delete whole.snapshotLater;
  return whole;
}
const LIMIT_KEYS = new Set([
  'maxDepth', 'maxEntries', 'maxPathChars', 'timeoutMs', 'concurrency', 'previous', 'snapshotMaxEntries',
  'racyMs',
]);

export type ScanPool = ReturnType<typeof createScanPool>;
