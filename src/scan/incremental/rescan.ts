/**
 * The rescan side of a snapshot: the fast path that decides "nothing moved" from stamps alone, and the
 * difference between two test lists that lets the store write only changed rows.
 */
import { createContext } from '../context.ts';
import {
  keptWalk, pushStamp, sameStamp, snapshotDirs, snapshotReadPaths, snapshotResult, STAMP, type Memo,
  type ScanSnapshotData, type SnapshotInput,
  type StampClock, type StatLike, type TreeRecord,
} from './snapshot.ts';
import { lstatOrUndefined, stampPaths, stampShared } from './stamper.ts';
import type { Helper } from '../walk/helper.ts';
import type { FoundTest, Tree } from '../../rules/types.ts';
import type { PackedTests } from '../process/packed.ts';
import type { Counter } from '../../rules/with-cases.ts';

/** What the quick check may use besides the snapshot: both given by the engine's cache. */
export interface QuickCheckOptions {
  /** The helper thread that takes half the stats; none: this thread takes them all. */
  readonly helper?: Helper | undefined;
  /**
   * Moves the process into `root` so paths can be stat'ed relative to it (about a fifth cheaper than
   * absolute ones); true when it did. Only a process that runs one scan at a time and resolves nothing
   * else relatively may (a scan process's entry gives it); never a library caller's. @default none
   */
  readonly enterRoot?: ((root: string) => boolean) | undefined;
}

/** The directories half: `dirStamps` (taken now, in the snapshot's order) all equal the kept ones. */
export function sameDirs(data: ScanSnapshotData, dirStamps: Float64Array): boolean {
  // An unreadable directory is tried again every time.
  if (dirStamps.length !== data.tree.stamps.length || data.tree.flags.includes(2)) return false;
  for (let i = 0; i < data.tree.flags.length; i++) if (!sameStamp(dirStamps, i, data.tree.stamps, i)) return false;
  return true;
}

/** What the quick check found (see {@link startQuickCheck}). */
export interface QuickCheck {
  readonly same: boolean;
  readonly dirs: boolean;
  readonly sameEach: Uint8Array;
  readonly readStamps: Float64Array;
}

/**
 * The fast path of a rescan: every directory and every file read stat'ed, half of the work on the helper
 * thread (the first directories) while this thread stats the rest and the files. `same`: nothing moved;
 * `dirs`: every directory as it was (the walk then takes them without a second stat); `sameEach`: per
 * directory, 1 where it is as it was; `readStamps`: the stamps of the files read, in the snapshot's order
 * (no map of them is built here: an unchanged rescan never needs one, see {@link statReads}).
 *
 * In two steps: the files read are stat'ed at once (`readStamps`; `readsSame` when each has its stamp) while
 * the helper thread starts on the directories; `finish` stats this thread's share of them and gives the whole
 * check. Between the two, this thread may do other work while the helper stats alone (scan/index.ts).
 */
export function startQuickCheck(previous: ScanSnapshotData, base: string, clock: StampClock,
  { helper, enterRoot }: QuickCheckOptions = {}) {
  const dirs = snapshotDirs(previous);
  const reads = snapshotReadPaths(previous);
  // Relative paths from inside the root where this process may move there: shorter lookups (the root's own
  // stamp is still taken by its absolute path, so a root swapped for another directory is seen).
  const from = enterRoot?.(base) ? '' : base;
  // The files read first, here, while the helper starts on the directories; then both share what is left.
  let readStamps: Float64Array = new Float64Array(0);
  const finishDirs = stampShared(from, previous.tree.dirs, dirs, clock, base, helper, () => {
    readStamps = stampPaths(from, reads, clock, base);
  });
  let readsSame = true;
  for (let i = 0; i < reads.length && readsSame; i++) readsSame = sameStamp(readStamps, i, previous.reads.stamps, i);
  return {
    readStamps,
    readsSame,
    finish(): QuickCheck {
      const all = finishDirs();
      const sameTree = sameDirs(previous, all);
      // Per directory, whether it is as it was (an unreadable one never is): the walk lists only the others.
      const sameEach = new Uint8Array(previous.tree.flags.length);
      if (all.length === previous.tree.stamps.length) {
        for (let i = 0; i < sameEach.length; i++) {
          sameEach[i] = previous.tree.flags[i] !== 2 && sameStamp(all, i, previous.tree.stamps, i) ? 1 : 0;
        }
      }
      return { same: sameTree && readsSame, dirs: sameTree, sameEach, readStamps };
    },
  };
}

/**
 * Whether every file read that moved was changed in place: a walked file (`walked`: not a directory a rule
 * looked into, whose stamp moves with what it holds) with the same inode. A file saved by writing a new one
 * and renaming it over the old, or removed, changed its directory too. Only then is a rescan worth starting
 * on the guess that every directory is as it was (see scan/index.ts).
 */
