import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { discoverJs } from '../discover/js/index.ts';
import { discoverOthers } from '../discover/others.ts';
import { findPorts } from '../ports/index.ts';
import { createContext, walkMemoOf } from './context.ts';
import { membership } from './membership.ts';
import { partLog } from '../rules/part-log.ts';
import type { ScanProbe } from './process/probe.ts';
import { randomUUID } from 'node:crypto';
import {
  diffTests, movedInPlace, patchCounts, startQuickCheck, statReads, type QuickCheck,
} from './incremental/rescan.ts';
import { createScanCache, type ScanCache } from './incremental/cache.ts';
import {
  decodeSnapshot, encodeSnapshot, keptWalk, previousReads, previousTree, snapshotResult,
  type ScanSnapshotData, type SnapshotInput,
  type StampClock,
} from './incremental/snapshot.ts';
import { detectStack } from '../discover/stack.ts';
import type { FoundPort, FoundTest, RunInfo } from '../rules/types.ts';
import { MAX_PATH_CHARS, type WalkOptions, type WalkResult } from './walk/walk.ts';
import { walkShared } from './walk/walk-split.ts';
import { ruleReadsOf, rulesView } from './rules-view.ts';
import type { Counter } from '../rules/with-cases.ts';
import { withPackedTests } from './process/packed.ts';

export interface ScanResult {
  /** One entry per test file, sorted by `file`. */
  readonly tests: FoundTest[];
  /** Sorted by port, then script name. */
  readonly ports: FoundPort[];
  /** Main stack detected (e.g. `next`, `vite`, `django`, `go`), or null. */
  readonly framework: string | null;
  /** Remarks on what the scan could not read exactly, e.g. a config key that is computed. */
  readonly notes: string[];
  /** Per package, what discovery followed: command, runner, config and assumptions. */
  readonly runs: RunInfo[];
  /** Why the walk stopped early, or null when it saw the whole tree. */
  readonly truncated: string | null;
  /** Directories (relative) that could not be read, or that a walk cap left unread: what was stored under them is kept. */
  readonly unreadable: string[];
  /**
   * What this scan saw, to pass as `previous` to the next scan of the same root (opaque bytes). Null when
   * the walk was cut short (a cap, an abort) and the tree is not known whole, or, with mode `unchanged`,
   * when the previous snapshot still stands as it is.
   */
  readonly snapshot: Uint8Array | null;
  /**
   * With `deferSnapshot`, when the scan made a snapshot: encodes it (`snapshot` is then null). Called once,
   * before the next scan with the same cache: the cache keeps what it encodes for that scan.
   */
  readonly encodeSnapshot?: () => Uint8Array;
  /** How the result was reached: `full` (no usable snapshot), `incremental`, or `unchanged` (nothing moved). */
  readonly mode: 'full' | 'incremental' | 'unchanged';
  /**
   * With mode `incremental`: how `tests` differ from the previous scan's (the one in `previous`), so a
   * store holding that scan writes only these rows. Rows under `unreadable` this scan did not find are not
   * in `removed`: a store keeps those (as it does saving the whole result).
   */
  readonly delta?: { readonly upserts: FoundTest[]; readonly removed: string[] };
}

export interface ScanOptions extends Omit<WalkOptions, 'fs' | 'onProgress' | 'previous' | 'clock' | 'stat' | 'stampsUpTo' | 'onListing'> {
  /** Told how far the scan got (files walked, each file a rule reads): see `ScanProbe`. */
  readonly probe?: ScanProbe;
  /** The `snapshot` of the last scan of this root: only what changed since is read again. */
  readonly previous?: Uint8Array | null;
  /**
   * A file or directory modified within this many milliseconds before the scan started is read again
   * next time even if its stat looks the same (it may change again within one filesystem clock tick).
   * @default 2000
   */
  readonly racyMs?: number;
  /** Test hook: floor stat times to this many milliseconds, as a coarse filesystem would. @default 0 */
  readonly granularityMs?: number;
  /**
   * Most files and directories a scan keeps a snapshot of. Above it no snapshot is kept (a note says so)
   * and every rescan is a full scan: the bookkeeping costs memory and time that big first scans must not
   * pay. @default 200_000
   */
  readonly snapshotMaxEntries?: number;
  /**
   * A first walk may share its work with the helper thread, where the cache allows it (see
   * `createScanCache`'s `shareWalks`; scan processes do). @default true
   */
  readonly shareWalk?: boolean;
  /**
   * Leave the snapshot to `encodeSnapshot` on the result, so a caller can hand on the findings first (a scan
   * process answers, then encodes while the server saves). @default false
   */
  readonly deferSnapshot?: boolean;
  /**
   * What the engine keeps between scans (made once by `createScanCache`, passed to every scan). None: this
   * scan keeps nothing past itself.
   */
  readonly cache?: ScanCache;
}

