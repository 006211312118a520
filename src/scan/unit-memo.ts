/**
 * Rule units that run again only when their inputs moved. A unit (one runner rule over one package, say)
 * is a pure function of the walked tree, a key naming everything else it was given, and the files it read.
 * A rescan that keeps the last walk (scan/index.ts: every directory as it was) passes the very same
 * `files` array, so a unit recorded over that array may be answered from its record while each file it read
 * still has the stamp it had when read: its value is returned and its notes are given again, in order.
 *
 * Files under node_modules (`readPackage`: presets, shared configs) are not walked, and the package reader
 * spends a budget shared by the whole scan: a replay asks for them again, in the same order (spending the
 * same budget), and is taken only when each comes back as it did. Shared per-scan caches a unit may hit
 * without reading (packages-workspace.ts's package names) tell the unit what they stand for with
 * {@link dependOn}.
 */
import { createHash } from 'node:crypto';
import { readerNotes } from '../readers/budget.ts';
import type { PackageFile } from './package-files.ts';
import { keepsSnapshots } from './snapshot-cache.ts';
import type { FoundTest, RunInfo, ScanContext } from './types.ts';
import { COUNT_CALLS, withCases, type CountCall } from './with-cases.ts';

interface UnitRecord {
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

/** Options of {@link memoUnit}. */
export interface UnitOptions<T> {
  /**
   * The value with the rows `withCases` gives now (by file) for the calls the unit made put in place of
   * its old ones. A unit that counts cases is recorded only with it, and only when each of its calls
   * declared `rowPerFile` (rows that do not depend on counts) and counted each file once.
   */
  readonly recount?: (value: T, rows: ReadonlyMap<string, FoundTest>) => T;
}

/**
 * Bounds on what is kept per walk, for a hostile tree of thousands of packages whose configs each resolve a
 * name through every package.json: records, walked reads one record may hold, and reads of all records
 * together (~40 bytes each). A unit past them runs every time (its answer is the same).
 */
const MAX_RECORDS = 4096;
const MAX_UNIT_READS = 256;
const MAX_WALK_READS = 65_536;

/** Per walked file list (one kept walk): records by unit key, and the walked reads they hold together. */
const records = new WeakMap<readonly string[], { byKey: Map<string, UnitRecord>; reads: number }>();

/** Units run and units answered from their records, since this process started (for tests and probes). */
const counts = { ran: 0, replayed: 0 };

/** How many rule units ran, and how many were answered from their records, in this process so far. */
export function unitCounts(): { readonly ran: number; readonly replayed: number } {
  return { ...counts };
}

const RECORDER = Symbol('unit reads');

type Recorder = (file: string) => void;

/**
 * `run(view)`, or its recorded value when the unit ran over this very walk with these inputs before. `key`
 * must name all the unit is given besides the tree and its reads (package, invocation, manifest). The
 * view records what the unit reads (`read`, `readOnce`, `readJson`, `readPackage`) and the notes it gives;
 * a value must not be changed by the caller (a replay returns the same object).
 *
 * @example
 * const key = `jest\0${pkg.dir}\0${JSON.stringify(inv)}`;
 * const files = await memoUnit(ctx, key, (view) => jest.discover(view, pkg, inv));
 */
export async function memoUnit<T>(ctx: ScanContext, key: string, run: (view: ScanContext) => Promise<T>,
  { recount }: UnitOptions<T> = {}): Promise<T> {
  // Only a process that keeps walks between scans (a scan process) can ever replay: others record nothing.
  if (!ctx.vouch || !ctx.stampsOf || !keepsSnapshots()) return run(ctx);
  // Digested: a key holds a package.json, which a hostile tree may make a megabyte long.
  const id = digestOf(key);
  const known = records.get(ctx.files)?.byKey.get(id);
  // Walked reads first (no side effect but keeping their stamps); then the package files, asked for again.
  const check = known && ctx.vouch(known.reads, known.stamps) ? await askAgain(ctx, known.packages) : undefined;
  if (known && check?.same) {
    counts.replayed++;
    for (const note of known.notes) ctx.note(note);
    for (const info of known.runs) ctx.follow({ ...info, notes: [...info.notes] });
    if (known.calls.length === 0) return known.value as T;
    const rows = new Map<string, FoundTest>();
    for (const { files, framework, count, options } of known.calls) {
      for (const row of await withCases(ctx, files, framework, count, options)) rows.set(row.file, row);
    }
    return recount!(known.value as T, rows);
  }
  counts.ran++;
  const reads = new Set<string>();
  const notes: string[] = [];
  const packages: Array<Promise<readonly [string, string]>> = [];
  const runs: RunInfo[] = [];
  const calls: CountCall[] = [];
  const view: ScanContext = Object.create(ctx);
  const record: Recorder = (file) => { reads.add(file); };
  Object.assign(view, {
    [RECORDER]: record,
    read: (file: string) => (record(file), ctx.read(file)),
    readOnce: (file: string) => (record(file), ctx.readOnce(file)),
    readJson: (file: string) => (record(file), ctx.readJson(file)),
    note: (message: string) => { notes.push(message); ctx.note(message); },
    follow: (info: RunInfo) => { runs.push(info); ctx.follow(info); },
    // A call over no files has no effect to redo (rules call it with what they found, often nothing).
    [COUNT_CALLS]: (call: CountCall) => { if (call.files.length > 0) calls.push(call); },
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
  const walked = [...reads].filter((file) => ctx.has(file));
  const asked = await Promise.all(packages);
  // Looked up again: units running at once (the non-JS rules) each record into the same map.
  let kept = records.get(ctx.files);
  if (!kept) records.set(ctx.files, (kept = { byKey: new Map(), reads: 0 }));
  // The record this run replaces (its inputs moved, or it would have been replayed) is dropped either way.
  const had = kept.byKey.get(id);
  if (had) { kept.byKey.delete(id); kept.reads -= had.reads.length; }
  const redoable = calls.length === 0 || (recount !== undefined && countsRedoable(calls));
  const room = walked.length <= MAX_UNIT_READS && kept.byKey.size < MAX_RECORDS
    && kept.reads + walked.length <= MAX_WALK_READS;
  if (redoable && room) {
    kept.reads += walked.length;
    // The runs as they ended (a rule may add to a run's notes after following it), copied.
    kept.byKey.set(id, {
      reads: walked, stamps: ctx.stampsOf(walked), packages: asked, notes,
      runs: runs.map((info) => ({ ...info, notes: [...info.notes] })), calls, value,
    });
  }
  return value;
}

/** Whether counts can be redone row for row: every call `rowPerFile`, no file counted twice. */
function countsRedoable(calls: readonly CountCall[]): boolean {
  const seen = new Set<string>();
  for (const call of calls) {
    if (!call.options.rowPerFile) return false;
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

/** A short digest of a key or of a package file as read (its real path and text; absent: empty). */
function digestOf(what: string | PackageFile | undefined): string {
  const text = what === undefined ? '' : typeof what === 'string' ? what : `${what.path}\0${what.text}`;
  return createHash('sha256').update(text).digest('base64');
}

/**
 * Tells the unit running on `ctx` (if any) that what it just got stands for reading `files`: a shared cache
 * built from them answered it without a read.
 */
export function dependOn(ctx: ScanContext, files: readonly string[]): void {
  const record = (ctx as ScanContext & { [RECORDER]?: Recorder })[RECORDER];
  if (record) for (const file of files) record(file);
}
