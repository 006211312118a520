import { promises as fsp } from 'node:fs';
import { httpError } from './http.ts';
import { createScanPool, type ScanWorkerOptions, type WorkerScanOptions } from './scan/pool.ts';
import type { Store } from './store.ts';
import type { RunInfo } from './scan/types.ts';
import type { Project } from './types.ts';

/** What one finished scan changed: the project as stored after it, and what the scan noticed. */
export interface ScanOutcome {
  readonly project: Project;
  /** Test files stored for the project by this scan (`store.listTests(project.id)` lists them). */
  readonly testsFound: number;
  /** Remarks on what could not be read exactly, e.g. a config key that is computed. */
  readonly notes: string[];
  /** Per package, what discovery followed (see `RunInfo`). */
  readonly runs: RunInfo[];
  /** Why the walk stopped early, or null when it saw the whole tree. */
  readonly truncated: string | null;
  /** `full`, `incremental` (from the last scan's snapshot) or `unchanged` (nothing had moved). */
  readonly mode: 'full' | 'incremental' | 'unchanged';
}

/**
 * Scans registered projects and stores what was found. Concurrent requests to scan one project share
 * a single walk instead of racing two transactions.
 *
 * @example
 * const scanner = createScanner(store);
 * const { testsFound } = await scanner.scanProject(store.getProject(1)!);
 */
export function createScanner(store: Store, options: WorkerScanOptions = {}, workerOptions: ScanWorkerOptions = {}) {
  const running = new Map<number, Promise<ScanOutcome>>();
  const pool = createScanPool(workerOptions);

  const run = async (project: Project, full: boolean): Promise<ScanOutcome> => {
    const info = await fsp.stat(project.path).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${project.path}`);
    }
    // The walk and the rules run on a worker thread (loaded on the first scan): HTTP stays responsive,
    // and a big scan's garbage does not inflate this thread's heap.
    // The last scan's snapshot, so only what changed since is read again (`full` ignores it).
    const previous = full ? undefined : store.getSnapshot(project.id);
    const result = await pool.scan(project.path, previous ? { ...options, previous: previous.data } : options).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
        throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${project.path}`, { cause: error });
      }
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw httpError(500, 'SCAN_OUT_OF_MEMORY', 'Scan ran out of memory: the project is larger than the scanning thread\'s heap limit', { cause: error });
      }
      throw error;
    });
    if (!store.saveScan(project.id, previous ? { ...result, base: previous.generation } : result)) throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
    return { project: store.getProject(project.id)!, testsFound: result.tests.length, notes: result.notes, runs: result.runs, truncated: result.truncated, mode: result.mode };
  };

  return {
    /**
     * Scans one project, incrementally from its last scan unless `full`; rejects with an HttpError (409
     * when its directory is gone). Both give the same findings; `full` only ignores what was kept.
     */
    scanProject(project: Project, { full = false }: { readonly full?: boolean } = {}): Promise<ScanOutcome> {
      let pending = running.get(project.id);
      if (!pending) {
        pending = run(project, full).finally(() => running.delete(project.id));
        running.set(project.id, pending);
      }
      return pending;
    },
    /** Waits for the scans in flight, then stops the scanning thread (used on shutdown). */
    async close(): Promise<void> {
      await Promise.allSettled([...running.values()]);
      await pool.close();
    },
  };
}

export type Scanner = ReturnType<typeof createScanner>;