/** A path component the walk spelled from bytes that are not UTF-8 (or that hold U+FFFD): see walk.ts. */
const UNSPELLED = /\uFFFD\[(?:[0-9a-f]{2}|efbfbd)\]/;

/**
 * Scans one project directory: the test files its own runners would run, the ports its files name
 * and its main stack. Reads files, never executes them.
 *
 * @example
 * const { tests } = await scan('/home/me/app');
 * tests[0]; // { file: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export async function scan(root: string, options: ScanOptions = {}): Promise<ScanResult> {
  // A rescan that gives up on its previous state returns null from a frame that no longer holds it.
  return (await scanFrom(root, options)) ?? (await scanFrom(root, { ...options, previous: null }))!;
}

async function scanFrom(root: string, options: ScanOptions): Promise<ScanResult | null> {
  const {
    previous: bytes, racyMs = 2000, granularityMs = 0, probe, snapshotMaxEntries = SNAPSHOT_MAX_ENTRIES, shareWalk = true,
    deferSnapshot = false, cache = createScanCache(), ...walkOptions
  } = options;
  const snapshotOf = (input: SnapshotInput): Pick<ScanResult, 'snapshot' | 'encodeSnapshot'> => (deferSnapshot
    ? { snapshot: null, encodeSnapshot: () => encodeSnapshot(input, cache.snapshots) }
    : { snapshot: encodeSnapshot(input, cache.snapshots) });
  const clock: StampClock = { since: Date.now(), racyMs, granularityMs };
  // Rules match some patterns against absolute paths (Jest's testMatch), so the root must be absolute and real.
  root = await realpath(resolve(root));
  // Limits that change what the walk records make a snapshot unusable; `exclude` is a function: never reused.
  const limits = walkOptions.exclude ? null
    : JSON.stringify([walkOptions.maxDepth ?? 32, walkOptions.maxEntries ?? 1_000_000,
      // Only when not the default: snapshots kept before this limit existed stay usable.
      ...((walkOptions.maxPathChars ?? MAX_PATH_CHARS) === MAX_PATH_CHARS ? [] : [walkOptions.maxPathChars])]);
  const previous = limits === null ? undefined : decodeSnapshot(bytes, root, limits, cache.snapshots);
  const base = root.endsWith('/') ? root : root + '/';
  const started = previous ? startQuickCheck(previous, base, clock, cache) : undefined;
  const state: CheckedScan = {
    root, previous, base, clock, limits, cache, snapshotOf, snapshotMaxEntries, shareWalk, probe, walkOptions,
  };
  // Files read moved, each in place: most likely no directory did (an edit, not a file added, removed or
  // saved by a rename). The rescan then starts on that guess, while the helper thread still stats the
  // directories (on a 100k-file tree, the rules of a 1% rescan run beside those stats instead of after them);
  // its result stands only if the guess was right, else the rescan runs again from the whole check. An
  // unchanged rescan (nothing read moved) never guesses.
  const kept = previous && started && !started.readsSame ? keptWalk<WalkResult>(previous) : undefined;
  const guessed = { same: false, dirs: true } as const;
  if (previous && started && kept && plan(previous, guessed, snapshotMaxEntries).mode === 'patch'
    && movedInPlace(previous, started.readStamps, membership(kept, walkMemoOf(cache.walkMemos, kept.files)))) {
    const guess: QuickCheck = { ...guessed, sameEach: new Uint8Array(0), readStamps: started.readStamps };
    const early = await scanChecked(state, guess).then((result) => ({ result }), (error: unknown) => ({ error }));
    const quick = started.finish();
    probe?.checkedDirs?.(quick.dirs);
    if (!quick.dirs) return scanChecked(state, quick);
    if ('error' in early) throw early.error;
    return early.result;
  }
  const quick = started?.finish();
  probe?.checkedDirs?.(quick?.dirs === true);
  return scanChecked(state, quick);
}

/** What {@link scanChecked} is given by `scanFrom`: the scan's settings and what it decoded. */
interface CheckedScan {
  readonly root: string;
  readonly previous: ScanSnapshotData | undefined;
  readonly base: string;
  readonly clock: StampClock;
  readonly limits: string | null;
  readonly cache: ScanCache;
  readonly snapshotOf: (input: SnapshotInput) => Pick<ScanResult, 'snapshot' | 'encodeSnapshot'>;
  readonly snapshotMaxEntries: number;
  readonly shareWalk: boolean;
  readonly probe: ScanProbe | undefined;
  readonly walkOptions: Omit<ScanOptions, 'previous' | 'racyMs' | 'granularityMs' | 'probe'
    | 'snapshotMaxEntries' | 'shareWalk' | 'deferSnapshot' | 'cache'>;
}

