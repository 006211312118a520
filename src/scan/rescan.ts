/**
 * The rescan side of a snapshot: the fast path that decides "nothing moved" from stamps alone, and the
 * difference between two test lists that lets the store write only changed rows.
 */
import { pushStamp, sameStamp, type ScanSnapshotData, type StampClock, type StatLike } from './snapshot.ts';
import { lstatOrUndefined, stampElsewhere, stampPaths } from './stamper.ts';
import type { FoundTest } from './types.ts';

/**
 * The fast path of a rescan, files half: whether every file the last scan read still has its stamp (one
 * lstat each, stopping at the first difference); `fresh` holds the stamps taken. With {@link sameDirs}
 * true as well, the tree and every input are as they were (an unchanged directory lists the same
 * entries, so no directory can have appeared), and so is the result.
 */
export function sameReads(data: ScanSnapshotData, base: string, clock: StampClock, stat: (abs: string) => StatLike | undefined): {
  same: boolean; fresh: Map<string, readonly number[]>;
} {
  const fresh = new Map<string, readonly number[]>();
  if (data.reads.paths === '') return { same: true, fresh };
  let i = 0;
  for (const path of data.reads.paths.split('\0')) {
    const stamp: number[] = [];
    pushStamp(stamp, stat(base + path), clock);
    fresh.set(path, stamp);
    if (!sameStamp(stamp, 0, data.reads.stamps, i++)) return { same: false, fresh };
  }
  return { same: true, fresh };
}

/** The directories half: `dirStamps` (taken now, in the snapshot's order) all equal the kept ones. */
export function sameDirs(data: ScanSnapshotData, dirStamps: Float64Array): boolean {
  // An unreadable directory is tried again every time.
  if (dirStamps.length !== data.tree.stamps.length || data.tree.flags.includes(2)) return false;
  for (let i = 0; i < data.tree.flags.length; i++) if (!sameStamp(dirStamps, i, data.tree.stamps, i)) return false;
  return true;
}

/**
 * The fast path of a rescan: every directory and every file read stat'ed, half of the work on the helper
 * thread (the first directories) while this thread stats the rest and the files. `dirs`: every directory
 * as it was (the walk then takes them without a second stat); `fresh`: the file stamps taken.
 */
export async function quickCheck(previous: ScanSnapshotData, base: string, clock: StampClock) {
  const dirs = previous.tree.dirs.split('\0');
  const split = Math.min(dirs.length, Math.ceil((dirs.length + previous.reads.stamps.length / 4) / 2));
  const far = stampElsewhere(base, dirs.slice(0, split), clock);
  const near = stampPaths(base, dirs.slice(split), clock);
  const reads = sameReads(previous, base, clock, lstatOrUndefined);
  const farStamps = await far;
  const all = new Float64Array(farStamps.length + near.length);
  all.set(farStamps);
  all.set(near, farStamps.length);
  const sameTree = sameDirs(previous, all);
  return { same: sameTree && reads.same, dirs: sameTree, fresh: reads.fresh };
}

/** The tests of `after` that are new or differ from `before`, and the files of `before` no longer found. */
export function diffTests(before: readonly FoundTest[], after: readonly FoundTest[]): { upserts: FoundTest[]; removed: string[] } {
  const was = new Map(before.map((t) => [t.file, t]));
  const upserts: FoundTest[] = [];
  for (const t of after) {
    const old = was.get(t.file);
    if (!old || old.framework !== t.framework || old.cases !== t.cases) upserts.push(t);
    was.delete(t.file);
  }
  return { upserts, removed: [...was.keys()] };
}
