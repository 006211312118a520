/**
 * Everything a scan engine keeps between scans, in one object with one owner: the process (or library
 * caller) that made it with `createScanCache` and passes it to every `scan(root, { cache })`. A scan given
 * none makes a cache of its own that keeps nothing past it: a plain full scan.
 */
import { createHelper, type Helper } from '../walk/helper.ts';
import { createWalkSharing, type WalkSharing } from '../walk/walk-split.ts';
import { createCounterRuns, type CounterRuns } from './rescan.ts';
import { createSnapshotKeeper, type SnapshotKeeper } from './snapshot-cache.ts';
import { createUnitRecords, type UnitRecords } from './unit-memo.ts';

export interface ScanCacheOptions {
  /**
   * Heap the decoded snapshots kept (and the walks they were made from) may hold. 0 keeps none, and then
   * no rule unit is recorded either (a unit's record names a walk kept with a snapshot). @default 0
   */
  readonly snapshotBytes?: number;
  /** A helper thread that takes half of a rescan's stat checks (started on first need). @default false */
  readonly helper?: boolean;
  /** First walks shared with the helper thread (implies `helper`). @default false */
  readonly shareWalks?: boolean;
  /** Files the helper records per shared walk before it hands back what it has left. @default 40_000 */
  readonly helperFiles?: number;
  /**
   * Moves the process into a root so the quick check stats paths relative to it; true when it did. Only for
   * a process that runs one scan at a time and resolves nothing else relatively (a scan process's entry).
   * @default none
   */
  readonly enterRoot?: (root: string) => boolean;
  /** Rule units answered from their records on rescans (with `snapshotBytes`). Off only to measure it. @default true */
  readonly replayUnits?: boolean;
  /** Counts of moved test files patched into the last result. Off only to measure it. @default true */
  readonly patchCounts?: boolean;
}

export interface ScanCache {
  readonly snapshots: SnapshotKeeper;
  /** Rule-unit records: present only where snapshots are kept. */
  readonly units: UnitRecords | undefined;
  readonly counterRuns: CounterRuns;
  /** Values rules and the engine keep per walked tree (`ctx.perWalk`, membership), by its `files` array. */
  readonly walkMemos: WeakMap<readonly string[], Map<string, unknown>>;
  readonly helper: Helper | undefined;
  readonly walkSharing: WalkSharing | undefined;
  readonly enterRoot: ((root: string) => boolean) | undefined;
  /** Ends the helper thread, if one was started. */
  close(): Promise<void>;
}

/**
 * A cache for a process that scans again and again (the scan processes make one at start).
 *
 * @example
 * const cache = createScanCache({ snapshotBytes: 48 * 1024 * 1024, shareWalks: true });
 * const first = await scan(root, { cache });
 * const again = await scan(root, { cache, previous: first.snapshot }); // answered from what it kept
 */
export function createScanCache({
  snapshotBytes = 0, helper: wantHelper = false, shareWalks = false, helperFiles, enterRoot, replayUnits = true,
  patchCounts = true,
}: ScanCacheOptions = {}): ScanCache {
  const helper = wantHelper || shareWalks ? createHelper() : undefined;
  return {
    snapshots: createSnapshotKeeper(snapshotBytes),
    units: snapshotBytes > 0 && replayUnits ? createUnitRecords() : undefined,
    counterRuns: patchCounts ? createCounterRuns() : createCounterRuns({ roots: 0 }),
    walkMemos: new WeakMap(),
    helper,
    walkSharing: shareWalks && helper ? createWalkSharing(helper, helperFiles === undefined ? {} : { helperFiles }) : undefined,
    enterRoot,
    close: async () => { await helper?.close(); },
  };
}