/** The scan once the quick check is known (none: a scan from no snapshot). */
async function scanChecked(state: CheckedScan, quick: QuickCheck | undefined): Promise<ScanResult | null> {
  const {
    root, previous, base, clock, limits, cache, snapshotOf, snapshotMaxEntries, shareWalk, probe, walkOptions,
  } = state;
  const decision = plan(previous, quick, snapshotMaxEntries);
  if (decision.mode === 'unchanged') {
    // The tests stay in the snapshot's columns until someone reads them: a scan process sends the columns
    // as they are (process.ts), without unpacking ~10k rows to pack them again.
    const { tests, ...kept } = previous!.result;
    return withPackedTests({ ...kept, unreadable: [], snapshot: null, mode: 'unchanged' as const }, tests);
  }
  if (decision.mode === 'full' && previous) return null;
  // (Every file read was stat'ed by the quick check: `statReads` only compares here.)
  const readsNow = previous && quick ? statReads(previous, base, clock, quick.readStamps) : undefined;
  const reads = previous ? previousReads(previous) : undefined;
  const triedPatch = decision.mode === 'patch';
  if (decision.mode === 'patch') {
    const patched = await patchCounts({
      previous: previous!, memo: reads!.memo, root, limits: limits!, clock, reads: readsNow!, counterRuns: cache.counterRuns,
      snapshotOf,
    });
    if (patched) return patched;
  }
  // Every directory as it was, and this process still has the walk that snapshot was made from (a scan
  // process keeps it with the decoded snapshot): that walk is this one, without listing or copying a name.
  // Otherwise the walk takes each directory the quick check found as it was without a second stat; a first
  // walk stamps each directory from the stat it takes before listing it anyway (its identity, see walk.ts).
  const sameWalk = previous && quick?.dirs ? keptWalk<WalkResult>(previous) : undefined;
  const tree = sameWalk ? { ...sameWalk, same: true } : await walkShared(root, {
    ...walkOptions, clock, stampsUpTo: snapshotMaxEntries, ...(probe ? { onProgress: probe.walked } : {}),
    ...(previous ? { previous: previousTree(previous), ...(quick ? { trustedDirs: quick.sameEach } : {}) } : {}),
  }, shareWalk, cache.walkSharing);
  probe?.walked(tree.files.length);
  if (tree.rootError) {
    // Nothing was seen, which must not read as "no tests": the scan fails and the store keeps its rows.
    throw Object.assign(new Error(`project directory cannot be read (${tree.rootError})`), { code: 'ROOT_UNREADABLE', cause: tree.rootError });
  }
  // No snapshot of a tree not seen whole (a cap, unreadable directories: their kept rows would not survive a
  // rescan that reuses it), nor of one too big to be worth its memory (see `snapshotMaxEntries`).
  const entries = tree.files.length + tree.dirs.length;
  const keep = tree.truncated === null && tree.unreadable.length === 0 && tree.unvisited.length === 0
    && limits !== null && entries <= snapshotMaxEntries && tree.record.stamps.length === tree.record.dirs.length * 4;

  // The tree lists what it listed (no directory moved, or some were listed again, say for a racy stamp, and
  // hold what they held): nothing moved if every file read still has its stamp; only counted test files
  // moved -> their counts patched into the last result (rescan.ts `patchCounts`); else the rules run.
  const fresh = readsNow?.fresh ?? new Map<string, readonly number[]>();
  if (previous && reads && readsNow && tree.same && keep) {
    const again = readsNow;
    if (again.changed.length === 0) {
      const before = snapshotResult(previous);
      const snapshot = snapshotOf({
        root, limits: limits!, tree: sameWalk ? { kept: previous.tree } : tree.record, files: tree.files, walked: tree,
        reads: again.fresh, memo: reads.memo, result: before,
        ...(previous.reads.rule ? { ruleReads: ruleReadsOf(previous, again.paths) } : {}),
        ...(previous.rulesRun === undefined ? {} : { rulesRun: previous.rulesRun }),
      });
      return { ...before, unreadable: [], ...snapshot, mode: 'unchanged' };
    }
    // The same inputs as the attempt above when that one was made: it would fail the same way.
    const patched = triedPatch ? null : await patchCounts({
      previous, memo: reads.memo, root, limits: limits!, tree, clock, reads: again,
      counterRuns: cache.counterRuns, snapshotOf,
    });
    if (patched) return patched;
  }

  const memo = previous && reads
    ? { memo: reads.memo, stamps: reads.stamps, stampData: previous.reads.stamps, sameTree: tree.same } : undefined;
  const ctx = createContext(root, tree, {
    clock, fresh, keep, ...(memo ? { previous: memo } : {}), ...(probe ? { onRead: probe.reading } : {}),
    walkMemos: cache.walkMemos, units: cache.units, helper: cache.helper,
  });
  // A directory whose name is not UTF-8 cannot be opened by its name (walk.ts distinctNames): said apart.
  const unspelled = tree.unreadable.filter((dir) => UNSPELLED.test(dir.slice(dir.lastIndexOf('/') + 1)));
  const failed = tree.errors - unspelled.length;
  if (failed > 0) {
    const named = tree.unreadable.filter((dir) => !UNSPELLED.test(dir.slice(dir.lastIndexOf('/') + 1)));
    ctx.note(`${failed} director${failed === 1 ? 'y' : 'ies'} could not be read (${named.slice(0, 3).join(', ')}`
      + `${failed > 3 ? ', ...' : ''}); what was found there before was kept`);
  }
  if (unspelled.length > 0) {
    ctx.note(`${unspelled.length} director${unspelled.length === 1 ? 'y was' : 'ies were'} not scanned: the name is not valid UTF-8 `
      + `(${unspelled.slice(0, 3).join(', ')}${unspelled.length > 3 ? ', ...' : ''}; each such byte shown as \uFFFD[hh]); rename to scan`);
  }
  const dropped = tree.record.stamps.length !== tree.record.dirs.length * 4; // see `stampsUpTo`
  if ((entries > snapshotMaxEntries || dropped) && tree.truncated === null) {
    ctx.note(`${entries} files and directories: over the ${snapshotMaxEntries} a scan keeps a snapshot of, so rescans of this project are full scans`);
  }
  // The rules see a view that tells their own reads (their inputs) from the reads that count a test file's
  // cases, and collects the counting functions, so a rescan where only counted files moved can patch.
  const ruleReads = new Set<string>();
  const counters = new Map<string, Counter | null>();
  const view = rulesView(ctx, ruleReads, counters);
  // The families run at once, each with its own notes and runs, appended in family order when all are
  // done: the answer's order does not depend on which family's reads came back first. Readers over a budget
  // and patterns refused as unsafe (readers/budget.ts) become notes of the family that read them.
  const logs = [0, 1, 2, 3].map(() => partLog());
  const [js, others, ports, framework] = await Promise.all([
    logs[0]!.run(view, discoverJs), logs[1]!.run(view, discoverOthers), logs[2]!.run(view, findPorts), logs[3]!.run(view, detectStack),
  ]);
  for (const log of logs) log.replay(ctx);
  const rulesRun = randomUUID();
  if (keep) cache.counterRuns.remember(root, rulesRun, counters);

  // One row per file: when two families claim a file, the first (JS, then the rest) wins.
  const byFile = new Map<string, FoundTest>();
  for (const test of [...js, ...others]) if (!byFile.has(test.file)) byFile.set(test.file, test);
  const tests = [...byFile.values()].sort((a, b) => compare(a.file, b.file));
  const unreadNames = tests.filter((test) => UNSPELLED.test(test.file.slice(test.file.lastIndexOf('/') + 1))).length;
  if (unreadNames > 0) {
    ctx.note(`${unreadNames} test file${unreadNames === 1 ? '' : 's'} listed with a name that is not valid UTF-8 (each such byte `
      + 'shown as \uFFFD[hh]): not read, so their cases are not counted');
  }

  const seen = new Set<string>();
  const uniquePorts = ports.filter((p) => {
    const key = `${p.port}\0${p.script_name}\0${p.config_source}`;
    return seen.has(key) ? false : (seen.add(key), true);
  }).sort((a, b) => a.port - b.port || compare(a.script_name ?? '', b.script_name ?? '') || compare(a.config_source, b.config_source));

  const result = { tests, ports: uniquePorts, framework, notes: ctx.notes, runs: ctx.runs, truncated: tree.truncated };
  const unreadable = [...tree.unreadable, ...tree.unvisited, ...ctx.kept];
  // Rows kept under a package the rules could not read would not survive a rescan that reuses this one.
  const whole = keep && ctx.kept.length === 0;
  const snapshot = !whole ? { snapshot: null } : snapshotOf({
    // The walk taken as it was: the tree part too (its encoded bytes are reused, see encodeSnapshot).
    root, limits, tree: sameWalk && previous ? { kept: previous.tree } : tree.record, files: tree.files, walked: tree,
    reads: ctx.record.reads, memo: ctx.record.memo, result, ruleReads, rulesRun,
  });
  if (!previous) return { ...result, unreadable, ...snapshot, mode: 'full' };
  // The store keeps the rows under `unreadable` (a package whose package.json is being edited, a directory
  // left unread) that this scan did not find: the delta leaves them out of `removed`, so it says the same as
  // a full save. Only a snapshot is refused for such a scan (see `whole`).
  const delta = diffTests(previous.result.tests, tests, unreadable);
  return { ...result, unreadable, ...snapshot, mode: 'incremental', delta };
}

