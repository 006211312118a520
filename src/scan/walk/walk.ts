import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readlinkSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { pushStamp, sameStamp, type PreviousTree, type StampClock, type StatLike, type TreeRecord } from '../incremental/snapshot.ts';
import { lstatOrUndefined } from '../incremental/stamper.ts';
import type { Tree } from '../../rules/types.ts';

/** The part of `fs.promises` the walker uses, so tests and embedders can substitute it. */
export interface WalkFs {
  readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
  /** When given, each listed directory must still resolve to itself (not through a swapped-in link). */
  realpath?(path: string): Promise<string>;
}

export interface WalkOptions {
  /** Deepest directory level entered below the root. @default 32 */
  readonly maxDepth?: number;
  /** Most files and directories recorded before the walk stops. @default 1_000_000 */
  readonly maxEntries?: number;
  /**
   * Most characters of relative paths (files and directories, added up) recorded before the walk stops: deep
   * folders with long names repeat their prefix in every path below them (50k files under 4 KB of folder
   * names: 200 MB of paths), which bounds the scan's memory, its answer and the rows stored.
   * @default MAX_PATH_CHARS (32 Mi)
   */
  readonly maxPathChars?: number;
  /** Milliseconds before the walk stops. @default 30_000 */
  readonly timeoutMs?: number;
  /**
   * Directory reads in flight at once, with a substitute `fs` (its calls are asynchronous). The default
   * walk lists synchronously in time slices (see `sliceMs`): one `readdir` through the libuv pool and a
   * `realpath` per directory cost more than twice the synchronous walk (100k files: ~590 ms -> ~290 ms).
   * @default 32
   */
  readonly concurrency?: number;
  /**
   * Longest stretch, in milliseconds, the default (synchronous) walk lists before yielding to the event
   * loop, so an abort or another request is seen in between. @default 8
   */
  readonly sliceMs?: number;
  /** Extra pruning: return true to skip a directory (relative POSIX path) and everything below it. */
  readonly exclude?: (dir: string) => boolean;
  readonly signal?: AbortSignal;
  /** Called after each directory listing with the number of files recorded so far. */
  readonly onProgress?: (files: number) => void;
  readonly fs?: WalkFs;
  readonly now?: () => number;
  /**
   * The tree the last scan saw (see snapshot.ts): a directory whose stamp has not moved since is not
   * listed again, its files and subdirectories are taken from there.
   */
  readonly previous?: PreviousTree;
  /**
   * Per directory of `previous` (by index), 1 where it was stat'ed just before this walk and found as it
   * was: reused without a stat.
   */
  readonly trustedDirs?: Uint8Array;
  /**
   * Most files + directories (`files.length + dirs.length`) the record keeps directory stamps for: past it
   * the stamps are dropped (`record.stamps` left empty), for a tree too big to keep a snapshot of.
   * @default Infinity
   */
  readonly stampsUpTo?: number;
  /** How directory stamps are taken. @default now, 2 s racy window, no flooring */
  readonly clock?: StampClock;
  /**
   * Stat of a directory before it is listed (for its stamp), with a substitute `fs`. Null: no stat, the
   * record's stamps are placeholders the caller fills in. The default walk stamps every directory it lists
   * from the `stat` it takes anyway (see `listSync`). @default lstatSync, undefined when missing
   */
  readonly stat?: ((abs: string) => StatLike | undefined) | null;
  /**
   * Called by the default walk just before (`listed` false) and just after (true) a directory below the
   * root is read, with its path: tests build races against the walk with it. @default none
   */
  readonly onListing?: (abs: string, listed: boolean) => void;
}

/** What the walk returns: the tree, unreadable directories, the record for the next snapshot. */
export interface WalkResult extends Tree {
  readonly errors: number;
  /** Directories whose listing failed (relative paths): their previously stored rows are kept. */
  readonly unreadable: string[];
  /** Directories a cap (entries, time, abort) left unlisted or half-listed: their stored rows are kept too. */
  readonly unvisited: string[];
  /** The root's own listing error code, if it could not be listed. */
  readonly rootError: string | null;
  readonly record: TreeRecord;
  /** True when a previous tree was given and every directory, file name and flag is as it was. */
  readonly same: boolean;
  /** Basename -> the files with that name, in walk order. */
  readonly nameIndex: Map<string, string[]>;
}


