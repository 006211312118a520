import { promises as fsp } from 'node:fs';
import { parse } from 'node:path';
import type { Events } from './events.ts';
import { httpError } from './errors.ts';
import { getCompileCacheDir } from 'node:module';
import { createScanPool, type ScanProgress, type ScanWorkerOptions, type WorkerScanOptions } from '../scan/process/pool.ts';
import type { Store } from './store/store.ts';
import { testCountOf } from '../scan/process/packed.ts';
import type { RunInfo } from '../rules/types.ts';
import type { Project } from './types.ts';
import type { GitOptions } from './git.ts';
import { createGitReuse, type GitReuseOptions } from './git-reuse.ts';

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
  /**
   * The stored tests list as JSON, when the save built it on the way (a first big save, off the HTTP
   * thread): the bytes `store.testsJson` gives as of the save. Absent otherwise.
   */
  readonly list?: Buffer;
}

/** Per-call options of `scanProject`. */
export interface ScanProjectOptions {
  /** Called about every 250 ms while the scan runs, and once at the end with the exact test count. */
  readonly onProgress?: (progress: ScanProgress) => void;
  /** Ignore the last scan's snapshot: read everything again (same findings, only slower). @default false */
  readonly full?: boolean;
  /** Why the scan runs, carried by its events (`watch` for a watch-mode rescan). @default none */
  readonly reason?: string;
}

/** How a failed scan process answers the client: status, code and a sentence. */
const FAILURES: Record<string, readonly [number, string]> = {
  SCAN_DEADLINE: [504, 'SCAN_DEADLINE'],
  SCAN_OUT_OF_MEMORY: [500, 'SCAN_OUT_OF_MEMORY'],
  SCAN_CANCELLED: [503, 'SCAN_CANCELLED'],
  SCAN_PROCESS_DIED: [500, 'SCAN_FAILED'],
};

export interface ScannerOptions {
  /** Where `scan.started/progress/finished/failed` are published. @default none */
  readonly events?: Events;
  /** How git state is read on each scan (time budget, output cap). @default readGitState's defaults */
  readonly git?: GitOptions;
  /** When a scan's git reading may reuse the last one's untracked files (see git-reuse.ts). */
  readonly gitReuse?: Omit<GitReuseOptions, 'git'>;
}

/**
 * Scans registered projects and stores what was found. Concurrent requests to scan one project share
 * a single walk instead of racing two transactions.
 *
 * @example
 * const scanner = createScanner(store);
 * const { testsFound } = await scanner.scanProject(store.getProject(1)!, { onProgress: console.log });
 */