export function movedInPlace(previous: ScanSnapshotData, readStamps: Float64Array,
  walked: (file: string) => boolean): boolean {
  const was = previous.reads.stamps;
  const paths = snapshotReadPaths(previous);
  for (let i = 0; i < paths.length; i++) {
    if (sameStamp(readStamps, i, was, i)) continue;
    const ino = readStamps[i * STAMP + 2]!;
    if (Number.isNaN(ino) || ino !== was[i * STAMP + 2] || !walked(paths[i]!)) return false;
  }
  return true;
}

/**
 * The tests of `after` that are new or differ from `before` (objects, or a snapshot's columns), and the files
 * of `before` no longer found, except under the directories in `kept` (relative; '' is the root): the store
 * keeps rows there when a scan does not find them (a package it could not read), so they are not removed.
 */
export function diffTests(before: readonly FoundTest[] | PackedTests, after: readonly FoundTest[],
  kept: readonly string[] = []): { upserts: FoundTest[]; removed: string[] } {
  const prefixes = kept.map((dir) => (dir === '' ? '' : dir + '/'));
  const gone = (file: string): boolean => !prefixes.some((prefix) => file.startsWith(prefix));
  const old = rowsOf(before);
  const upserts: FoundTest[] = [];
  const removed: string[] = [];
  const differs = (i: number, t: FoundTest): boolean =>
    old.framework(i) !== t.framework || old.cases(i) !== t.cases;
  // Perf: both lists come sorted by file (scan() sorts its rows): one merge, without a map of ~10k rows.
  const files = old.files;
  if (ascending(files, (f) => f) && ascending(after, (t) => t.file)) {
    let i = 0;
    for (const t of after) {
      for (; i < files.length && files[i]! < t.file; i++) if (gone(files[i]!)) removed.push(files[i]!);
      if (i < files.length && files[i] === t.file) {
        if (differs(i, t)) upserts.push(t);
        i++;
      } else {
        upserts.push(t);
      }
    }
    for (; i < files.length; i++) if (gone(files[i]!)) removed.push(files[i]!);
    return { upserts, removed };
  }
  const was = new Map(old.files.map((file, i) => [file, i]));
  for (const t of after) {
    const at = was.get(t.file);
    if (at === undefined || differs(at, t)) upserts.push(t);
    was.delete(t.file);
  }
  for (const file of was.keys()) if (gone(file)) removed.push(file);
  return { upserts, removed };
}

/** Rows by index, from objects or from columns (not unpacked into objects). */
function rowsOf(tests: readonly FoundTest[] | PackedTests) {
  if (!('kinds' in tests)) {
    const list = tests as readonly FoundTest[];
    return {
      files: list.map((t) => t.file),
      framework: (i: number) => list[i]!.framework,
      cases: (i: number) => list[i]!.cases,
    };
  }
  const { files, frameworks, kinds, cases } = tests;
  return {
    files: kinds.length === 0 ? [] : files.split('\0'),
    framework: (i: number) => frameworks[kinds[i]!],
    cases: (i: number) => (Number.isNaN(cases[i]!) ? undefined : cases[i]),
  };
}

/** Whether `list` is in strictly ascending code-unit order by `key`. */
function ascending<T>(list: readonly T[], key: (item: T) => string): boolean {
  for (let i = 1; i < list.length; i++) if (!(key(list[i - 1]!) < key(list[i]!))) return false;
  return true;
}

/**
 * Every file the last scan read, stat'ed now (`known`: stamps already taken this scan): the stamps and
 * the indexes (into `paths`, the snapshot's order) of the files whose stamp moved.
 */
export function statReads(data: ScanSnapshotData, base: string, clock: StampClock,
  known: ReadonlyMap<string, readonly number[]> | Float64Array,
  stat: (abs: string) => StatLike | undefined = lstatOrUndefined): { paths: readonly string[]; fresh: Map<string, readonly number[]>; changed: number[] } {
  const paths = snapshotReadPaths(data);
  const fresh = new Map<string, readonly number[]>();
  const changed: number[] = [];
  // `known` as a Float64Array: the quick check's stamps of this snapshot's reads, in their order. Perf:
  // copied element by element (a view and Array.from per file cost a 1%-touched 100k rescan ~5 ms).
  const taken = (path: string, i: number): readonly number[] | undefined => {
    if (!(known instanceof Float64Array)) return known.get(path);
    const at = i * STAMP;
    const stamp = new Array<number>(STAMP);
    for (let k = 0; k < STAMP; k++) stamp[k] = known[at + k]!;
    return stamp;
  };
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i]!;
    let stamp = taken(path, i);
    if (!stamp) { const s: number[] = []; pushStamp(s, stat(base + path), clock); stamp = s; }
    fresh.set(path, stamp);
    if (!sameStamp(stamp, 0, data.reads.stamps, i)) changed.push(i);
  }
  return { paths, fresh, changed };
}

const MAX_ROOTS = 32;
const RUNS_PER_ROOT = 2;

/**
 * Counting functions of the last rules runs per root, by counter key, kept by one scan engine: a closure may
 * hold what the rules read (pytest's deselected counts), so it is only reused for a snapshot of that same
 * run. A few runs per root: a `?full=1` scan in between must not orphan the stored snapshot's run. `roots`:
 * how many roots' runs are kept (0: none, so no count is ever patched).
 */
