import { realpathSync } from 'node:fs';
import { parseJsonc } from '../readers/jsonc.ts';
import { directoryRuns, membership } from './membership.ts';
import { lstatOrUndefined } from './incremental/stamper.ts';
import { packageReader } from './package-files.ts';
import { CROSSED, NOT_OPENED, readChecked } from './read-whole.ts';
import { AHEAD_BATCH, counterName, createReadAhead, LEFT, READ, type ReadAhead } from './read-ahead.ts';
import type { Helper } from './walk/helper.ts';
import { pushStamp, sameStamp, STAMP, type Memo, type StampClock, type TreeRecord } from './incremental/snapshot.ts';
import type { RunInfo, ScanContext, Tree } from '../rules/types.ts';
import type { Counter } from '../rules/with-cases.ts';
import { memoUnit, type UnitRecords } from './incremental/unit-memo.ts';

export interface ContextOptions {
  /** Largest file `read` returns, in bytes; larger files read as `undefined`. @default 1_048_576 */
  readonly maxFileBytes?: number;
  /**
   * Longest stretch, in milliseconds, that queued reads run synchronously before yielding to the
   * event loop (so /health and other requests are answered in between). @default 4
   */
  readonly sliceMs?: number;
  /**
   * Called with each file's name just before the rule that asked for it gets its text (`once` for
   * `readOnce`), so a scan stuck parsing a file can say which. @default none
   */
  readonly onRead?: (file: string, once: boolean) => void;
  /** How the stamps of files read are taken (kept for the next scan). @default now, 2 s racy window */
  readonly clock?: StampClock;
  /**
   * Case counts of the previous scan, with the stamps its files had then: a count is reused while the
   * file's stamp has not moved (see `withCases`).
   */
  readonly previous?: {
    readonly memo: Memo; readonly stamps: ReadonlyMap<string, number>; readonly stampData: ArrayLike<number>;
    /** This scan's tree lists exactly the files the previous scan's did (a kept walk, or one found the same). */
    readonly sameTree?: boolean;
  };
  /** Stamps already taken this scan (path -> stamp), so a file is not stat'ed twice. */
  readonly fresh?: ReadonlyMap<string, readonly number[]>;
  /**
   * Whether to collect what the next snapshot needs (stamps of files read, case counts). Off for a tree no
   * snapshot is kept of, so a big first scan pays nothing for it. @default true
   */
  readonly keep?: boolean;
  /** Most files `readPackage` reads under node_modules per scan (see package-files.ts). @default 64 */
  readonly maxPackageFiles?: number;
  /**
   * Values rules keep per walked tree (`ctx.perWalk`), by the tree's `files` array: an engine that keeps
   * walks between scans passes its own, so a rescan over the same walk finds them. @default this scan's only
   */
  readonly walkMemos?: WeakMap<readonly string[], Map<string, unknown>>;
  /** The engine's rule-unit records (kept between scans); none: every unit runs. */
  readonly units?: UnitRecords | undefined;
  /**
   * The engine's helper thread: a scan from no snapshot reads the test files it counts there, ahead of
   * the counting (`readAhead`, read-ahead.ts). @default none: every file is read on this thread
   */
  readonly helper?: Helper | undefined;
}

/** Fewer files than this are read on this thread: a batch sent away costs more than it saves. */
const READ_AHEAD_MIN = 64;

/** What a context collects for the next snapshot besides notes and runs. */
export interface ContextRecord {
  /** Every file a rule read or whose count was reused, with its stamp at that time. */
  readonly reads: Map<string, readonly number[]>;
  /** Case counts of this scan. */
  readonly memo: Memo;
}

const NOTE_CHARS = 400;
/** `under` asks answered by a pass over the files before one sorted copy of them all is made. */
const UNDER_FILTERED = 8;
const MAX_NOTES = 200;

/** The engine's memo of one walk (kept in `walkMemos` when given), made on first use. */
export function walkMemoOf(
  walkMemos: WeakMap<readonly string[], Map<string, unknown>> | undefined, files: readonly string[],
): Map<string, unknown> {
  let memo = walkMemos?.get(files);
  if (!memo) { memo = new Map(); walkMemos?.set(files, memo); }
  return memo;
}