export function createScanner(
  store: Store, options: WorkerScanOptions = {}, workerOptions: ScanWorkerOptions = {},
  { events, git: gitOptions = {}, gitReuse }: ScannerOptions = {},
) {
  const running = new Map<number, { promise: Promise<ScanOutcome>; listeners: Set<(p: ScanProgress) => void> }>();
  const pool = createScanPool({ env: withCompileCache(process.env), ...workerOptions });
  const gitReading = createGitReuse({ ...gitReuse, git: gitOptions });
  // Snapshots still being encoded and kept after their scan's findings were saved, per project: the next
  // scan of the project starts from that snapshot, so it waits for it.
  const keeping = new Map<number, Promise<void>>();
  const keepLater = (projectId: number, generation: number, later: Promise<Uint8Array | null>): void => {
    const kept: Promise<void> = later
      .then((bytes) => (bytes ? store.write(() => store.keepSnapshot(projectId, generation, bytes)) : false))
      // A snapshot that could not be kept (the store closed, a full disk) costs the next scan its shortcuts.
      .then(() => undefined, () => undefined)
      .finally(() => { if (keeping.get(projectId) === kept) keeping.delete(projectId); });
    keeping.set(projectId, kept);
  };

  const run = async (
    project: Project, full: boolean, onProgress: (p: ScanProgress) => void, deltaOnly = true,
  ): Promise<ScanOutcome> => {
    await checkRoot(project.path);
    await keeping.get(project.id);
    // The last scan's snapshot, so only what changed since is read again (`full` ignores it).
    const previous = full ? undefined : store.getSnapshot(project.id);
    // The walk and the rules run in a scan process: whatever a project holds, this process (HTTP) survives.
    const scanOptions = previous ? { ...options, previous: previous.data } : options;
    // The save reads an incremental scan's delta, not its tests: they stay in the scan process
    // (see `deltaOnly`).
    // Git is read beside the walk (its own time budget; never rejects): a commit moves no file the walk sees.
    // Its search for untracked files waits for the scan's quick check, which may show it needless.
    const git = gitReading.begin(project, previous?.generation);
    const call = { onProgress, snapshotLater: true, deltaOnly, onDirsChecked: git.dirsChecked };
    const scanning = pool.scan(project.path, scanOptions, call).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') {
        throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${project.path}`, { cause: error });
      }
      if (error.code === 'ROOT_MOVED') throw movedError(project.path, error);
      if (error.code === 'ROOT_UNREADABLE') {
        throw httpError(409, 'PROJECT_DIR_UNREADABLE', `Project directory cannot be read: ${error.message.replace(/^project directory cannot be read /, '')}; nothing was changed`, { cause: error });
      }
      const failure = FAILURES[error.code ?? ''];
      if (failure) throw httpError(failure[0], failure[1], error.message, { cause: error });
      throw error;
    });
    const result = await scanning;
    // A big scan is saved in slices, so the HTTP thread answers in between (see `saveScanSliced`).
    // Not a spread: `result` keeps its tests in columns (see `withPackedTests`), which a spread would unpack.
    const record = previous ? Object.assign(result, { base: previous.generation }) : result;
    const gitState = await git.finish();
    await store.write(() => store.setGitState(project.id, gitState));
    let list: Buffer | undefined;
    const { snapshotLater } = result;
    const saved = await store.saveScanSliced(project.id, record, {
      onList: (body) => { list = body; },
      onSaved: (generation) => {
        git.saved(generation);
        if (snapshotLater) keepLater(project.id, generation, snapshotLater);
      },
    });
    if (saved === 'stale') {
      // Another connection (a second server, the CLI) saved the project since its snapshot was read, so the
      // delta does not apply: scanned again, with the tests. Once the snapshot is in, the same process is
      // free for it.
      await snapshotLater;
      return run(project, full, onProgress, false);
    }
    if (!saved) throw httpError(404, 'PROJECT_NOT_FOUND', 'Project not found');
    return {
      project: store.getProject(project.id)!, testsFound: testCountOf(result), notes: result.notes, runs: result.runs,
      truncated: result.truncated, mode: result.mode, ...(list ? { list } : {}),
    };
  };

  return {
    /**
     * Scans one project, incrementally from its last scan unless `full`; rejects with an HttpError (409
     * when its directory is gone or moved). Both give the same findings; `full` only ignores what was kept.
     * A call while the project's scan runs joins that scan.
     */
    scanProject(project: Project, { onProgress, full = false, reason }: ScanProjectOptions = {}): Promise<ScanOutcome> {
      let entry = running.get(project.id);
      if (!entry) {
        const listeners = new Set<(p: ScanProgress) => void>();
        const report = (p: ScanProgress): void => {
          events?.emit('scan.progress', { id: project.id, files: p.files, tests: p.tests });
          for (const listener of listeners) listener(p);
        };
        events?.emit('scan.started', { id: project.id, name: project.name, path: project.path, ...(reason ? { reason } : {}) });
        const promise = run(project, full, report).then((outcome) => {
          events?.emit('scan.finished', {
            id: project.id, testsFound: outcome.testsFound, truncated: outcome.truncated, notes: outcome.notes.length,
            mode: outcome.mode, project: outcome.project, ...(reason ? { reason } : {}),
          });
          return outcome;
        }, (error: unknown) => {
          const message = error instanceof Error && 'status' in error ? error.message : 'Scan failed';
          events?.emit('scan.failed', { id: project.id, error: message, ...(reason ? { reason } : {}) });
          throw error;
        }).finally(() => running.delete(project.id));
        running.set(project.id, (entry = { promise, listeners }));
      }
      // A caller joining a scan in flight gets its progress from then on.
      if (onProgress) entry.listeners.add(onProgress);
      return entry.promise;
    },
    /** How many scans run at once (scan processes); `POST /api/projects/scan/all` uses as many. */
    concurrency: pool.size,
    /**
     * Resolves once every finished scan's snapshot is kept (or given up): a scan answers first and keeps its
     * snapshot just after; the next scan of the same project waits for it by itself.
     */
    async settled(): Promise<void> {
      await Promise.all(keeping.values());
    },
    /** Ends scans in flight after a short grace period, then stops the scan processes (used on shutdown). */
    async close(): Promise<void> {
      await pool.close();
      await Promise.allSettled([...running.values()].map((e) => e.promise));
      await Promise.all(keeping.values());
    },
  };
}

/**
 * The registered path must still be a directory whose real path is itself: a directory swapped for a
 * link (even to `/`) is refused rather than walked, and so is anything that now resolves to a root.
 */
async function checkRoot(path: string): Promise<void> {
  let real: string;
  try {
    real = await fsp.realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${path}`, { cause: error });
    throw httpError(409, 'PROJECT_DIR_UNREADABLE', `Project directory cannot be read (${code ?? 'error'}): nothing was changed`, { cause: error });
  }
  if (real !== path || parse(real).root === real) throw movedError(path);
  const info = await fsp.stat(real).catch(() => undefined);
  if (!info?.isDirectory()) throw httpError(409, 'PROJECT_DIR_MISSING', `Project directory no longer exists: ${path}`);
}

function movedError(path: string, cause?: unknown): Error {
  return httpError(409, 'PROJECT_PATH_MOVED',
    `Project directory ${path} is now a link to another place: not scanned; register the real directory instead`, { cause });
}

export type Scanner = ReturnType<typeof createScanner>;

/**
 * `env` naming this process's compile cache directory (the one bin.ts enabled), when it has one and `env`
 * names none: a scan process then loads the engine compiled. Only for scan processes: never in the
 * environment of what test runs and background processes start, the project's own commands.
 */
function withCompileCache(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dir = getCompileCacheDir?.();
  if (!dir || env.NODE_COMPILE_CACHE || env.NODE_DISABLE_COMPILE_CACHE) return env;
  return { ...env, NODE_COMPILE_CACHE: dir };
}