export function createCounterRuns({ roots = MAX_ROOTS } = {}) {
  const runs = new Map<string, Array<{ id: string; counters: ReadonlyMap<string, Counter | null> }>>();
  return {
    /** Keeps the counting functions of the rules run `id` over `root` (the newest runs of the newest roots). */
    remember(root: string, id: string, counters: ReadonlyMap<string, Counter | null>): void {
      const list = (runs.get(root) ?? []).filter((r) => r.id !== id);
      runs.delete(root);
      runs.set(root, [{ id, counters }, ...list].slice(0, RUNS_PER_ROOT));
      while (runs.size > roots) runs.delete(runs.keys().next().value!);
    },
    find: (root: string, id: string | undefined) => runs.get(root)?.find((r) => r.id === id),
  };
}

export type CounterRuns = ReturnType<typeof createCounterRuns>;

/** What {@link patchCounts} needs besides the previous snapshot. */
export interface PatchInput {
  readonly previous: ScanSnapshotData;
  readonly memo: Memo;
  readonly root: string;
  readonly limits: string;
  /** The walked tree; none when every directory was found as it was (the snapshot's tree is kept). */
  readonly tree?: Tree & { readonly record: TreeRecord };
  readonly clock: StampClock;
  /** From {@link statReads}, over a tree found the same as the snapshot's. */
  readonly reads: ReturnType<typeof statReads>;
  /** The engine's counting functions of earlier rules runs; none: nothing can be patched. */
  readonly counterRuns?: CounterRuns | undefined;
  /** Makes the patched result's snapshot fields (encoded now, or later: see `deferSnapshot` in index.ts). */
  readonly snapshotOf: (input: SnapshotInput) => {
    readonly snapshot: Uint8Array | null; readonly encodeSnapshot?: () => Uint8Array;
  };
}

/**
 * The rescan where only counted test files moved: the tree lists what it listed, every file a rule read
 * as its own input has its stamp, and each moved file was counted under one key whose rule declared
 * `rowPerFile`, by a run of the rules this process remembers. Then the last result with those files'
 * counts redone is what the rules would find, without running them. Null when any of that fails.
 */
export async function patchCounts({
  previous, memo, root, limits, tree, clock, reads, counterRuns, snapshotOf,
}: PatchInput) {
  const rule = previous.reads.rule;
  const run = counterRuns?.find(root, previous.rulesRun);
  if (!rule || previous.rulesRun === undefined || !run) return null;
  // A rule's own input moved: the rules must run (checked before the last result is unpacked).
  for (const i of reads.changed) if (rule[i] === 1) return null;
  const before = snapshotResult(previous);
  const rows = new Map(before.tests.map((t, i) => [t.file, i]));
  const jobs: Array<{ file: string; key: string; count: Counter; row: number }> = [];
  for (const i of reads.changed) {
    const file = reads.paths[i]!;
    const byKey = memo.get(file);
    if (rule[i] === 1 || byKey?.size !== 1) return null;
    const [key, was] = [...byKey!][0]!;
    const count = run.counters.get(key);
    const row = rows.get(file);
    if (!count || row === undefined) return null;
    const old = before.tests[row]!;
    // The row must be the one that count made (not another family's claim of the same file).
    if (old.framework !== key.slice(0, key.lastIndexOf(':')) || (old.cases ?? NaN).toString() !== was.toString()) return null;
    jobs.push({ file, key, count, row });
  }
  // Read as the scan reads (regular files only, size cap, stamp taken with the read), through a context of
  // just these files.
  const files = jobs.map((j) => j.file);
  const ctx = createContext(root, { files, dirs: [], truncated: null }, { clock });
  const tests = before.tests.slice();
  const newMemo: Memo = new Map(memo);
  for (const { file, key, count, row } of jobs) {
    const text = await ctx.readOnce(file);
    const cases = text === undefined ? undefined : count(text, file);
    newMemo.set(file, new Map([[key, cases ?? NaN]]));
    const framework = tests[row]!.framework;
    tests[row] = cases === undefined ? { file, framework } : { file, framework, cases };
  }
  const stamps = new Map(reads.fresh);
  for (const [file, stamp] of ctx.record.reads) stamps.set(file, stamp);
  counterRuns!.remember(root, run.id, run.counters); // in use again: the newest
  const ruleReads = new Set(reads.paths.filter((_, i) => rule[i] === 1));
  const result = { ...before, tests };
  const snapshot = snapshotOf({
    root, limits, tree: tree ? tree.record : { kept: previous.tree }, files: tree ? tree.files : [],
    walked: tree ?? keptWalk(previous),
    reads: stamps, memo: newMemo, result, ruleReads, rulesRun: run.id,
  });
  const delta = diffTests(before.tests, tests);
  return { ...result, unreadable: [] as string[], ...snapshot, mode: 'incremental' as const, delta };
}
