/**
 * What a scan saw, kept between scans so the next one re-reads only what changed: every directory the
 * walk entered with its stat stamp and file names, every file a rule read with its stamp, the case
 * counts of test files, and the result. Encoded as one byte string (V8 serialisation of strings and
 * typed arrays): cheap to send between threads or processes and to store as one BLOB.
 */
import { deserialize, serialize } from 'node:v8';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { packTests, unpackTests, type PackedTests } from '../process/packed.ts';
import { dirname } from '../../rules/paths.ts';
import type { SnapshotKeeper } from './snapshot-cache.ts';
import type { FoundPort, FoundTest, RunInfo } from '../../rules/types.ts';

const VERSION = 2;

/** Numbers per stamp: mtime, ctime (ms), inode, size. */
export const STAMP = 4;

/**
 * How stamps are taken. `since` is the wall clock when the scan started; a file or directory whose
 * mtime or ctime lies within `racyMs` of it (or later) may change again within the same clock tick
 * without its stamp moving ("racy git"), so its stamp is recorded as never matching.
 */
export interface StampClock {
  readonly since: number;
  /** @default 2000 (covers 1-2 s filesystem granularity: FAT, SMB, HFS+) */
  readonly racyMs: number;
  /** Test hook: floor times to this granularity, as a coarse filesystem would. 0 keeps them. */
  readonly granularityMs: number;
}

export interface StatLike { readonly mtimeMs: number; readonly ctimeMs: number; readonly ino: number; readonly size: number }

/** Appends `stat`'s stamp to `out`; NaN (never equal to anything) when missing or racy. */
export function pushStamp(out: number[], stat: StatLike | undefined, clock: StampClock): void {
  const at = out.length;
  out.push(NaN, NaN, NaN, NaN);
  if (stat) writeStamp(out, at, stat, clock);
}

/** Writes `stat`'s stamp at `at` of `out` (as {@link pushStamp} appends it). */
export function writeStamp(out: Float64Array | number[], at: number, stat: StatLike | undefined, clock: StampClock): void {
  if (!stat) { out.fill(NaN, at, at + STAMP); return; }
  const g = clock.granularityMs;
  const mtime = g > 0 ? Math.floor(stat.mtimeMs / g) * g : stat.mtimeMs;
  const ctime = g > 0 ? Math.floor(stat.ctimeMs / g) * g : stat.ctimeMs;
  out[at] = Math.max(mtime, ctime) >= clock.since - clock.racyMs ? NaN : mtime;
  out[at + 1] = ctime;
  out[at + 2] = stat.ino;
  out[at + 3] = stat.size;
}

/** Whether stamp `i` of `a` equals stamp `j` of `b` (a racy or missing stamp equals nothing). */
export function sameStamp(a: ArrayLike<number>, i: number, b: ArrayLike<number>, j: number): boolean {
  for (let k = 0; k < STAMP; k++) if (a[i * STAMP + k] !== b[j * STAMP + k]) return false;
  return true;
}

/** The walk's side of a snapshot: visited directories in visit order, their files contiguous in `files`. */
export interface TreeRecord {
  readonly dirs: string[];
  readonly stamps: number[] | Float64Array;
  /** 0 listed, 1 pruned by a marker file (a virtualenv, a cache dir), 2 unreadable. */
  readonly flags: number[] | Uint8Array;
  readonly fileCounts: number[] | Uint32Array;
}

/** A previous tree, indexed for the walk. */
export interface PreviousTree {
  readonly index: ReadonlyMap<string, number>;
  readonly stamps: Float64Array;
  readonly flags: Uint8Array;
  readonly fileStart: Uint32Array;
  readonly fileCounts: Uint32Array;
  /** File names (basenames), grouped per directory. */
  readonly names: readonly string[];
  /** Per directory, the indexes of its subdirectories. */
  readonly children: ReadonlyArray<readonly number[]>;
  readonly dirs: readonly string[];
}

export interface ScanSnapshotData {
  readonly v: number;
  readonly root: string;
  /** The walk limits that shape the tree; a snapshot taken under other limits is not reused. */
  readonly limits: string;
  readonly tree: { dirs: string; stamps: Float64Array; flags: Uint8Array; fileCounts: Uint32Array; names: string };
  /** `rule`: 1 where a rule read the file as its own input (not only to count its cases); see rescan.ts. */
  readonly reads: { paths: string; stamps: Float64Array; rule?: Uint8Array };
  /** Which run of the rules produced `result` (counts patched since keep it): see rescan.ts `patchCounts`. */
  readonly rulesRun?: string;
  /** Per count: the file (index into `reads`), the counter key (index into `keys`), the cases (NaN: none). */
  readonly memo: { keys: string[]; file: Uint32Array; key: Uint32Array; cases: Float64Array };
  readonly result: Omit<SnapshotResult, 'tests'> & { tests: PackedTests };
}

export interface SnapshotResult {
  tests: FoundTest[]; ports: FoundPort[]; framework: string | null; notes: string[]; runs: RunInfo[]; truncated: string | null;
}

