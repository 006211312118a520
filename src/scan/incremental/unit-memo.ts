/**
 * Rule units that run again only when their inputs moved. A unit (one runner rule over one package, say)
 * is a pure function of the walked tree, a key naming everything else it was given, and the files it read.
 * It is answered from its record while each file it read still has the stamp it had when read and the tree
 * answers it the same: on the very walk it ran on (a rescan that keeps the last walk, scan/index.ts), or on
 * another when what it asked of the tree still holds (unit-tree.ts). Its value is returned and its notes
 * are given again, in order.
 *
 * Files under node_modules (`readPackage`: presets, shared configs) are not walked, and the package reader
 * spends a budget shared by the whole scan: a replay asks for them again, in the same order (spending the
 * same budget), and is taken only when each comes back as it did. Shared per-scan caches a unit may hit
 * without reading (packages-workspace.ts's package names) tell the unit what they stand for with
 * `ctx.dependOn`.
 */
import { hash } from 'node:crypto';
import { readerNotes } from '../../readers/budget.ts';
import type { PackageFile } from '../package-files.ts';
import { treeHolds, treeRecording, type TreeUse } from './unit-tree.ts';
import type { FoundTest, RunInfo, ScanContext, UnitOptions } from '../../rules/types.ts';
import { withCases, type CountCall } from '../../rules/with-cases.ts';

interface UnitRecord {
  /** The walk it last held on (see `walkOf`), and what it asked of the tree. */
  walk: number;
  readonly tree: TreeUse;
  /** Walked files the unit read, with their stamps then (four numbers each). */
  readonly reads: readonly string[];
  readonly stamps: Float64Array;
  /** What it asked `readPackage` for, in order, and a digest of what came back (a replay asks again). */
  readonly packages: ReadonlyArray<readonly [file: string, digest: string]>;
  /** The notes it gave the scan, in order, and the runs it followed. */
  readonly notes: readonly string[];
  readonly runs: readonly RunInfo[];
  /** Its `withCases` calls: made again on a replay, so counts are those of the files as they are now. */
  readonly calls: readonly CountCall[];
  readonly value: unknown;
}

/**
 * Bounds on what is kept per project root, for a hostile tree of thousands of packages whose configs each
 * resolve a name through every package.json: records, the tree answers (reads included) one record may
 * hold, and those of all records together with the files their counting calls name (~50 bytes each). A unit
 * past them runs every time (its answer is the same). Records are kept for the roots scanned last, and
 * dropped for all other roots when a scan process's heap fills up (`dropUnitRecords`).
 */
const MAX_RECORDS = 4096;
const MAX_UNIT_WEIGHT = 512;
const MAX_ROOT_WEIGHT = 65_536;
const MAX_ROOTS = 8;

interface RootRecords { readonly byKey: Map<string, UnitRecord>; weight: number }

/**
 * The records of one scan engine (made by `createScanCache` where snapshots are kept): per project root (the
 * roots scanned last; the oldest dropped), records by unit key and their weight together; a number per
 * walked file list, so a record names the walk it last held on without keeping the walk alive; and how many
 * units ran and how many were answered from their records (for tests and probes).
 */
export function createUnitRecords() {
  const roots = new Map<string, RootRecords>();
  const walks = new WeakMap<readonly string[], number>();
  let lastWalk = 0;
  const counts = { ran: 0, replayed: 0 };
  return {
    counts,
    of(root: string): RootRecords {
      const kept = roots.get(root) ?? { byKey: new Map(), weight: 0 };
      roots.delete(root);
      roots.set(root, kept);
      if (roots.size > MAX_ROOTS) roots.delete(roots.keys().next().value!);
      return kept;
    },
    walkOf(files: readonly string[]): number {
      let id = walks.get(files);
      if (id === undefined) walks.set(files, (id = ++lastWalk));
      return id;
    },
    /**
     * Drops the records of every root but `root`: a scan process whose heap fills up keeps only what the scan
     * it is starting may use (beside the snapshots it drops, snapshot-cache.ts).
     */
    drop(root: string): void {
      for (const key of [...roots.keys()]) if (key !== root) roots.delete(key);
    },
  };
}

export type UnitRecords = ReturnType<typeof createUnitRecords>;