/**
 * Directories no test runner descends into, so no walk needs to: package installs and VCS metadata.
 * Virtualenvs (`pyvenv.cfg`) and tagged cache dirs (`CACHEDIR.TAG`, e.g. cargo's `target/`) are pruned
 * when their marker file is seen, see `walk`.
 */
export const PRUNED_DIRS: ReadonlySet<string> = new Set([
  'node_modules', 'bower_components', 'jspm_packages', '.git', '.hg', '.svn', '.sl', '.bzr', '_darcs', 'CVS', '__pycache__',
]);
const PRUNE_MARKERS = ['pyvenv.cfg', 'CACHEDIR.TAG'];

/** The default `maxPathChars`: 32 Mi characters of paths (a 1M-entry tree at ~33 characters a path). */
export const MAX_PATH_CHARS = 32 * 1024 * 1024;

/**
 * A directory to visit; `dev`/`ino` identify its parent as listed (NaN: not known, see `listSync`).
 * `parent`: its parent held open (Linux, see `visitSync`); never sent to another thread (`share.give`).
 */
export interface PendingDir {
  readonly abs: string; readonly rel: string; readonly depth: number; readonly dev: number; readonly ino: number;
  readonly name?: string; readonly parent?: HeldDir;
}

/** A listed directory kept open while its subdirectories wait to be opened through it; closed after the last. */
interface HeldDir { readonly fd: number; waiting: number }

/** How a walk hands subtrees to another thread (walk-split.ts). */
export interface WalkShare {
  /** True when the other thread would start a handed batch at once. */
  wanted(): boolean;
  /** Takes the bottom half of the walk's stack: subtrees the walk would have entered last, in stack order. */
  give(batch: PendingDir[]): void;
  /** Shortest stack worth splitting. */
  readonly minimum: number;
  /** Most files this part may record; past them it gives away its whole stack (a memory budget). */
  readonly maxFiles: number;
}

/** The internal options of one part of a walk split between threads (walk-split.ts). */
export interface WalkPartOptions extends WalkOptions {
  /** Directories to walk instead of the root (already in the caller's `dirs`); `dirs` starts empty. */
  readonly start?: readonly PendingDir[];
  readonly share?: WalkShare;
  /**
   * Whether to fill `nameIndex`. Off for a part walked on the helper thread: its index is not sent (a Map
   * of arrays costs more to copy across threads than the merge takes to index the part's files again).
   * @default true
   */
  readonly indexNames?: boolean;
}

/** One part's result, with what the merge needs (walk-split.ts). */
export interface WalkPart extends WalkResult {
  /** Files and directories counted against `maxEntries`. */
  readonly entries: number;
  /** Characters of their paths, counted against `maxPathChars`. */
  readonly chars: number;
  /** Largest `files.length + dirs.length` (less the `prunedOutside`) at any directory recorded. */
  readonly peak: number;
  /** Directories of `start` pruned by a marker file: they are in the caller's `dirs`, to be taken out. */
  readonly prunedOutside: string[];
}

/**
 * Walks `root` without following symlinks, returning every regular file and directory below it.
 * Per-directory errors (EACCES, a directory removed mid-walk) are skipped, counted in `errors`.
 * A cap (depth, entries, time, abort) ends the walk early with `truncated` saying which.
 *
 * @example
 * const tree = await walk('/home/me/app');
 * tree.files; // ['package.json', 'src/a.test.ts', ...]
 */
export function walk(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  return walkPart(root, options);
}

