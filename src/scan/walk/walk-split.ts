/**
 * A first walk on both cores. Each thread walks depth first as `walk` does, over its own stack; a thread
 * whose peer has run out of work hands it the bottom half of its stack: subtrees a single thread would
 * have entered last, after everything above them. So, in single-thread order, a part's own output comes
 * first, then the batches it handed away, the last handed first, each one assembled the same way. The
 * merge rebuilds exactly that (files, directories, record, basename index, caps); a walk whose parts
 * together pass the entry cap is done again on one thread, so the cap cuts where it always did.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { Helper } from './helper.ts';
import { basename } from '../../rules/paths.ts';
import type { StampClock } from '../incremental/snapshot.ts';
import { MAX_PATH_CHARS, walk, walkPart, type PendingDir, type WalkOptions, type WalkPart, type WalkResult } from './walk.ts';

/**
 * Files the helper records per walk before it hands back all it has left: what it holds until it sends its
 * parts costs memory twice (its heap, then the copy sent), so a very big tree is walked mostly here.
 */
const HELPER_FILES_DEFAULT = 40_000;

const BIG_ROOTS_KEPT = 8;

/**
 * How one scan engine shares first walks with its helper thread (made by `createScanCache` where walks are
 * shared: scan processes; a library caller's walk stays on its own thread unless it asks).
 * `helperFiles`: see {@link HELPER_FILES_DEFAULT}.
 */
export function createWalkSharing(helper: Helper, { helperFiles = HELPER_FILES_DEFAULT } = {}) {
  return {
    helper,
    helperFiles,
    /**
     * Roots whose last walk here recorded more than the `stampsUpTo` entries a snapshot is kept for (the few
     * last ones): walked on this thread alone. The helper takes at most `helperFiles` of such a walk (a few
     * percent of it), while sharing it raised the scan process's peak by 20-40 MB on every walk after the
     * first (1M-file tree; the cause was not pinned down).
     */
    bigRoots: new Set<string>(),
    /** How many parts the last walk was made of (1: it was not shared): for tests. */
    lastParts: 0,
  };
}

export type WalkSharing = ReturnType<typeof createWalkSharing>;

/** The limits every part of one walk runs under. */
interface Limits {
  readonly root: string; readonly maxDepth: number; readonly maxEntries: number; readonly maxPathChars: number;
  readonly deadline: number; readonly clock: StampClock;
  readonly helperFiles: number;
}

/** The request that opens a walk session on the helper thread; the session runs over `port`. */
export interface WalkRequest extends Limits { readonly kind: 'walk'; readonly port: MessagePort }

/** Messages of a walk session, either way. Batch ids: even from this thread, odd from the helper. */
type SessionMessage =
  | { readonly type: 'hungry' }
  | { readonly type: 'batch'; readonly id: number; readonly start: PendingDir[] }
  | { readonly type: 'done'; readonly id: number; readonly part: PackedPart; readonly handed: number[] }
  | { readonly type: 'end' };

/** A part's result with its lists joined by `\0`: one string crosses threads far faster than many. */
interface PackedPart {
  readonly files: string; readonly fileCount: number; readonly dirs: string; readonly dirCount: number;
  readonly recordDirs: string; readonly stamps: Float64Array; readonly flags: Uint8Array; readonly fileCounts: Uint32Array;
  readonly truncated: string | null; readonly errors: number; readonly unreadable: string[]; readonly unvisited: string[];
  readonly entries: number; readonly chars: number; readonly peak: number; readonly prunedOutside: string[];
}

/** Stacks shorter than this are not split: the halves would cost more to send than to walk. */
const MIN_SPLIT = 4;

/**
 * Walks the batches this side of a session is given, handing the bottom half of its stack to the peer
 * whenever the peer says it is hungry. `own` ids are this side's (even or odd).
 */