/** What a record holds: its tree answers (each read is one), and with `counted` the files its calls count. */
function weightOf(record: Pick<UnitRecord, 'tree' | 'calls'>, counted = true): number {
  const answers = record.tree.has.size + record.tree.names.size;
  return counted ? record.calls.reduce((sum, call) => sum + call.files.length, answers) : answers;
}

/**
 * `run(view)`, or its recorded value when the unit ran with these inputs before: over this very walk, or
 * (with `members`) over another that answers what it asked of the tree the same. `key` must name all the
 * unit is given besides the tree and its reads (package, invocation, manifest). The view records what the
 * unit reads (`read`, `readOnce`, `readJson`, `readPackage`), asks of the tree, and the notes it gives; a
 * value must not be changed by the caller (a replay returns the same object).
 *
 * @example
 * const key = `jest\0${pkg.dir}\0${JSON.stringify(inv)}`;
 * const files = await memoUnit(ctx, key, (view) => jest.discover(view, pkg, inv)); // rules: ctx.unit(...)
 */
export async function memoUnit<T>(ctx: ScanContext, key: string, run: (view: ScanContext) => Promise<T>,
  { recount, members }: UnitOptions<T> = {}, records?: UnitRecords, replay = true): Promise<T> {
  // Only an engine that keeps walks between scans (a scan process's) can ever replay: others record nothing.
  if (!ctx.vouch || !ctx.stampsOf || !records) return run(ctx);
  const counts = records.counts;
  const id = idOf(key);
  const walk = records.walkOf(ctx.files);
  // A scan from no snapshot (`replay` false: a first scan, `?full=1`) answers no unit from a record (the
  // context's `vouch` refuses them all): the record is not looked at, so its tree is not checked in vain (the
  // digests of what the unit asked of this walk: a first scan in a process that scanned the root before).
  const known = replay ? records.of(ctx.root).byKey.get(id) : undefined;
  // The tree first (on another walk), then the walked reads (no side effect but keeping their stamps), then
  // the package files, asked for again.
  const holds = known !== undefined && (known.walk === walk || treeHolds(ctx, known.tree, members));
  const check = holds && ctx.vouch(known.reads, known.stamps) ? await askAgain(ctx, known.packages) : undefined;
  if (known && check?.same) {
    counts.replayed++;
    known.walk = walk;
    for (const note of known.notes) ctx.note(note);
    for (const info of known.runs) ctx.follow({ ...info, notes: [...info.notes] });
    if (known.calls.length === 0) return known.value as T;
    const rows = new Map<string, FoundTest>();
    const given = new Set<string>();
    for (const { files, framework, count, options } of known.calls) {
      for (const file of files) given.add(file);
      for (const row of await withCases(ctx, files, framework, count, options)) rows.set(row.file, row);
    }
    return recount!(known.value as T, rows, given);
  }
  counts.ran++;
  const reads = new Set<string>();
  const notes: string[] = [];
  const packages: Array<Promise<readonly [string, string]>> = [];
  const runs: RunInfo[] = [];
  const calls: CountCall[] = [];
  const view: ScanContext = Object.create(ctx);
  const tree: TreeUse = { has: new Map(), names: new Map(), whole: members === undefined };
  treeRecording(view, ctx, tree);
  const record = (file: string): void => { reads.add(file); };
  Object.assign(view, {
    read: (file: string) => (record(file), ctx.read(file)),
    readOnce: (file: string) => (record(file), ctx.readOnce(file)),
    readJson: (file: string) => (record(file), ctx.readJson(file)),
    note: (message: string) => { notes.push(message); ctx.note(message); },
    follow: (info: RunInfo) => { runs.push(info); ctx.follow(info); },
    // A shared value answered the rule without a read: the unit depends on what it was built from.
    dependOn: (files: readonly string[]) => { for (const file of files) record(file); },
    // A call over no files has no effect to redo (rules call it with what they found, often nothing).
    counting: { ...ctx.counting, calls: (call: CountCall) => { if (call.files.length > 0) calls.push(call); } },
  });
  // A method, as the context's: notes of the package reader go to the view it is called on. A file the
  // check above already asked for comes from the reader's cache without its notes: they are given here,
  // where the rule asks for it, as a first read would have given them.
  const held = check?.notes ?? new Map<string, string[]>();
  view.readPackage = function readPackage(this: ScanContext, file: string) {
    for (const message of held.get(file) ?? []) this.note(message);
    held.delete(file);
    const found = ctx.readPackage.call(this, file);
    packages.push(found.then((result) => [file, digestOf(result)] as const));
    return found;
  };
  // Readers over a budget note through the running scan's channel, not `ctx.note`: recorded too.
  const channel = readerNotes.getStore();
  const value = await readerNotes.run((message) => { notes.push(message); channel?.(message); }, () => run(view));
  // Asked for by the check but no longer by the rule: its notes are not lost (the read was made).
  for (const messages of held.values()) for (const message of messages) view.note(message);
  const walked: string[] = [];
  for (const file of reads) {
    const found = ctx.has(file);
    tree.has.set(file, found);
    if (found) walked.push(file);
  }
  // A unit that used the whole tree is answered on the walk it ran on only (unit-tree.ts): what it asked of
  // the tree is never checked, so it is not kept (nor weighed: pytest asks `has` of every directory it enters).
  if (tree.whole) { tree.has.clear(); tree.names.clear(); }
  const asked = await Promise.all(packages);
  // Looked up again: units running at once (the non-JS rules) each record into the same map.
  const kept = records.of(ctx.root);
  // The record this run replaces (its inputs moved, or it would have been replayed) is dropped either way.
  const had = kept.byKey.get(id);
  if (had) { kept.byKey.delete(id); kept.weight -= weightOf(had); }
  const redoable = calls.length === 0 || (recount !== undefined && countsRedoable(calls));
  const weight = weightOf({ tree, calls });
  const room = weightOf({ tree, calls }, false) <= MAX_UNIT_WEIGHT && kept.byKey.size < MAX_RECORDS
    && kept.weight + weight <= MAX_ROOT_WEIGHT;
  if (redoable && room) {
    kept.weight += weight;
    // The runs as they ended (a rule may add to a run's notes after following it), copied.
    kept.byKey.set(id, {
      walk, tree, reads: walked, stamps: ctx.stampsOf(walked), packages: asked, notes,
      runs: runs.map((info) => ({ ...info, notes: [...info.notes] })), calls, value,
    });
  }
  return value;
}

