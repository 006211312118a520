import { promises as fsp } from 'node:fs';
import type { Events } from './events.ts';
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
}

/** Files walked and tests found so far, reported while a scan runs. */
export interface ScanProgress { readonly files: number; readonly tests: number }

export interface ScanProjectOptions {
  /** Called as the scan advances (throttled by the scanning thread), and once more with the final counts. */
  readonly onProgress?: (progress: ScanProgress) => void;
}

export interface ScannerOptions {
  /** Where `scan.started/progress/finished/failed` are published. @default none */
  readonly events?: Events;
}

/**
 * Scans registered projects and stores what was found. Concurrent requests to scan one project share
 * a single walk instead of racing two transactions.
 *
 * @example
 * const scanner = createScanner(store);
 * const { testsFound } = await scanner.scanProject(store.getProject(1)!);
 */
export function createScanner(store: Store, options: WorkerScanOptions = {}, workerOptions: ScanWorkerOptions = {}, { events }: ScannerOptions = {}) {
  const running = new Map<number, { pending: Promise<ScanOutcome>; listeners: Set<(p: ScanProgress) => void> }>();
  const pool = createScanPool(workerOptions);

  const run = async (project: Project, onProgress: (p: ScanProgress) => void): Promise<ScanOutcome> => {
    const info = await fsp.stat(project.path).catch(() => undefined);
    if (!info?.isDirectory()) {
      throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${project.path}`);
    }
    // The walk and the rules run on a worker thread (loaded on the first scan): HTTP stays responsive,
    // and a big scan's garbage does not inflate this thread's heap.
    let walked = 0;
    const walking = (p: ScanProgress): void => { walked = p.files; onProgress(p); };
    const result = await pool.scan(project.path, { ...options, onProgress: walking }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
        throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${project.path}`, { cause: error });
      }
      if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw httpError(500, 'SCAN_OUT_OF_MEMORY', 'Scan ran out of memory: the project is larger than the scanning thread\'s heap limit', { cause: error });
      }
      throw error;
    });
    if (!store.saveScan(project.id, result)) throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
    onProgress({ files: walked, tests: result.tests.length });
    return { project: store.getProject(project.id)!, testsFound: result.tests.length, notes: result.notes, runs: result.runs, truncated: result.truncated };
  };

  return {
    /** Scans one project; rejects with an HttpError (409 when its directory is gone). */
    scanProject(project: Project, { onProgress }: ScanProjectOptions = {}): Promise<ScanOutcome> {
      let entry = running.get(project.id);
      if (!entry) {
        const listeners = new Set<(p: ScanProgress) => void>();
        const report = (p: ScanProgress): void => {
          events?.emit('scan.progress', { id: project.id, files: p.files, tests: p.tests });
          for (const listener of listeners) listener(p);
        };
        events?.emit('scan.started', { id: project.id, name: project.name, path: project.path });
        const pending = run(project, report).then((outcome) => {
          events?.emit('scan.finished', { id: project.id, testsFound: outcome.testsFound, truncated: outcome.truncated, notes: outcome.notes.length, project: outcome.project });
          return outcome;
        }, (error: unknown) => {
          const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
          events?.emit('scan.failed', { id: project.id, error: message });
          throw error;
        }).finally(() => running.delete(project.id));
        entry = { pending, listeners };
        running.set(project.id, entry);
      }
      // A caller joining a scan in flight gets its progress from then on.
      if (onProgress) entry.listeners.add(onProgress);
      return entry.pending;
    },
    /** Waits for the scans in flight, then stops the scanning thread (used on shutdown). */
    async close(): Promise<void> {
      await Promise.allSettled([...running.values()].map((entry) => entry.pending));
      await pool.close();
    },
  };
}

export type Scanner = ReturnType<typeof createScanner>;