function sessionSide(port: MessagePort, limits: Limits, firstId: number, budget = Infinity, indexNames = true) {
  let peerHungry = false;
  let spent = 0; // files recorded by the parts done
  let nextId = firstId;
  const waiting: Array<{ id: number; start: PendingDir[] }> = [];
  let wake: (() => void) | undefined;
  const onMessage = (message: SessionMessage): void => {
    if (message.type === 'hungry') peerHungry = true;
    else if (message.type === 'batch') waiting.push(message);
    wake?.();
  };
  port.on('message', onMessage);

  /** Walks one batch (or the root, with no `start`); returns the part and the batch ids it handed away. */
  const run = async (start?: PendingDir[], onProgress?: (files: number) => void): Promise<{ part: WalkPart; handed: number[] }> => {
    const handed: number[] = [];
    const part = await walkPart(limits.root, {
      maxDepth: limits.maxDepth, maxEntries: limits.maxEntries, maxPathChars: limits.maxPathChars,
      clock: limits.clock, stampsUpTo: Infinity, indexNames,
      timeoutMs: Math.max(0, limits.deadline - Date.now()), ...(start ? { start } : {}), ...(onProgress ? { onProgress } : {}),
      share: {
        wanted: () => peerHungry,
        give: (batch) => {
          peerHungry = false;
          const id = (nextId += 2);
          handed.push(id);
          port.postMessage({ type: 'batch', id, start: batch } satisfies SessionMessage);
        },
        minimum: MIN_SPLIT,
        maxFiles: Math.max(0, budget - spent),
      },
    });
    spent += part.files.length;
    return { part, handed };
  };
  /** Says it can take a batch, unless its budget is spent (then its peer walks the rest). */
  const hungry = (): void => {
    if (spent < budget) port.postMessage({ type: 'hungry' } satisfies SessionMessage);
  };
  /** The next batch the peer hands over, or undefined once `stop()` says the session is over. */
  const next = async (stop: () => boolean): Promise<{ id: number; start: PendingDir[] } | undefined> => {
    for (;;) {
      const batch = waiting.shift();
      if (batch) return batch;
      if (stop()) return undefined;
      await new Promise<void>((resolve) => { wake = resolve; });
      wake = undefined;
    }
  };
  return { run, next, hungry, wakeUp: () => wake?.() };
}

/**
 * `walk(root, options)`, on both cores when this process shares walks, `share` (the caller's say: no other
 * scan is running), the helper thread is loaded and idle, and the walk is a plain first walk (no previous
 * tree, substitute fs, exclude function or signal); the same result either way.
 */