/**
 * Wraps a walked tree into the read-only view discovery rules get. `read` only opens files the walk
 * recorded as regular files, so no rule can read outside the project or through a symlink.
 */
export function createContext(root: string, tree: Tree & { readonly record?: TreeRecord }, {
  maxFileBytes = 1_048_576, sliceMs = 4, onRead, clock = { since: Date.now(), racyMs: 2000, granularityMs: 0 },
  previous, fresh, keep = true, maxPackageFiles = 64, walkMemos, units, helper,
}: ContextOptions = {}): ScanContext & { notes: string[]; runs: RunInfo[]; record: ContextRecord; kept: string[] } {
  const walkMemo = walkMemoOf(walkMemos, tree.files);
  // The walk's directory index, not a Set of every path (see membership.ts).
  const has = membership(tree, walkMemo);
  const record: ContextRecord = { reads: new Map(), memo: new Map() };
  const stampOf = (file: string, stat: Parameters<typeof pushStamp>[1]): number[] => {
    const stamp: number[] = [];
    pushStamp(stamp, stat, clock);
    if (keep) record.reads.set(file, stamp);
    return stamp;
  };
  const lstamp = (file: string): readonly number[] => {
    const known = fresh?.get(file);
    if (known) { record.reads.set(file, known); return known; }
    return stampOf(file, lstatOrUndefined(base + file));
  };
  const texts = new Map<string, Promise<string | undefined>>();
  const notes: string[] = [];
  const crossed = (file: string): void => {
    context.note(`${file} was not read: a folder on its path became a link (to outside the project?) during the scan`);
  };
  const noted = new Set<string>();
  const runs: RunInfo[] = [];
  const base = root.endsWith('/') ? root : root + '/';
  // The root as the kernel names it (the library may be given a path through a link, or /tmp on macOS).
  const realBase = (() => {
    try { const real = realpathSync(root); return real.endsWith('/') ? real : real + '/'; } catch { return base; }
  })();

  const stampRead = keep
    ? (file: string, info: Parameters<typeof pushStamp>[1]): void => { stampOf(file, info); }
    : undefined;
  const readNow = (file: string): string | undefined => {
    const got = readChecked(base, realBase, file, maxFileBytes, stampRead);
    if (got === CROSSED) crossed(file);
    else if (got === NOT_OPENED) { if (keep) lstamp(file); }
    else return got;
    return undefined;
  };
  // Perf: reads are served synchronously in time slices. A small file costs a few microseconds of
  // syscalls, while each fs.promises call (open, stat, read, close: four per file) pays a thread-pool
  // round trip and a promise; the 100k-file benchmark reads ~10k files. Slices keep the loop responsive.
  const queue: Array<{ file: string; resolve: (text: string | undefined) => void }> = [];
  let head = 0;
  let scheduled = false;
  const drain = (): void => {
    scheduled = false;
    const until = performance.now() + sliceMs;
    while (head < queue.length) {
      const job = queue[head]!;
      queue[head++] = undefined!;
      onRead?.(job.file, false); // A read that hangs (a stuck network mount) is named too.
      job.resolve(readNow(job.file));
      if (performance.now() > until) break;
    }
    if (head < queue.length) schedule();
    else queue.length = head = 0;
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(drain);
  };

  // The callback runs in the promise the rule awaits, so it fires right before that rule resumes.
  const told = <V>(file: string, once: boolean, text: Promise<V>): Promise<V> =>
    onRead ? text.then((t) => (onRead(file, once), t)) : text;

  // A name the walk spelled from bytes that are not UTF-8 (walk.ts distinctNames: any name holding U+FFFD) is
  // not the file's name: opened by it, another file could be read. Such files are listed, never read.
  const readable = (file: string): boolean => has(file) && !file.includes('\uFFFD');
  const read = (file: string): Promise<string | undefined> => {
    if (!readable(file)) return Promise.resolve(undefined);
    let text = texts.get(file);
    if (!text) {
      texts.set(file, (text = new Promise((resolve) => queue.push({ file, resolve }))));
      schedule();
    }
    return told(file, false, text);
  };

  /** Read on this thread, in the queue of reads served in slices. */
  const readHere = (file: string): Promise<string | undefined> =>
    new Promise((resolve) => { queue.push({ file, resolve }); schedule(); });
  /** What the helper read ahead, taken as a read on this thread: its stamp kept, a crossed folder noted. */
  const settled = <V>(file: string, code: number, value: V, stamps: Float64Array, at: number,
    here: () => Promise<V>): V | Promise<V> => {
    if (code === LEFT) return here();
    if (code === CROSSED) crossed(file);
    else if (code === NOT_OPENED) { if (keep) lstamp(file); }
    else if (code === READ && keep) {
      const i = at * STAMP;
      record.reads.set(file, [stamps[i]!, stamps[i + 1]!, stamps[i + 2]!, stamps[i + 3]!]);
    }
    return value;
  };

  // A first scan's counted test files, read on the helper thread while this one counts (read-ahead.ts).
  let ahead: ReadAhead<string> | undefined;
  const readAhead = (files: readonly string[]): void => {
    // A rescan reuses most counts: what it reads is too little to send away.
    if (!helper || previous || files.length < READ_AHEAD_MIN) return;
    // Files counted ahead first: a rule that gave them all (JS) asks for them all again.
    const list = files.filter((file) => !countingAhead(file) && !ahead?.has(file) && !texts.has(file)
      && readable(file));
    if (list.length < READ_AHEAD_MIN) return;
    ahead ??= createReadAhead<string>({
      helper,
      request: { base, realBase, maxFileBytes, clock },
      settle: (file, code, text, stamps, at) => settled(file, code, text, stamps, at, () => readHere(file)),
      ...(onRead ? { waiting: (file: string) => onRead(file, false) } : {}),
    });
    ahead.start(list);
  };

  // A first scan's test files counted on the helper thread as soon as a rule knows it will count them
  // (`countAhead`), while the rules go on: per counter, the files given and not sent yet (sent a batch at a
  // time: a message per package costs more than it saves) and those sent; `aheadOf`, each file given (until
  // taken) with its lane.
  interface Lane { readonly sent: ReadAhead<number>; pending: string[]; started: boolean }
  const lanes = new Map<Counter, Lane>();
  const aheadOf = new Map<string, Lane>();
  const countingAhead = (file: string): boolean => aheadOf.has(file);
  /** Sends the lane's whole batches (`all`: every file it holds). */
  const send = (lane: Lane, all: boolean): void => {
    const sending = all ? lane.pending.length : lane.pending.length - (lane.pending.length % AHEAD_BATCH);
    lane.started = true;
    lane.sent.start(lane.pending.slice(0, sending));
    lane.pending = lane.pending.slice(sending);
  };
  const countAhead = (files: readonly string[], count: Counter): void => {
    // A rescan reuses most counts, as for `readAhead`.
    const counter = helper && !previous ? counterName(count) : undefined;
    if (counter === undefined) return;
    let lane = lanes.get(count);
    if (!lane) {
      const countHere = (file: string): Promise<number | undefined> =>
        readHere(file).then((text) => (text === undefined ? undefined : count(text, file)));
      const sent = createReadAhead<number>({
        helper: helper!,
        request: { base, realBase, maxFileBytes, clock },
        counter,
        // NaN: the counter gave no count.
        settle: (file, code, cases, stamps, at) =>
          settled(file, code, Number.isNaN(cases) ? undefined : cases, stamps, at, () => countHere(file)),
        ...(onRead ? { waiting: (file: string) => onRead(file, false) } : {}),
      });
      lanes.set(count, (lane = { sent, pending: [], started: false }));
    }
    for (const file of files) {
      if (aheadOf.has(file) || !readable(file) || texts.has(file) || ahead?.has(file)) continue;
      lane.pending.push(file);
      aheadOf.set(file, lane);
    }
    if (lane.pending.length >= AHEAD_BATCH) send(lane, false);
  };
  const countedAhead = (file: string, count: Counter): Promise<number | undefined> | undefined => {
    const lane = aheadOf.get(file);
    if (lane === undefined || lanes.get(count) !== lane) return undefined;
    aheadOf.delete(file);
    if (lane.pending.length > 0 && !lane.sent.has(file)) {
      // The rest is sent now; unless, all told, fewer files were given than a message is worth: those are
      // counted here, as without a helper.
      if (lane.started || lane.pending.length >= READ_AHEAD_MIN) send(lane, true);
      else { for (const held of lane.pending) aheadOf.delete(held); lane.pending = []; }
    }
    return lane.sent.has(file) ? told(file, true, lane.sent.take(file)) : undefined;
  };

  const readOnce = (file: string): Promise<string | undefined> => {
    if (!readable(file)) return Promise.resolve(undefined);
    const cached = texts.get(file);
    if (cached) return told(file, true, cached);
    if (ahead?.has(file)) return told(file, true, ahead.take(file));
    return told(file, true, readHere(file));
  };

  // The compact views, built on first use and shared by every rule.
  let names = tree.nameIndex;
  const nameIndex = (): ReadonlyMap<string, readonly string[]> => {
    if (names) return names;
    const built = new Map<string, string[]>();
    for (const file of tree.files) {
      const name = file.slice(file.lastIndexOf('/') + 1);
      const list = built.get(name);
      if (list) list.push(file); else built.set(name, [file]);
    }
    return (names = built);
  };
  let sorted: string[] | undefined;
  let filtered = 0;
  const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  const under = (dir: string): readonly string[] => {
    const prefix = dir + '/';
    // Perf: the first few asks filter the files and sort only their share (a pass over 100k paths is ~1 ms;
    // sorting them all is ~35 ms, paid by every first scan for `.github/workflows` alone). Many asks share
    // one sorted copy.
    if (!sorted && dir !== '' && filtered++ < UNDER_FILTERED) {
      return tree.files.filter((f) => f.startsWith(prefix)).sort(byCodeUnit);
    }
    sorted ??= [...tree.files].sort(byCodeUnit);
    if (dir === '') return sorted;
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (sorted[mid]! < prefix) lo = mid + 1; else hi = mid; }
    let end = lo;
    while (end < sorted.length && sorted[end]!.startsWith(prefix)) end++;
    return sorted.slice(lo, end);
  };

  // Files under node_modules (presets, shared configs), which the walk does not list: stamped like reads.
  let readPackageFile: ReturnType<typeof packageReader> | undefined;
  // A method: called on a view of the context (`Object.create(ctx)` with its own `note`), notes go to that view.
  function readPackage(this: ScanContext | undefined, file: string): Promise<{ text: string; path: string } | undefined> {
    readPackageFile ??= packageReader({
      base, maxFileBytes, maxFiles: maxPackageFiles, onRead, stamp: (rel, stat) => { if (keep) stampOf(rel, stat); },
    });
    const note = this?.note ? (m: string) => this.note(m) : (m: string) => context.note(m);
    return Promise.resolve(readPackageFile(file, note));
  }

  // Rule units answered from a record (scan/unit-memo.ts): their reads count as this scan's when every
  // stamp is as it was. Stamps taken this scan first (a read, the quick check), else one taken now.
  const stampNow = (file: string): readonly number[] => {
    const known = record.reads.get(file) ?? fresh?.get(file);
    if (known) return known;
    const stamp: number[] = [];
    pushStamp(stamp, lstatOrUndefined(base + file), clock);
    return stamp;
  };
  const vouch = (files: readonly string[], stamps: ArrayLike<number>): boolean => {
    // A scan from no snapshot (a first scan, `?full=1`) reads everything again, as asked: no unit is answered
    // from a record (a record a process kept for the same root, say of a project removed and added again).
    // Units still record, for the next rescan.
    if (!previous) return false;
    const now = files.map(stampNow);
    for (let i = 0; i < now.length; i++) if (!sameStamp(now[i]!, 0, stamps, i)) return false;
    for (let i = 0; i < now.length; i++) record.reads.set(files[i]!, now[i]!);
    return true;
  };
  const stampsOf = (files: readonly string[]): Float64Array => {
    const out = new Float64Array(files.length * STAMP);
    for (let i = 0; i < files.length; i++) out.set(record.reads.get(files[i]!) ?? lstamp(files[i]!), i * STAMP);
    return out;
  };

  const shared = new Map<string, unknown>();
  const slot = <T>(memo: Map<string, unknown>, key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };

  // Directories whose stored rows the rules asked to keep (`keepUnder`).
  const kept: string[] = [];
  const context: ScanContext & { notes: string[]; runs: RunInfo[]; record: ContextRecord; kept: string[] } = {
    root: root.endsWith('/') && root.length > 1 ? root.slice(0, -1) : root,
    byName: (basename) => nameIndex().get(basename) ?? [],
    names: nameIndex,
    under,
    dirRuns: () => directoryRuns(tree),
    files: tree.files,
    dirs: tree.dirs,
    truncated: tree.truncated,
    notes,
    runs,
    record,
    memo: !keep && !previous ? undefined : {
      get(file, key) {
        const was = previous?.memo.get(file)?.get(key);
        const at = previous?.stamps.get(file);
        if (was === undefined || at === undefined) return undefined;
        // Perf: over the previous scan's very tree (`sameTree`) a file it counted is still listed, and one
        // it did not list was kept with no count (NaN), which reads as "not counted" either way: `has` (a
        // slice and a lookup per counted file, ~9k per 100k rescan) is asked only over another tree.
        if (!previous!.sameTree && !has(file)) return undefined;
        if (!sameStamp(lstamp(file), 0, previous!.stampData, at)) return undefined;
        return was;
      },
      set(file, key, cases) {
        let byKey = record.memo.get(file);
        const was = previous?.memo.get(file);
        if (!byKey) {
          // Perf: a count given back as the last scan kept it takes that scan's map as it is (a rescan sets
          // every test file's count, nearly all unchanged: ~9k maps fewer per 100k rescan). Never changed
          // in place: a second count of the file copies it first.
          if (was !== undefined && was.size === 1 && Object.is(was.get(key), cases)) {
            record.memo.set(file, was);
            return;
          }
          record.memo.set(file, (byKey = new Map()));
        } else if (byKey === was) {
          record.memo.set(file, (byKey = new Map(was)));
        }
        byKey.set(key, cases);
      },
    },
    has,
    read,
    readOnce,
    readAhead,
    countAhead,
    countedAhead,
    readJson: async (file) => {
      const text = await read(file);
      return text === undefined ? undefined : parseJsonc(text);
    },
    note: (message) => {
      // Bounded: a note may quote hostile text, and a hostile tree may cause thousands of them.
      const text = message.length > NOTE_CHARS ? `${message.slice(0, NOTE_CHARS)}…` : message;
      if (noted.has(text) || noted.size > MAX_NOTES) return;
      noted.add(text);
      notes.push(noted.size > MAX_NOTES ? `more than ${MAX_NOTES} notes; the rest were left out` : text);
    },
    follow: (run) => { runs.push(run); },
    keepUnder: (dir) => { if (!kept.includes(dir)) kept.push(dir); },
    kept,
    readPackage,
    // Methods: called on a view, the unit runs on (and records what is asked of) that view. Outside a unit,
    // nothing records what a rule depends on; a unit's view puts its own recorders in their place.
    unit(key, run, options) { return memoUnit(this, key, run, options, units, previous !== undefined); },
    dependOn: () => {},
    usedMembers: () => {},
    shared: (key, make) => slot(shared, key, make),
    perWalk: (key, make) => slot(walkMemo, key, make),
    ...(keep ? { vouch, stampsOf } : {}),
  };
  return context;
}