/**
 * What a scan does, decided before it walks from the previous snapshot and the quick check's stats:
 * - `unchanged`: every directory and every file read has its stamp: the last result stands;
 * - `patch`: every directory as it was and only files read moved: their counts are patched into the last
 *   result when they are counted test files (rescan.ts `patchCounts`), else the scan walks as below;
 * - `walk`: a walk that takes the directories the check found as they were without listing them again;
 * - `full`: no usable snapshot (none, other limits, or too big for this heap beside a new one).
 * Everything after follows from it; a walk may still find nothing moved (a racy stamp listed again).
 */
export type ScanPlan =
  | { readonly mode: 'unchanged' }
  | { readonly mode: 'patch' }
  | { readonly mode: 'walk' }
  | { readonly mode: 'full' };

export function plan(previous: ScanSnapshotData | undefined, quick: { readonly same: boolean; readonly dirs: boolean } | undefined,
  snapshotMaxEntries: number): ScanPlan {
  if (!previous || !quick) return { mode: 'full' };
  if (quick.same) return { mode: 'unchanged' };
  // Rebuilding from the previous tree holds it next to the new one: on a tree that large for this heap (1M
  // files in the scanning thread's 256 MB), a full walk is the one that fits.
  if (!roomFor(previous)) return { mode: 'full' };
  if (quick.dirs && entriesOf(previous) <= snapshotMaxEntries) return { mode: 'patch' };
  return { mode: 'walk' };
}

