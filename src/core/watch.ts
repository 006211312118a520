/**
 * Watch mode: registered projects are rescanned (incrementally) when something in them changes, and each
 * rescan is published on the event hub (`scan.started`, `scan.finished`, `scan.failed`, with
 * `reason: 'watch'`). Where the platform watches a tree natively (macOS, Windows) one recursive watcher
 * serves a project; elsewhere (Linux) one watcher per directory the scan would enter, within a budget
 * shared by all projects. A project over the budget, or whose watcher fails, is polled instead: an
 * incremental rescan every `pollMs`, which costs one stat per directory and per file read when nothing moved.
 */
import { watch as fsWatch, lstatSync, readdirSync, readFileSync, type FSWatcher } from 'node:fs';
import type { Events } from './events.ts';
import { survive, type SurviveLogger } from './survive.ts';
import { PRUNED_DIRS } from '../scan/walk/walk.ts';
import type { Scanner } from './scanner.ts';
import type { Store } from './store/store.ts';
import type { Project } from './types.ts';

export interface WatchOptions {
  readonly store: Store;
  readonly scanner: Scanner;
  readonly events: Events;
  /**
   * Most directory watchers across all projects (Linux: one inotify watch each, a per-user kernel limit).
   * @default a quarter of `/proc/sys/fs/inotify/max_user_watches`, at most 65,536; 8,192 when unknown
   */
  readonly maxWatchers?: number;
  /**
   * Quiet time after the last change before the rescan starts. Short: a burst that outlasts it costs one
   * more rescan at most (changes during a rescan queue exactly one). @default 50
   */
  readonly debounceMs?: number;
  /** Rescan interval of projects that are polled instead of watched. @default 5000 */
  readonly pollMs?: number;
  /** How often the project list is compared with what is watched. @default 2000 */
  readonly syncMs?: number;
  /** One recursive watcher per project (native on macOS and Windows). @default platform has it natively */
  readonly recursive?: boolean;
  /** Where errors of timer-driven work (the project sync, starting watch mode) are told. @default console */
  readonly logger?: SurviveLogger;
}

interface Watched {
  readonly project: Project;
  readonly watchers: Map<string, FSWatcher>;
  poll?: NodeJS.Timeout;
  timer?: NodeJS.Timeout;
  /** A change arrived while a rescan ran: scan again once it ends. */
  again: boolean;
  scanning: boolean;
}

/**
 * Starts watching every registered project; `close()` stops it. Changes inside pruned directories
 * (`node_modules`, `.git`, ...) and to projdex's own database files are ignored.
 *
 * @example
 * const watching = startWatching({ store, scanner, events });
 * watching.status(); // { watched: 3, polled: 1, watchers: 812 }
 * await watching.close();
 */