export async function walkShared(root: string, options: WalkOptions = {}, share = true,
  sharing?: WalkSharing): Promise<WalkResult> {
  const { fs, previous, exclude, signal, onProgress, stampsUpTo = Infinity } = options;
  if (!sharing) return walk(root, options);
  sharing.lastParts = 1;
  const { helper, helperFiles, bigRoots } = sharing;
  if (!share || fs || previous || exclude || signal || bigRoots.has(root) || !helper.idle()) {
    return sized(bigRoots, root, stampsUpTo, await walk(root, options));
  }
  const limits: Limits = {
    root, maxDepth: options.maxDepth ?? 32, maxEntries: options.maxEntries ?? 1_000_000,
    maxPathChars: options.maxPathChars ?? MAX_PATH_CHARS,
    deadline: (options.now ?? Date.now)() + (options.timeoutMs ?? 30_000),
    clock: options.clock ?? { since: Date.now(), racyMs: 2000, granularityMs: 0 }, helperFiles,
  };
  const { port1, port2 } = new MessageChannel();
  const session = helper.ask<boolean>({ kind: 'walk', port: port2, ...limits } satisfies WalkRequest, [port2]);
  const side = sessionSide(port1, limits, 0);
  const parts = new Map<number, { part: WalkPart; handed: number[] }>();
  let walked = 0; // files of the parts done, for progress
  port1.on('message', (message: SessionMessage) => {
    if (message.type !== 'done') return;
    parts.set(message.id, { part: unpack(message.part), handed: message.handed });
    walked += message.part.fileCount;
  });
  // A helper that dies answers the session with `undefined`: stop waiting for its parts.
  let over = false;
  void session.then(() => { over = true; side.wakeUp(); });
  const progress = onProgress ? (files: number): void => onProgress(walked + files) : undefined;
  try {
    parts.set(0, await side.run(undefined, progress));
    // Every batch handed by either side must come back done; meanwhile walk what the helper hands over.
    const outstanding = (): boolean => [...parts.values()].some(({ handed }) => handed.some((id) => !parts.has(id)));
    for (;;) {
      side.hungry();
      const batch = await side.next(() => over || !outstanding());
      if (!batch) break;
      parts.set(batch.id, await side.run(batch.start, progress));
    }
  } finally {
    port1.postMessage({ type: 'end' } satisfies SessionMessage);
    port1.close();
  }
  // A helper that died mid-walk (its parts never came), or parts that together pass the entry or path-length cap: again,
  // on this thread alone.
  const ok = await session;
  const ordered = ok ? order(parts, 0) : undefined;
  const entries = ordered?.reduce((sum, p) => sum + p.entries, 0) ?? Infinity;
  const chars = ordered?.reduce((sum, p) => sum + p.chars, 0) ?? Infinity;
  if (!ordered || entries > limits.maxEntries || chars > limits.maxPathChars) return sized(bigRoots, root, stampsUpTo, await walk(root, options));
  sharing.lastParts = ordered.length;
  return sized(bigRoots, root, stampsUpTo, merge(ordered, stampsUpTo));
}

/** Remembers whether `root`'s walk was past `stampsUpTo` entries (see `bigRoots`); returns the walk. */
function sized(bigRoots: Set<string>, root: string, stampsUpTo: number, walked: WalkResult): WalkResult {
  bigRoots.delete(root);
  if (walked.files.length + walked.dirs.length > stampsUpTo) {
    bigRoots.add(root);
    if (bigRoots.size > BIG_ROOTS_KEPT) bigRoots.delete(bigRoots.values().next().value!);
  }
  return walked;
}

/** A part and, after it, the parts it handed away, the last handed first: single-thread order. */
function order(parts: ReadonlyMap<number, { part: WalkPart; handed: number[] }>, id: number): WalkPart[] | undefined {
  const entry = parts.get(id);
  if (!entry) return undefined;
  const out = [entry.part];
  for (const child of [...entry.handed].reverse()) {
    const sub = order(parts, child);
    if (!sub) return undefined;
    out.push(...sub);
  }
  return out;
}

/** The helper's side of a session (helper-thread.ts): walks the batches it is handed until the end. */
export async function answerWalk({ port, kind: _, ...limits }: WalkRequest): Promise<boolean> {
  // Its parts cross without their basename index (`pack` drops it): the merge indexes them, so none is built here.
  const side = sessionSide(port, limits, 1, limits.helperFiles, false);
  let ended = false;
  port.on('message', (message: SessionMessage) => { if (message.type === 'end') { ended = true; side.wakeUp(); } });
  for (;;) {
    side.hungry();
    const batch = await side.next(() => ended);
    if (!batch) break;
    const { part, handed } = await side.run(batch.start);
    const packed = pack(part);
    port.postMessage({ type: 'done', id: batch.id, part: packed, handed } satisfies SessionMessage,
      [packed.stamps.buffer, packed.flags.buffer, packed.fileCounts.buffer] as never);
  }
  port.close();
  return true;
}