/** Files and directories a snapshot holds. */
function entriesOf(previous: ScanSnapshotData): number {
  return previous.tree.fileCounts.reduce((a, b) => a + b, 0) + previous.tree.flags.length;
}

/**
 * Whether this heap can hold an incremental rescan's previous-state structures (paths, maps of stamps
 * and counts: about 200 bytes per file and directory) next to a full scan's: up to a fifth of the limit.
 */
function roomFor(previous: ScanSnapshotData): boolean {
  return entriesOf(previous) * 200 < getHeapStatistics().heap_size_limit / 5;
}

/** The default of `snapshotMaxEntries`: past it a walk keeps no snapshot (and, in a scan process, is not shared). */
export const SNAPSHOT_MAX_ENTRIES = 200_000;

/** Code-unit order, the same as SQLite's default BINARY collation, so API order matches store order. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One test file as the library's `scan()` reports it: the field names of the API's Test records. */
export interface ReportedTest {
  /** POSIX path relative to the scanned root. */
  readonly file_path: string;
  readonly framework: FoundTest['framework'];
  /** Static estimate of the test cases the file declares, or null when not counted. */
  readonly cases: number | null;
}

/** `scan()`'s answer as the library exports it: `tests` carry `file_path` as in `GET /api/projects/:id/tests`. */
export type ScanReport = Omit<ScanResult, 'tests'> & { readonly tests: ReportedTest[] };

/**
 * The library's `scan` (exported by the package as `scan`): the same scan, with the API's field names,
 * so code moving between the library and the HTTP API reads one shape. Ports already use them.
 *
 * @example
 * const { tests } = await scanReport('/home/me/app');
 * tests[0]; // { file_path: 'src/a.test.ts', framework: 'vitest', cases: 3 }
 */
export async function scanReport(root: string, options: ScanOptions = {}): Promise<ScanReport> {
  const { tests, ...rest } = await scan(root, options);
  return { ...rest, tests: tests.map((t) => ({ file_path: t.file, framework: t.framework, cases: t.cases ?? null })) };
}