/** {@link walk}, or one part of a walk split between threads (`start`, `share`: see walk-split.ts). */
export async function walkPart(root: string, {
  maxDepth = 32,
  maxEntries = 1_000_000,
  maxPathChars = MAX_PATH_CHARS,
  timeoutMs = 30_000,
  concurrency = 32,
  sliceMs = 8,
  exclude = () => false,
  signal,
  onProgress,
  fs,
  now = Date.now,
  previous,
  trustedDirs,
  clock = { since: Date.now(), racyMs: 2000, granularityMs: 0 },
  stat = lstatOrUndefined,
  stampsUpTo = Infinity,
  start,
  share,
  indexNames = true,
  onListing,
}: WalkPartOptions = {}): Promise<WalkPart> {
  const files: string[] = [];
  const dirs: string[] = start ? [] : [''];
  const base = root.endsWith('/') ? root : root + '/';
  const deadline = now() + timeoutMs;
  // The root's real path with a trailing slash, where directories can be listed through their descriptor
  // (Linux, see `listPinned`); undefined elsewhere, or with a substitute fs.
  const realBase = fs ? undefined : pinnedBase(root);
  const queue: PendingDir[] = start ? [...start] : [{ abs: base, rel: '', depth: 0, dev: NaN, ino: NaN }];
  const prunedOutside: string[] = [];
  let peak = 0;
  let truncated: string | null = null;
  let errors = 0;
  // Directories whose listing failed (relative paths): their previously stored rows are kept.
  const unreadable: string[] = [];
  let rootError: string | null = null;
  // Directories a cap (entries, time, abort) left unlisted or half-listed: their stored rows are kept too.
  const unvisited: string[] = [];
  let entries = 0;
  let chars = 0;
  /** Set once a cap on what is recorded (entries, path characters) is reached: the walk stops. */
  let capped = false;
  /** Counts one more entry at `path`; true (and the walk is over) when that passes a cap. */
  const full = (path: string): boolean => {
    if (++entries > maxEntries) truncated ??= `entry limit of ${maxEntries} reached`;
    else if ((chars += path.length) > maxPathChars) {
      truncated ??= `path length limit reached: the paths found add up to over ${maxPathChars} characters (long folder names repeat in every path below them)`;
    } else return false;
    capped = true;
    return true;
  };
  const stamps: number[] = [];
  const record = { dirs: [] as string[], stamps, flags: [] as number[], fileCounts: [] as number[] } satisfies TreeRecord;
  // The shared basename index (see context.ts `byName`), filled from the listing's names: no path is sliced.
  const names = new Map<string, string[]>();
  const named = (name: string, path: string): void => {
    if (!indexNames) return;
    const list = names.get(name);
    if (list) list.push(path); else names.set(name, [path]);
  };
  let same = previous !== undefined;
  const note = (rel: string, stamp: ArrayLike<number>, flag: number): number => {
    // Counted as scan() counts them (a virtualenv pruned later leaves the count; scan() keeps no snapshot then).
    const count = files.length + dirs.length - prunedOutside.length;
    if (count > peak) peak = count;
    if (count > stampsUpTo) stamps.length = 0; // 1M-file tree: ~10 MB no snapshot would use
    else for (let k = 0; k < stamp.length; k++) stamps.push(stamp[k]!);
    record.flags.push(flag);
    record.fileCounts.push(0);
    return record.dirs.push(rel) - 1;
  };
  const prune = (rel: string): void => {
    const at = dirs.lastIndexOf(rel);
    if (at !== -1) dirs.splice(at, 1);
    else if (start) prunedOutside.push(rel);
  };

  /** A directory of `previous` the caller stat'ed just before and found as it was (`trustedDirs`). */
  const vouched = (known: number | undefined): known is number => known !== undefined && trustedDirs?.[known] === 1;

  /** The stamp checks before a listing: 'reused' when the directory was taken from `previous`. */
  const before = ({ rel, depth }: PendingDir, stamp: number[]): number | 'reused' | undefined => {
    const was = previous?.index.get(rel);
    if (was === undefined) { same = false; return undefined; }
    if (previous!.flags[was] !== 2 && sameStamp(stamp, 0, previous!.stamps, was)) { reuse(rel, depth, stamp, was); return 'reused'; }
    return was;
  };
  const failed = (rel: string, depth: number, stamp: ArrayLike<number>, error: unknown): void => {
    errors++;
    unreadable.push(rel);
    if (depth === 0) rootError = (error as NodeJS.ErrnoException).code ?? 'EIO';
    note(rel, stamp, 2);
    same = false;
  };

  // With a substitute fs: asynchronous, `concurrency` listings in flight.
  const visit = async (dir: PendingDir): Promise<void> => {
    const { abs, rel, depth } = dir;
    // The stamp is taken before the listing: a change made in between moves the stamp past the one kept.
    const known = previous?.index.get(rel);
    if (vouched(known)) return reuse(rel, depth, previous!.stamps.subarray(known * 4, known * 4 + 4), known);
    const stamp: number[] = [];
    if (stat) pushStamp(stamp, stat(abs), clock); else stamp.push(NaN, NaN, NaN, NaN);
    const was = before(dir, stamp);
    if (was === 'reused') return;
    let list: Dirent[];
    try {
      list = await fs!.readdir(abs, { withFileTypes: true });
      // A directory swapped for a symlink between its parent's listing and this read was followed by
      // readdir: its listing is dropped, as is anything reached through a swapped ancestor.
      if (depth > 0 && fs!.realpath && await fs!.realpath(abs) + '/' !== abs) throw Object.assign(new Error('moved'), { code: 'ELOOP' });
    } catch (error) {
      failed(rel, depth, stamp, error);
      return;
    }
    // Names that are not valid UTF-8 decode with U+FFFD and could collide: list those raw (see distinctNames).
    if (list.some((e) => e.name.includes('\uFFFD'))) {
      const raw = await (fs!.readdir as unknown as (p: string, o: object) => Promise<Array<Dirent<Buffer>>>)(abs, { withFileTypes: true, encoding: 'buffer' }).catch(() => undefined);
      list = distinctNames(raw, list);
    }
    take(dir, stamp, was, list, NaN, NaN);
  };

  // The default: synchronous listings in slices. One stat per directory gives its stamp and its identity.
  const visitSync = (dir: PendingDir): void => {
    const { abs, rel, depth } = dir;
    const known = previous?.index.get(rel);
    if (vouched(known)) {
      if (dir.parent) release(dir.parent);
      return reuse(rel, depth, previous!.stamps.subarray(known * 4, known * 4 + 4), known);
    }
    const stamp: number[] = [];
    let self: Stats | undefined;
    let list: Dirent[];
    let was: number | 'reused' | undefined;
    let fd: number | undefined;
    try {
      if (realBase !== undefined) {
        // Linux: the directory is opened (below the root never through a link in its last component: no
        // trailing slash, which would follow one) and everything after goes through that descriptor, so a
        // swap at any level between the check and the read is harmless. A subdirectory of a directory this
        // walk listed is opened by name through that directory's descriptor, as `find` opens it: an entry of
        // the directory that was listed, whatever its ancestors became since (see `listPinned`).
        if (depth === 0) fd = openSync(abs, OPEN_DIR & ~constants.O_NOFOLLOW);
        else if (dir.parent) fd = openThrough(dir.parent, dir.name!);
        else fd = openSync(abs.slice(0, -1), OPEN_DIR);
        self = fstatSync(fd);
      } else {
        self = statSync(abs, { throwIfNoEntry: false });
      }
      pushStamp(stamp, self, clock);
      was = before(dir, stamp);
      if (was === 'reused') { if (fd !== undefined) closeSync(fd); return; }
      list = fd === undefined ? listSync(dir) : listPinned(fd, rel, abs, dir.parent !== undefined);
      if (list.some((e) => e.name.includes('\uFFFD'))) {
        let raw: Array<Dirent<Buffer>> | undefined;
        try { raw = readdirSync(fd === undefined ? abs : FD_DIR + fd, { withFileTypes: true, encoding: 'buffer' }); } catch { /* keep the decoded names */ }
        list = distinctNames(raw, list);
      }
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      if (stamp.length === 0) {
        // The stamp of what the path names now, as a listing that failed on it would have taken it.
        try { pushStamp(stamp, statSync(abs, { throwIfNoEntry: false }), clock); } catch { stamp.push(NaN, NaN, NaN, NaN); }
      }
      failed(rel, depth, stamp, error);
      return;
    }
    take(dir, stamp, was, list, self?.dev ?? NaN, self?.ino ?? NaN, fd);
  };

  /** Opens `name` in a held directory and lets the directory go once its last waiting child is opened. */
  const openThrough = (held: HeldDir, name: string): number => {
    try {
      return openSync(FD_DIR + held.fd + '/' + name, OPEN_DIR);
    } finally {
      release(held);
    }
  };
  const release = (held: HeldDir): void => {
    if (--held.waiting === 0) closeSync(held.fd);
  };
  /** Takes directories out of the walk's stack without visiting them (handed away, or a cap): held ones let go. */
  const unqueue = (out: PendingDir[]): PendingDir[] => out.map((dir) => {
    if (!dir.parent) return dir;
    release(dir.parent);
    return { abs: dir.abs, rel: dir.rel, depth: dir.depth, dev: dir.dev, ino: dir.ino };
  });

  /**
   * The listing through an open directory (`/proc/self/fd/N` names the directory the descriptor holds,
   * whatever is renamed or swapped meanwhile). A directory opened by its path is refused unless it is at
   * that path under the root: one reached through an ancestor swapped for a link is somewhere else. The
   * root's real path is taken when the walk starts, so the root swapped for a link from then on is refused
   * too. A directory opened through its parent's descriptor (`inParent`) needs no such check: it is an
   * entry of a directory this walk already listed, reached through no path (by induction from the root,
   * nothing outside the project is reached, whatever is swapped, and one `readlink` less per directory).
   */
  const listPinned = (fd: number, rel: string, abs: string, inParent: boolean): Dirent[] => {
    const held = FD_DIR + fd;
    if (!inParent && readlinkSync(held) !== (rel === '' ? realBase!.slice(0, -1) || '/' : realBase + rel)) {
      throw Object.assign(new Error('moved'), { code: 'ELOOP' });
    }
    if (rel !== '') onListing?.(abs, false);
    const list = readdirSync(held, { withFileTypes: true });
    if (rel !== '') onListing?.(abs, true);
    return list;
  };

  /** The default listing, refusing a directory that is no longer the one its parent listed. */
  const listSync = ({ abs, depth, dev, ino }: PendingDir): Dirent[] => {
    if (depth > 0) onListing?.(abs, false);
    const list = readdirSync(abs, { withFileTypes: true });
    if (depth === 0) return list;
    onListing?.(abs, true);
    // A directory swapped for a symlink between its parent's listing and this read was followed by
    // readdir: its listing is dropped, as is anything reached through a swapped ancestor. Its `..` must
    // be the parent as stat'ed when that was listed (directories have one parent): one stat where a
    // realpath costs one call per path component. A parent taken from `previous` was not stat'ed.
    if (Number.isNaN(ino)) {
      if (realpathSync.native(abs) + '/' !== abs) throw Object.assign(new Error('moved'), { code: 'ELOOP' });
    } else {
      const up = statSync(abs + '..');
      if (up.ino !== ino || up.dev !== dev) throw Object.assign(new Error('moved'), { code: 'ELOOP' });
    }
    return list;
  };

  /**
   * Records a listed directory's entries and queues its subdirectories; `fd`, the directory's descriptor,
   * is kept open while they wait to be opened through it, else closed here.
   */
  const take = (
    dir: PendingDir, stamp: number[], was: number | undefined, list: Dirent[], dev: number, ino: number, fd?: number,
  ): void => {
    const held: HeldDir | undefined = fd === undefined ? undefined : { fd, waiting: 0 };
    try {
      enter(dir, stamp, was, list, dev, ino, held);
    } finally {
      if (held?.waiting === 0) closeSync(held.fd);
    }
  };
  const enter = (
    { abs, rel, depth }: PendingDir, stamp: number[], was: number | undefined, list: Dirent[], dev: number,
    ino: number, held: HeldDir | undefined,
  ): void => {
    // Recorded once listed, so the record's order is the order files are appended in (one run per directory).
    const at = note(rel, stamp, 0);
    if (depth > 0 && list.some((e) => PRUNE_MARKERS.includes(e.name) && e.isFile())) {
      // A virtualenv or cache dir announced itself: drop it as if it were never entered.
      prune(rel);
      record.flags[at] = 1;
      if (was !== undefined && previous!.flags[was] !== 1) same = false;
      return;
    }
    const first = files.length;
    const subdirs: string[] = [];
    const prefix = rel === '' ? '' : rel + '/';
    for (const entry of list) {
      const name = entry.name;
      // Perf: `join` builds one flat string, where `+` would leave a rope of two or three cells per path
      // that every later RegExp test flattens into a copy anyway (1M-file tree: live heap after the walk ~95 -> ~65 MB).
      const childRel = prefix === '' ? name : [prefix, name].join('');
      if (entry.isDirectory()) {
        if (PRUNED_DIRS.has(name) || exclude(childRel)) continue;
        // Its path cannot be spelled as a string, so it cannot be listed: counted, its old rows kept.
        if ((entry as Dirent & { invalidName?: boolean }).invalidName) { errors++; unreadable.push(childRel); continue; }
        if (depth + 1 > maxDepth) { truncated ??= `depth limit of ${maxDepth} reached at ${childRel}`; continue; }
        if (full(childRel)) { unvisited.push(rel); return; }
        dirs.push(childRel);
        subdirs.push(childRel);
        if (held) held.waiting++;
        queue.push(held ? { abs: abs + name + '/', rel: childRel, depth: depth + 1, dev, ino, name, parent: held }
          : { abs: abs + name + '/', rel: childRel, depth: depth + 1, dev, ino });
      } else if (entry.isFile()) {
        if (full(childRel)) { unvisited.push(rel); return; }
        files.push(childRel);
        named(name, childRel);
      }
      // Symlinks, FIFOs, sockets and devices are never listed nor followed.
    }
    onProgress?.(files.length);
    record.fileCounts[at] = files.length - first;
    if (same && was !== undefined) same = sameListing(previous!, was, files, first, prefix.length, subdirs);
  };

  /** A directory whose stamp has not moved: its entries are the ones recorded last time. */
  const reuse = (rel: string, depth: number, stamp: ArrayLike<number>, was: number): void => {
    const p = previous!;
    const count = p.fileCounts[was]!;
    record.fileCounts[note(rel, stamp, p.flags[was]!)] = count;
    if (p.flags[was] === 1) { prune(rel); return; }
    const prefix = rel === '' ? '' : rel + '/';
    const start = p.fileStart[was]!;
    for (let i = start; i < start + count; i++) {
      const name = p.names[i]!;
      const path = prefix === '' ? name : [prefix, name].join('');
      if (full(path)) { unvisited.push(rel); return; }
      files.push(path);
      named(name, path);
    }
    // Queued last-visited first, as `take` queues them in listing order: the queue is a stack, so they are
    // visited in the order they were last time, and a walk that reuses directories orders the tree as a
    // walk that lists them all (order counts: rules take the first of several matches).
    const children = p.children[was]!;
    for (let c = children.length - 1; c >= 0; c--) {
      const childRel = p.dirs[children[c]!]!;
      if (full(childRel)) { unvisited.push(rel); return; }
      dirs.push(childRel);
      queue.push({ abs: base + childRel + '/', rel: childRel, depth: depth + 1, dev: NaN, ino: NaN });
    }
    onProgress?.(files.length);
  };

  const stopped = (): boolean => {
    if (!capped && !signal?.aborted && now() <= deadline) return false;
    truncated ??= signal?.aborted ? 'scan aborted' : `time limit of ${timeoutMs} ms reached`;
    for (const dir of unqueue(queue.splice(0))) unvisited.push(dir.rel);
    return true;
  };
  if (!fs) {
    await new Promise<void>((resolve, reject) => {
      const slice = (): void => {
        const until = performance.now() + sliceMs;
        try {
          while (queue.length > 0 && !stopped()) {
            if (share && files.length > share.maxFiles) { share.give(unqueue(queue.splice(0))); break; }
            if (share && queue.length >= share.minimum && share.wanted()) {
              share.give(unqueue(queue.splice(0, queue.length >> 1)));
            }
            visitSync(queue.pop()!);
            if (performance.now() > until && queue.length > 0) { setImmediate(slice); return; }
          }
        } catch (error) {
          // A caller's callback (`exclude`, `onProgress`) threw: the walk fails, leaving no directory held open.
          unqueue(queue.splice(0));
          reject(error);
          return;
        }
        resolve();
      };
      slice();
    });
  } else {
    // A small pool: each worker pulls the next directory until the queue is drained and nothing is in flight.
    let active = 0;
    await new Promise<void>((resolve) => {
      const pump = (): void => {
        while (active < concurrency && queue.length > 0 && !stopped()) {
          const next = queue.pop()!;
          active++;
          visit(next).then(() => { active--; pump(); }, () => { active--; errors++; pump(); });
        }
        if (active === 0 && queue.length === 0) resolve();
      };
      pump();
    });
  }
  if (previous && record.dirs.length !== previous.dirs.length) same = false;
  // Per-directory numbers as typed arrays: a plain array of 237k numbers (1M-file tree) costs 4-5x the bytes.
  const kept = {
    ...record, flags: Uint8Array.from(record.flags), fileCounts: Uint32Array.from(record.fileCounts),
  };
  return {
    files, dirs, truncated, errors, unreadable, unvisited, rootError, record: kept, same, nameIndex: names,
    entries, chars, peak, prunedOutside,
  };
}