/** Joins the parts in single-thread order into one walk result. */
function merge(all: readonly WalkPart[], stampsUpTo: number): WalkResult {
  const [main, ...parts] = all as [WalkPart, ...WalkPart[]];
  const files = main.files.concat(...parts.map((p) => p.files));
  const dirs = main.dirs.concat(...parts.map((p) => p.dirs));
  for (const part of parts) {
    for (const rel of part.prunedOutside) {
      const at = dirs.lastIndexOf(rel);
      if (at !== -1) dirs.splice(at, 1);
    }
  }
  // The basename index in file order, as the walk fills it: a part walked here brings its own (merged in
  // its insertion order, which is that of first appearance), a part from the helper is indexed now.
  const names = main.nameIndex;
  // A part's own lists are taken as they are (no part is used after the merge): no second copy of them.
  const add = (name: string, files: string[]): void => {
    const list = names.get(name);
    if (!list) names.set(name, files);
    else for (const file of files) list.push(file);
  };
  for (const part of parts) {
    if (part.nameIndex.size > 0 || part.files.length === 0) for (const [name, files] of part.nameIndex) add(name, files);
    else {
      for (const file of part.files) {
        const name = basename(file);
        const list = names.get(name);
        if (list) list.push(file); else names.set(name, [file]);
      }
    }
  }
  // The record keeps stamps only while the walk has not passed `stampsUpTo` entries (see walk.ts `note`).
  let dropped = false;
  let count = 0;
  for (const part of all) {
    if (count + part.peak > stampsUpTo) dropped = true;
    count += part.files.length + part.dirs.length - part.prunedOutside.length;
  }
  return {
    files, dirs, nameIndex: names,
    truncated: all.find((p) => p.truncated !== null)?.truncated ?? null,
    errors: all.reduce((sum, p) => sum + p.errors, 0),
    unreadable: all.flatMap((p) => p.unreadable),
    unvisited: all.flatMap((p) => p.unvisited),
    rootError: main.rootError,
    same: false,
    record: {
      dirs: all.flatMap((p) => p.record.dirs),
      stamps: dropped ? [] : concatNumbers(Float64Array, all.map((p) => p.record.stamps)),
      flags: concatNumbers(Uint8Array, all.map((p) => p.record.flags)),
      fileCounts: concatNumbers(Uint32Array, all.map((p) => p.record.fileCounts)),
    },
  };
}

/** `lists` joined into one typed array of `Kind` (a plain array per directory costs 4-5x the bytes). */
function concatNumbers<T extends Float64Array | Uint8Array | Uint32Array>(
  Kind: { new(length: number): T }, lists: ReadonlyArray<ArrayLike<number>>,
): T {
  const out = new Kind(lists.reduce((sum, l) => sum + l.length, 0));
  let at = 0;
  for (const list of lists) { out.set(list, at); at += list.length; }
  return out;
}

const split = (joined: string, count: number): string[] => (count === 0 ? [] : joined.split('\0'));

function pack(part: WalkPart): PackedPart {
  return {
    files: part.files.join('\0'), fileCount: part.files.length, dirs: part.dirs.join('\0'), dirCount: part.dirs.length,
    recordDirs: part.record.dirs.join('\0'), stamps: Float64Array.from(part.record.stamps),
    flags: Uint8Array.from(part.record.flags), fileCounts: Uint32Array.from(part.record.fileCounts),
    truncated: part.truncated, errors: part.errors, unreadable: part.unreadable, unvisited: part.unvisited,
    entries: part.entries, chars: part.chars, peak: part.peak, prunedOutside: part.prunedOutside,
  };
}

function unpack(packed: PackedPart): WalkPart {
  return {
    files: split(packed.files, packed.fileCount), dirs: split(packed.dirs, packed.dirCount), nameIndex: new Map(),
    truncated: packed.truncated, errors: packed.errors, unreadable: packed.unreadable, unvisited: packed.unvisited,
    rootError: null, same: false,
    record: {
      dirs: split(packed.recordDirs, packed.flags.length), stamps: packed.stamps,
      flags: packed.flags, fileCounts: packed.fileCounts,
    },
    entries: packed.entries, chars: packed.chars, peak: packed.peak, prunedOutside: packed.prunedOutside,
  };
}