/** The result a snapshot holds, as `scan` returns it. */
export function snapshotResult(data: ScanSnapshotData): SnapshotResult {
  return { ...data.result, tests: unpackTests(data.result.tests) };
}

/** Case counts by file, then by counter key (framework + counting function); NaN stands for "none". */
export type Memo = Map<string, Map<string, number>>;

/**
 * What is derived from a decoded snapshot and kept on it, built once: held as a property that is not
 * enumerable, so it is never serialised with the snapshot nor copied by a spread, and goes with it.
 */
interface Derived {
  /** The walk it was made from, while the snapshot is held decoded (snapshot-cache.ts): a rescan that finds
   * every directory as it was takes that walk as it is instead of rebuilding it. */
  walk?: object;
  tree?: PreviousTree;
  reads?: { memo: Memo; stamps: Map<string, number> };
  readPaths?: readonly string[];
}
/** By tree part: a snapshot that keeps its predecessor's tree (every directory as it was) keeps these too. */
interface TreeDerived {
  /** The deflated bytes of the part: a snapshot that keeps the tree (`{ kept }`) reuses them. */
  bytes?: Buffer;
  dirs?: readonly string[];
}

function derived(data: ScanSnapshotData): Derived;
function derived(tree: ScanSnapshotData['tree']): TreeDerived;
function derived(owner: object): Derived & TreeDerived {
  const own = owner as { derived?: Derived & TreeDerived };
  if (!own.derived) Object.defineProperty(owner, 'derived', { value: {}, enumerable: false });
  return own.derived!;
}

/** The walk `data` was encoded from (or kept from its predecessor), when this process still has it. */
export function keptWalk<T extends object>(data: ScanSnapshotData): T | undefined {
  return derived(data).walk as T | undefined;
}

/** What a snapshot is made of (see {@link encodeSnapshot}). */
export interface SnapshotInput {
  root: string; limits: string; files: readonly string[];
  /** The walk result `tree` and `files` come from, kept with the decoded snapshot for the next rescan. */
  walked?: object | undefined;
  /** The walk's record, or (`kept`) the previous snapshot's tree as it is, when every directory is as it was. */
  tree: TreeRecord | { kept: ScanSnapshotData['tree'] };
  reads: ReadonlyMap<string, readonly number[]>; memo: Memo; result: SnapshotResult;
  ruleReads?: ReadonlySet<string>; rulesRun?: string;
}

export function encodeSnapshot(input: SnapshotInput, keeper?: SnapshotKeeper): Uint8Array {
  // Perf: the maps are walked with `forEach`, which makes no [key, value] pair per entry (~10k each here).
  const readPaths: string[] = [];
  const readStamps = new Float64Array(input.reads.size * STAMP);
  const readIds = new Map<string, number>();
  input.reads.forEach((stamp, p) => {
    readStamps.set(stamp, readPaths.length * STAMP);
    readIds.set(p, readPaths.push(p) - 1);
  });
  const keys: string[] = [];
  const keyIds = new Map<string, number>();
  const memoFile: number[] = [];
  const memoKey: number[] = [];
  const memoCases: number[] = [];
  input.memo.forEach((byKey, file) => {
    const at = readIds.get(file);
    if (at === undefined) return; // Not a walked file (never read): nothing worth remembering.
    byKey.forEach((cases, key) => {
      let id = keyIds.get(key);
      if (id === undefined) keyIds.set(key, (id = keys.push(key) - 1));
      memoFile.push(at);
      memoKey.push(id);
      memoCases.push(cases);
    });
  });
  const data: ScanSnapshotData = {
    v: VERSION, root: input.root, limits: input.limits,
    tree: 'kept' in input.tree ? input.tree.kept : {
      dirs: input.tree.dirs.join('\0'), stamps: Float64Array.from(input.tree.stamps), flags: Uint8Array.from(input.tree.flags),
      fileCounts: Uint32Array.from(input.tree.fileCounts), names: fileNames(input.tree, input.files),
    },
    reads: {
      paths: readPaths.join('\0'), stamps: readStamps,
      ...(input.ruleReads ? { rule: Uint8Array.from(readPaths, (p) => (input.ruleReads!.has(p) ? 1 : 0)) } : {}),
    },
    ...(input.rulesRun === undefined ? {} : { rulesRun: input.rulesRun }),
    memo: { keys, file: Uint32Array.from(memoFile), key: Uint32Array.from(memoKey), cases: Float64Array.from(memoCases) },
    result: { ...input.result, tests: packTests(input.result.tests) },
  };
  // Two deflated parts: the tree (about two thirds of the bytes), then the rest. A rescan that keeps the
  // tree as it was keeps its bytes too, so only the rest is compressed again. Paths repeat their prefixes:
  // a fast deflate makes the stored and copied bytes about 3x smaller.
  const { tree, ...rest } = data;
  const treeBytes = derived(tree).bytes ??= deflateRawSync(serialize(tree), { level: 1 });
  const restBytes = deflateRawSync(serialize(rest), { level: 1 });
  const out = new Uint8Array(4 + treeBytes.byteLength + restBytes.byteLength);
  new DataView(out.buffer).setUint32(0, treeBytes.byteLength);
  out.set(treeBytes, 4);
  out.set(restBytes, 4 + treeBytes.byteLength);
  const known = derived(data);
  if (input.walked) known.walk = input.walked;
  // What `previousReads` would rebuild from these bytes, at hand: a rescan from the kept snapshot takes it
  // (the memo may hold files not read, which have no stamp and so are never reused).
  known.reads = { memo: input.memo, stamps: readIds };
  known.readPaths = readPaths;
  // A kept walk holds its paths, names and index: about 160 bytes per file and directory.
  const entries = data.tree.flags.length + data.tree.fileCounts.reduce((a, b) => a + b, 0);
  keeper?.keep(out, data, out.byteLength * 4 + (input.walked ? entries * 160 : 0));
  return out;
}