export function startWatching({
  store, scanner, events, maxWatchers = defaultBudget(), debounceMs = 50, pollMs = 5000, syncMs = 2000,
  recursive = process.platform === 'darwin' || process.platform === 'win32', logger = console,
}: WatchOptions) {
  const projects = new Map<number, Watched>();
  let used = 0;
  let closed = false;

  const rescan = async (w: Watched): Promise<void> => {
    if (closed) return;
    if (w.scanning) { w.again = true; return; }
    w.scanning = true;
    w.again = false;
    try {
      // The scanner reports it: scan.started, scan.progress, scan.finished / scan.failed, with reason `watch`.
      await scanner.scanProject(w.project, { reason: 'watch' });
    } catch {
      // Already told as scan.failed; the next change rescans.
    } finally {
      w.scanning = false;
      if (w.again && !closed) schedule(w);
    }
  };

  const schedule = (w: Watched): void => {
    clearTimeout(w.timer);
    w.timer = setTimeout(() => { void rescan(w); }, debounceMs);
    w.timer.unref();
  };

  const relevant = (name: string | Buffer | null): boolean => {
    if (name === null) return true;
    const parts = String(name).split(/[\\/]/);
    return !parts.some((p) => PRUNED_DIRS.has(p)) && !/^projdex\.db(?:-wal|-shm|-journal)?$/.test(parts.at(-1) ?? '');
  };

  const watchDir = (w: Watched, rel: string): boolean => {
    if (w.watchers.has(rel)) return true;
    if (used >= maxWatchers) return false;
    try {
      const watcher = fsWatch(rel === '' ? w.project.path : `${w.project.path}/${rel}`, { persistent: false, recursive }, (type, name) => {
        if (!relevant(name)) return;
        // A directory created (or moved in) here: watch it and what it holds, or poll once over budget.
        if (type === 'rename' && !recursive && name !== null) {
          const child = rel === '' ? String(name) : `${rel}/${String(name)}`;
          if (lstatSync(`${w.project.path}/${child}`, { throwIfNoEntry: false })?.isDirectory()) {
            void addTree(w, child).then((ok) => { if (!ok) startPolling(w); });
          }
        }
        schedule(w);
      });
      watcher.on('error', () => {
        // The directory went away (or the watcher broke): forget it; the parent's event rescans.
        watcher.close();
        if (w.watchers.delete(rel)) used--;
        if (rel === '') startPolling(w);
        else schedule(w);
      });
      w.watchers.set(rel, watcher);
      used++;
      return true;
    } catch {
      return false;
    }
  };

  /**
   * Watches `rel` and every directory below it the scan would enter; false when the budget ran out. Runs
   * in slices of 256 directories so a big tree's setup does not hold up the HTTP thread.
   */
  const addTree = async (w: Watched, rel: string): Promise<boolean> => {
    const stack = [rel];
    for (let n = 1; stack.length > 0; n++) {
      if (n % 256 === 0) await new Promise((r) => setImmediate(r));
      if (closed || projects.get(w.project.id) !== w || w.poll) return true; // gone or polled meanwhile
      const dir = stack.pop()!;
      if (!watchDir(w, dir)) return false;
      let entries;
      try {
        entries = readdirSync(dir === '' ? w.project.path : `${w.project.path}/${dir}`, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) if (e.isDirectory() && !PRUNED_DIRS.has(e.name)) stack.push(dir === '' ? e.name : `${dir}/${e.name}`);
    }
    return true;
  };

  const stopWatchers = (w: Watched): void => {
    for (const watcher of w.watchers.values()) watcher.close();
    used -= w.watchers.size;
    w.watchers.clear();
  };

  const startPolling = (w: Watched): void => {
    stopWatchers(w);
    if (w.poll || closed) return;
    w.poll = setInterval(() => { void rescan(w); }, pollMs);
    w.poll.unref();
  };

  const settling = new Set<Promise<unknown>>();
  const add = (project: Project): void => {
    const w: Watched = { project, watchers: new Map(), again: false, scanning: false };
    projects.set(project.id, w);
    if (recursive) { if (!watchDir(w, '')) startPolling(w); return; }
    const setup = addTree(w, '').then((ok) => { if (!ok) startPolling(w); });
    settling.add(setup);
    void setup.finally(() => settling.delete(setup));
  };

  const remove = (w: Watched): void => {
    stopWatchers(w);
    clearInterval(w.poll);
    clearTimeout(w.timer);
    projects.delete(w.project.id);
  };

  const sync = survive(logger, 'watch: project sync', (): void => {
    if (closed) return;
    const current = new Map(store.listProjects().map((p) => [p.id, p]));
    for (const w of [...projects.values()]) {
      const now = current.get(w.project.id);
      if (!now || now.path !== w.project.path) remove(w);
    }
    for (const project of current.values()) if (!projects.has(project.id)) add(project);
  });

  sync();
  const syncTimer = setInterval(sync, syncMs);
  syncTimer.unref();
  const off = events.subscribe((event) => { if (event.type.startsWith('project.')) sync(); });

  return {
    /** Resolves once every project known so far is watched or polled. */
    ready: async (): Promise<void> => { while (settling.size > 0) await Promise.all(settling); },
    /** Projects watched, projects polled, and directory watchers in use. */
    status: () => ({
      watched: [...projects.values()].filter((w) => w.watchers.size > 0).length,
      polled: [...projects.values()].filter((w) => w.poll !== undefined).length,
      watchers: used,
    }),
    async close(): Promise<void> {
      closed = true;
      clearInterval(syncTimer);
      off();
      for (const w of [...projects.values()]) remove(w);
    },
  };
}

export type Watching = ReturnType<typeof startWatching>;

/** A quarter of the kernel's per-user inotify limit (other programs watch too), at most 65,536. */
function defaultBudget(): number {
  try {
    const limit = Number(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8').trim());
    return Number.isFinite(limit) && limit > 0 ? Math.min(65_536, Math.floor(limit / 4)) : 8192;
  } catch {
    return 8192;
  }
}