/** Where this process's open files are named, on Linux. */
const FD_DIR = '/proc/self/fd/';
/** A directory, never through a link in its last component. */
const OPEN_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** `root`'s real path ending in `/`, when directories can be listed through descriptors; else undefined. */
function pinnedBase(root: string): string | undefined {
  if (!existsSync(FD_DIR)) return undefined;
  try {
    const real = realpathSync.native(root);
    return real.endsWith('/') ? real : real + '/';
  } catch {
    return undefined;
  }
}

const strict = new TextDecoder('utf-8', { fatal: true });
/** How U+FFFD in a name is spelled among names that are not UTF-8: its own bytes, as an invalid byte is. */
const REPLACEMENT = '\uFFFD[efbfbd]';

/**
 * The directory listed again as bytes, each name decoded with its invalid bytes spelled `\uFFFD[hh]` and
 * U+FFFD itself `\uFFFD[efbfbd]`, so two files whose names differ only in such bytes stay two rows, under
 * the same name at every scan, and no valid name spells an invalid one (their text cannot be read by that
 * name: such files are listed, not read; such directories are not listed).
 */
function distinctNames(raw: Array<Dirent<Buffer>> | undefined, list: Dirent[]): Dirent[] {
  if (!Array.isArray(raw) || !raw.every((e) => Buffer.isBuffer(e.name))) return list;
  return raw.map((entry) => {
    const { text, valid } = decodeDistinct(entry.name);
    // `invalidName`: rebuilt from bytes that are not valid UTF-8 (no file can be opened by this name).
    return Object.assign(Object.create(entry) as Dirent, { name: text, invalidName: !valid });
  });
}