/** Whether rows can be made again from counts: every call says which rows it keeps, no file counted twice. */
function countsRedoable(calls: readonly CountCall[]): boolean {
  const seen = new Set<string>();
  for (const call of calls) {
    if (!call.options.rowPerFile && call.options.keep === undefined) return false;
    for (const file of call.files) if (seen.has(file)) return false; else seen.add(file);
  }
  return true;
}

/**
 * The package files a unit read, asked for again in the same order (so the scan's package budget is spent,
 * and the reader's cache filled, as a run of the unit does): `same` when each comes back as it did. The
 * reader's notes are held by file, not given: a replay gives the unit's recorded notes in their order, and a
 * run that follows gives each where the rule asks for that file (see `memoUnit`).
 */
async function askAgain(ctx: ScanContext, packages: UnitRecord['packages']) {
  const notes = new Map<string, string[]>();
  let same = true;
  for (const [file, was] of packages) {
    const heard: string[] = [];
    const listening: ScanContext = Object.create(ctx);
    listening.note = (message) => { heard.push(message); };
    same = digestOf(await ctx.readPackage.call(listening, file)) === was;
    if (heard.length > 0) notes.set(file, heard);
    // The unit runs: the files after this one it asks for itself, if it still does.
    if (!same) break;
  }
  return { same, notes };
}

/** Keys up to this long are kept as they are (`MAX_RECORDS` of them per root: ~0.5 MB at most). */
const MAX_KEPT_KEY = 128;

/**
 * The name a record is kept under: a short key itself, a long one digested (a key may hold a package.json,
 * which a hostile tree may make a megabyte long). Perf: most keys are short (a port finder, one package.json's
 * scripts: ~500 units on the 100k-file tree), and a digest costs more than the lookup. A key kept as it is
 * starts with `=`, which no digest does (base64 pads with it at the end only).
 */
function idOf(key: string): string {
  return key.length <= MAX_KEPT_KEY ? `=${key}` : digestOf(key);
}

/** A short digest of a key or of a package file as read (its real path and text; absent: empty). */
function digestOf(what: string | PackageFile | undefined): string {
  const text = what === undefined ? '' : typeof what === 'string' ? what : `${what.path}\0${what.text}`;
  // One call: half the cost of a hash object (every long key, every package file a replay asks for).
  return hash('sha256', text, 'base64');
}