/**
 * The walk's file names (basenames), joined with NUL. Perf: each directory's files follow one another in
 * `files` and start with its path and a slash, so a name is a slice past that prefix: no search for the
 * last slash in each of 100k paths (~40% of this join's CPU).
 */
function fileNames(tree: TreeRecord, files: readonly string[]): string {
  const names: string[] = new Array(files.length);
  let at = 0;
  for (let i = 0; i < tree.dirs.length; i++) {
    const dir = tree.dirs[i]!;
    const skip = dir === '' ? 0 : dir.length + 1;
    for (const end = at + tree.fileCounts[i]!; at < end; at++) names[at] = files[at]!.slice(skip);
  }
  return names.join('\0');
}

/** The snapshot in `bytes` if it was taken of `root` under `limits` by this version, else undefined. */
export function decodeSnapshot(bytes: Uint8Array | null | undefined, root: string, limits: string,
  keeper?: SnapshotKeeper): ScanSnapshotData | undefined {
  if (!bytes || bytes.byteLength === 0) return undefined;
  const known = keeper?.kept(root, bytes);
  if (known) return known.limits === limits ? known : undefined;
  try {
    const treeLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    const treeBytes = bytes.subarray(4, 4 + treeLength);
    const rest = deserialize(inflateRawSync(bytes.subarray(4 + treeLength))) as Omit<ScanSnapshotData, 'tree'>;
    if (rest?.v !== VERSION || rest.root !== root || rest.limits !== limits) return undefined;
    const tree = deserialize(inflateRawSync(treeBytes)) as ScanSnapshotData['tree'];
    const data: ScanSnapshotData = { ...rest, tree };
    derived(tree).bytes = Buffer.from(treeBytes);
    keeper?.keep(bytes, data);
    return data;
  } catch {
    return undefined; // A damaged snapshot costs one full scan, nothing else.
  }
}

// Derived indexes of a snapshot are built once per decoded snapshot (a kept one is used again).

/** The snapshot's directories in walk order (split once per snapshot; read only). */
export function snapshotDirs(data: ScanSnapshotData): readonly string[] {
  return derived(data.tree).dirs ??= data.tree.dirs.split('\0');
}

/** The files the last scan read, in the order of their stamps (split once per snapshot; read only). */
export function snapshotReadPaths(data: ScanSnapshotData): readonly string[] {
  return derived(data).readPaths ??= data.reads.paths === '' ? [] : data.reads.paths.split('\0');
}

/** The previous tree indexed for the walk (built once per snapshot; callers only read it). */
export function previousTree(data: ScanSnapshotData): PreviousTree {
  return derived(data).tree ??= indexTree(data);
}

function indexTree(data: ScanSnapshotData): PreviousTree {
  const dirs = snapshotDirs(data);
  const names = data.tree.names === '' ? [] : data.tree.names.split('\0');
  const index = new Map<string, number>();
  dirs.forEach((d, i) => index.set(d, i));
  const fileStart = new Uint32Array(dirs.length);
  const children: number[][] = dirs.map(() => []);
  let at = 0;
  for (let i = 0; i < dirs.length; i++) {
    fileStart[i] = at;
    at += data.tree.fileCounts[i]!;
    if (dirs[i] !== '') {
      const parent = index.get(dirname(dirs[i]!));
      if (parent !== undefined) children[parent]!.push(i);
    }
  }
  return { index, stamps: data.tree.stamps, flags: data.tree.flags, fileStart, fileCounts: data.tree.fileCounts, names, children, dirs };
}

/**
 * The previous memo as nested maps, and the previous stamp of each file read (built once per snapshot;
 * callers only read them).
 */
export function previousReads(data: ScanSnapshotData): { memo: Memo; stamps: Map<string, number> } {
  return derived(data).reads ??= indexReads(data);
}

function indexReads(data: ScanSnapshotData): { memo: Memo; stamps: Map<string, number> } {
  const stamps = new Map<string, number>();
  const paths = snapshotReadPaths(data);
  paths.forEach((p, i) => stamps.set(p, i));
  const memo: Memo = new Map();
  data.memo.file.forEach((at, i) => {
    const file = paths[at]!;
    let byKey = memo.get(file);
    if (!byKey) memo.set(file, (byKey = new Map()));
    byKey.set(data.memo.keys[data.memo.key[i]!]!, data.memo.cases[i]!);
  });
  return { memo, stamps };
}