function decodeDistinct(bytes: Buffer): { text: string; valid: boolean } {
  try {
    const text = strict.decode(bytes);
    // A name that holds U+FFFD itself is spelled `\uFFFD[efbfbd]` there: no valid name reads as an invalid one.
    return text.includes('\uFFFD') ? { text: text.replaceAll('\uFFFD', REPLACEMENT), valid: false } : { text, valid: true };
  } catch {
    let text = '';
    for (let i = 0; i < bytes.length;) {
      let step = 0;
      for (let n = 1; n <= 4 && i + n <= bytes.length && step === 0; n++) {
        try { text += strict.decode(bytes.subarray(i, i + n)).replace('\uFFFD', REPLACEMENT); step = n; } catch { /* try a longer sequence */ }
      }
      if (step === 0) { text += `\uFFFD[${bytes[i]!.toString(16).padStart(2, '0')}]`; step = 1; }
      i += step;
    }
    return { text, valid: false };
  }
}

/** Whether a directory listed again holds the same file names and subdirectories as last time. */
function sameListing(p: PreviousTree, was: number, files: readonly string[], first: number, cut: number, subdirs: readonly string[]): boolean {
  if (p.flags[was] !== 0 || p.fileCounts[was] !== files.length - first || p.children[was]!.length !== subdirs.length) return false;
  const before = new Set<string>();
  const start = p.fileStart[was]!;
  for (let i = start; i < start + p.fileCounts[was]!; i++) before.add(p.names[i]!);
  for (let i = first; i < files.length; i++) if (!before.has(files[i]!.slice(cut))) return false;
  const dirsBefore = new Set(p.children[was]!.map((c) => p.dirs[c]));
  return subdirs.every((d) => dirsBefore.has(d));
}
