/**
 * `ctx.has(file)` over the walk's directory index instead of a Set of every path. The walk appends each
 * listed directory's files as one run of `files`, in the order of `record.dirs`, so a file is looked up
 * by its directory (one Map of directories, about a third as many entries as files) and then within that
 * run. A Set of 640k paths is ~20 MB on the 1M-file tree; the directory index ~7 MB.
 */
import type { TreeRecord } from './incremental/snapshot.ts';
import type { Tree } from '../rules/types.ts';

/** Longest run scanned name by name; a longer directory gets its own Set on first use. */
const SCAN_RUN = 32;

/**
 * A membership test over `tree.files`. Trees that do not come whole from `walk` (built or edited by hand,
 * or cut short by a cap, where a run can end mid-listing) get a Set, exact in every case.
 *
 * @example
 * const has = membership(await walk(root));
 * has('src/a.test.ts'); // true
 */
export function membership(tree: Tree & { readonly record?: TreeRecord }, walkMemo?: Map<string, unknown>): (file: string) => boolean {
  // Perf: a rescan that keeps the last walk (scan/index.ts) passes the very same arrays, and the engine the
  // same per-walk memo: the index built for them (~11 ms on the 100k tree) is taken as it was.
  const known = walkMemo?.get(MEMO_SLOT) as Built | undefined;
  if (known && known.record === tree.record && known.truncated === tree.truncated) return known.has;
  const has = build(tree);
  walkMemo?.set(MEMO_SLOT, { record: tree.record, truncated: tree.truncated, has } satisfies Built);
  return has;
}

const MEMO_SLOT = 'scan:membership';
interface Built { record: TreeRecord | undefined; truncated: string | null; has: (file: string) => boolean }

/**
 * The walk's directory runs (`ctx.dirRuns`): whether `tree.files` is one run per directory of `record.dirs`,
 * as a whole walk appends them. A tree built or edited by hand, or cut short by a cap, has none.
 */
export function directoryRuns(
  tree: Tree & { readonly record?: TreeRecord },
): { dirs: readonly string[]; counts: ArrayLike<number> } | undefined {
  const { record } = tree;
  if (!record || tree.truncated !== null || record.dirs.length !== record.fileCounts.length) return undefined;
  let total = 0;
  for (let i = 0; i < record.fileCounts.length; i++) total += record.fileCounts[i]!;
  return total === tree.files.length ? { dirs: record.dirs, counts: record.fileCounts } : undefined;
}

function build(tree: Tree & { readonly record?: TreeRecord }): (file: string) => boolean {
  const { files, record } = tree;
  if (!record || !directoryRuns(tree)) return setOf(files);
  const start = new Uint32Array(record.dirs.length);
  const index = new Map<string, number>();
  let at = 0;
  for (let i = 0; i < record.dirs.length; i++) {
    start[i] = at;
    at += record.fileCounts[i]!;
    if (record.fileCounts[i]! > 0) index.set(record.dirs[i]!, i);
  }
  const big = new Map<number, Set<string>>();
  return (file) => {
    const slash = file.lastIndexOf('/');
    const dir = index.get(slash === -1 ? '' : file.slice(0, slash));
    if (dir === undefined) return false;
    const from = start[dir]!;
    const to = from + record.fileCounts[dir]!;
    if (to - from > SCAN_RUN) {
      let set = big.get(dir);
      if (!set) big.set(dir, (set = new Set(files.slice(from, to))));
      return set.has(file);
    }
    for (let i = from; i < to; i++) if (files[i] === file) return true;
    return false;
  };
}

function setOf(files: readonly string[]): (file: string) => boolean {
  const set = new Set(files);
  return (file) => set.has(file);
}
