/**
 * Watch mode: registered projects are rescanned (incrementally) when something in them changes, and each
 * rescan is published on the event hub (`scan.started`, `scan.finished`, `scan.failed`, with
 * `reason: 'watch'`). Where the platform watches a tree natively (macOS, Windows) one recursive watcher
 * serves a project; elsewhere (Linux) one watcher per directory the scan would enter, within a budget
 * shared by all projects. A project over the budget, or whose watcher fails, is polled instead: an
 * incremental rescan every `pollMs`, which costs one stat per directory and per file read when nothing moved.
 */
import { watch as fsWatch, lstatSync, readFileSync, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import { opendir } from 'node:fs/promises';
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

/** Longest stretch of the HTTP thread a tree's listing takes before it yields. */
const SLICE_MS = 5;

interface Watched {
  readonly project: Project;
  readonly watchers: Map<string, FSWatcher>;
  /** The inode each watched directory had: a directory deleted and made again is a new one to watch. */
  readonly inodes: Map<string, number>;
  /** The root itself went away: it is polled until it is back, then watched again. */
  rootGone?: boolean;
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

  const pathOf = (w: Watched, rel: string): string => (rel === '' ? w.project.path : `${w.project.path}/${rel}`);

  /** Closes the watchers of `rel` and of every directory below it. */
  const unwatchTree = (w: Watched, rel: string): void => {
    for (const [dir, watcher] of w.watchers) {
      if (rel !== '' && dir !== rel && !dir.startsWith(`${rel}/`)) continue;
      watcher.close();
      w.watchers.delete(dir);
      w.inodes.delete(dir);
      used--;
    }
  };

  const watchDir = (w: Watched, rel: string): boolean => {
    if (w.watchers.has(rel)) return true;
    if (used >= maxWatchers) return false;
    try {
      const ino = lstatSync(pathOf(w, rel)).ino;
      const watcher = fsWatch(pathOf(w, rel), { persistent: false, recursive }, (type, name) => {
        if (!relevant(name)) return;
        if (type === 'rename' && !recursive) {
          // This directory itself deleted (or replaced): its watcher is dead. A new directory can take the
          // freed inode number at once, so the event naming the directory itself counts too (unless a child
          // of that name is there). Below the root, what stands in its place now is watched; the root is
          // polled until it is back.
          const now = lstatSync(pathOf(w, rel), { throwIfNoEntry: false });
          const selfEvent = name !== null && String(name) === basename(pathOf(w, rel))
            && !lstatSync(`${pathOf(w, rel)}/${String(name)}`, { throwIfNoEntry: false });
          if (now?.ino !== ino || selfEvent) {
            if (w.watchers.get(rel) === watcher) unwatchTree(w, rel);
            else watcher.close();
            if (rel === '') { w.rootGone = true; startPolling(w); }
            else if (now?.isDirectory()) void addTree(w, rel).then((ok) => { if (!ok) startPolling(w); else schedule(w); });
            schedule(w);
            return;
          }
          // A directory created (or moved in) here: watch it and what it holds, or poll once over budget. One
          // deleted and made again under the same name is a new directory: its old watchers are dead.
          const child = rel === '' ? String(name) : `${rel}/${String(name)}`;
          const info = name === null ? undefined : lstatSync(pathOf(w, child), { throwIfNoEntry: false });
          if (info?.isDirectory()) {
            if (w.watchers.has(child) && w.inodes.get(child) !== info.ino) unwatchTree(w, child);
            // Rescanned once more when its watchers are set: a file made in it before then raised no event.
            void addTree(w, child).then((ok) => { if (!ok) startPolling(w); else schedule(w); });
          }
        }
        schedule(w);
      });
      watcher.on('error', () => {
        // The directory went away (or the watcher broke): forget it; the parent's event rescans.
        watcher.close();
        if (w.watchers.get(rel) === watcher) { w.watchers.delete(rel); w.inodes.delete(rel); used--; }
        if (rel === '') startPolling(w);
        else schedule(w);
      });
      w.watchers.set(rel, watcher);
      w.inodes.set(rel, ino);
      used++;
      return true;
    } catch {
      return false;
    }
  };

  /**
   * Watches `rel` and every directory below it the scan would enter; false when the budget ran out. Lists
   * with `opendir` (read off the thread, handed over a batch at a time, a turn of the event loop every
   * few milliseconds): a directory renamed in with 300k files must not hold up the HTTP thread.
   */
  const addTree = async (w: Watched, rel: string): Promise<boolean> => {
    const stack = [rel];
    const gone = (): boolean => closed || projects.get(w.project.id) !== w || w.poll !== undefined;
    let until = performance.now() + SLICE_MS;
    const pause = async (): Promise<void> => {
      if (performance.now() < until) return;
      await new Promise((r) => setImmediate(r));
      until = performance.now() + SLICE_MS;
    };
    while (stack.length > 0) {
      if (gone()) return true; // removed or polled meanwhile
      const dir = stack.pop()!;
      if (!watchDir(w, dir)) return false;
      try {
        const handle = await opendir(dir === '' ? w.project.path : `${w.project.path}/${dir}`, { bufferSize: 256 });
        for await (const e of handle) {
          if (e.isDirectory() && !PRUNED_DIRS.has(e.name)) stack.push(dir === '' ? e.name : `${dir}/${e.name}`);
          await pause();
          if (gone()) return true; // leaving the loop closes the handle
        }
      } catch {
        // Gone or unreadable: its parent's watcher reports what happens to it.
      }
      await pause();
    }
    return true;
  };

  const stopWatchers = (w: Watched): void => unwatchTree(w, '');

  const startPolling = (w: Watched): void => {
    stopWatchers(w);
    if (w.poll || closed) return;
    w.poll = setInterval(() => {
      // A root deleted and made again is watched again, and rescanned at once.
      if (w.rootGone && !recursive && lstatSync(w.project.path, { throwIfNoEntry: false })?.isDirectory()) {
        clearInterval(w.poll);
        w.poll = undefined;
        w.rootGone = false;
        void addTree(w, '').then((ok) => { if (!ok) startPolling(w); });
      }
      void rescan(w);
    }, pollMs);
    w.poll.unref();
  };

  const settling = new Set<Promise<unknown>>();
  const add = (project: Project): void => {
    const w: Watched = { project, watchers: new Map(), inodes: new Map(), again: false, scanning: false };
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
  // Each registration or removal changes one project: listing them all each time made registering
  // thousands of roots quadratic. The periodic sync still catches anything an event did not say.
  const off = events.subscribe((event) => {
    if (closed) return;
    const { project, id } = event.data as { project?: Project; id?: number };
    if (event.type === 'project.created' && project && !projects.has(project.id)) add(project);
    else if (event.type === 'project.deleted' && typeof id === 'number') { const w = projects.get(id); if (w) remove(w); }
  });

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
