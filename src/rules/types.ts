/**
 * Types shared by the walker, the per-runner discovery rules and the port finders.
 * Every path here is relative to the project root, with POSIX separators and no leading `./`.
 */
import type { CountCall, Counter } from './with-cases.ts';

/** Test runners a discovered file can be attributed to (the contract's `framework` values). */
export type TestFramework =
  | 'jest' | 'vitest' | 'mocha' | 'node-test' | 'playwright' | 'cypress' | 'ava' | 'jasmine'
  | 'bun' | 'deno' | 'web-test-runner' | 'tap' | 'uvu' | 'borp' | 'tape' | 'karma'
  | 'pytest' | 'unittest' | 'go' | 'cargo' | 'rspec' | 'minitest' | 'phpunit' | 'junit' | 'exunit'
  | 'dotnet' | 'swift';

/** What the walk saw: every regular file and directory it entered, in walk order (not sorted). */
export interface Tree {
  /** Basename -> files, when the walk built it (else the context builds it from `files` on first use). */
  readonly nameIndex?: ReadonlyMap<string, readonly string[]>;
  /** Regular files (never symlinks, FIFOs, sockets or devices), relative POSIX paths. */
  readonly files: readonly string[];
  /** Directories entered, relative POSIX paths; the root itself is `''`. */
  readonly dirs: readonly string[];
  /** Why the walk stopped early (a cap was hit), or `null` when it saw everything. */
  readonly truncated: string | null;
}

/** Everything a discovery rule or port finder may look at. Rules never touch `fs` themselves. */
export interface ScanContext extends Tree {
  /** Absolute, real path of the project root, without a trailing slash. */
  readonly root: string;
  /** Membership test over `files`, O(1). */
  has(file: string): boolean;
  /**
   * The files named `basename` (e.g. every `package.json`), from one index shared by every rule: looking
   * names up here is cheaper than a pass over `files` per rule. Empty when there is none.
   */
  byName(basename: string): readonly string[];
  /** Every distinct basename with its files, for rules that match names by pattern (walk order within). */
  names(): ReadonlyMap<string, readonly string[]>;
  /** The files below directory `dir` (`''`: all), in code-unit order. */
  under(dir: string): readonly string[];
  /**
   * The walk's directory runs, when `files` is one run of each directory's files in the order of `dirs`
   * (a whole walk): run `i` holds `counts[i]` files of `dirs[i]`. A rule that groups files by directory
   * reads them without splitting paths. Absent for a tree built otherwise; using it uses the whole tree.
   */
  dirRuns?(): { readonly dirs: readonly string[]; readonly counts: ArrayLike<number> } | undefined;
  /**
   * Text of a regular file inside the project, or `undefined` when it is absent, not a regular
   * file, a symlink, larger than the read cap, or unreadable. Results are cached per scan.
   */
  read(file: string): Promise<string | undefined>;
  /**
   * Like `read`, but the text is not kept for the rest of the scan (a cached text is still used):
   * for files read once, such as test files whose cases are counted, so memory stays flat on big trees.
   */
  readOnce(file: string): Promise<string | undefined>;
  /**
   * Set by the engine, never called by a rule: `withCases` names the files it is about to `readOnce`, so a
   * first scan can read them ahead on another thread. Optional: without it every file is read when asked.
   */
  readonly readAhead?: (files: readonly string[]) => void;
  /**
   * Starts counting `files` with `count` on another thread where the engine can (a first scan, a counter it
   * knows): a rule that knows which files it will count well before it counts them (JS: each package's run
   * claims its files, all are counted at the end) gives them here, and a later `withCases` with the same
   * `count` takes their counts without reading them. Optional, no effect on what is found.
   */
  readonly countAhead?: (files: readonly string[], count: Counter) => void;
  /**
   * Set by the engine, used by `withCases`: the count of `file` started by `countAhead` with `count` (taken
   * once, the read stamped as `readOnce` stamps it), or undefined when none was started.
   */
  readonly countedAhead?: (file: string, count: Counter) => Promise<number | undefined> | undefined;
  /**
   * Text of a file under a `node_modules` directory of the project (`file` relative to the root, with a
   * `node_modules` segment), which the walk does not list: presets and shared configs. `path` is where it
   * really lies (a pnpm link followed). Undefined when absent, not a regular file, over the size cap, over
   * the scan's budget of package files, or really outside the project (noted). Stamped like `read`.
   */
  readPackage(file: string): Promise<{ readonly text: string; readonly path: string } | undefined>;
  /** Parsed JSON (comments and trailing commas tolerated) of a file, or `undefined` if unreadable/invalid. */
  readJson(file: string): Promise<unknown>;
  /** Records a human-readable remark on the scan result, e.g. why a computed config value was ignored. */
  note(message: string): void;
  /**
   * Records a directory (relative; `''` the root) whose files could not be followed as they should (its
   * package.json cannot be read): the tests and ports stored under it are kept, as under a directory the
   * walk could not list. Absent on contexts that keep nothing.
   */
  keepUnder?(dir: string): void;
  /** Records what a discovery family followed for one package: its command, runner, config, assumptions. */
  follow(run: RunInfo): void;
  /** Case counts carried over from the previous scan of the project; used by `withCases` only. */
  readonly memo?: CaseMemo;
  /**
   * For rule units answered from a record (unit-memo.ts): whether each of `files` still has its stamp in
   * `stamps` (four numbers each, as taken when it was read); if so they count as read by this scan (kept
   * for the next one). Absent where the scan keeps no snapshot.
   */
  readonly vouch?: (files: readonly string[], stamps: ArrayLike<number>) => boolean;
  /** The stamps this scan took of `files` (read or checked), four numbers each; with `vouch`. */
  readonly stampsOf?: (files: readonly string[]) => Float64Array;
  /**
   * `run(view)` as a unit of work the engine may answer from its record on a rescan, while everything the
   * unit read and asked of the tree is as it was (scan/incremental/unit-memo.ts). `key` names all the unit
   * is given besides the tree and its reads. Where nothing is kept between scans it simply runs.
   */
  unit<T>(key: string, run: (view: ScanContext) => Promise<T>, options?: UnitOptions<T>): Promise<T>;
  /**
   * Tells the unit running on this context (if any) that what the rule just got stands for reading
   * `files`: a value shared across rules (see `shared`) answered it without a read.
   */
  dependOn(files: readonly string[]): void;
  /** Tells the unit running on this context (if any) that it used its package's files or directories. */
  usedMembers(kind: 'files' | 'dirs', list: Iterable<string>): void;
  /**
   * The value in `slot` for this scan, made by `make` on first use and shared by every rule and view of the
   * scan (an index of package names, the entry files the port finders saw).
   */
  shared<T>(slot: string, make: () => T): T;
  /**
   * The value in `slot` for this walked tree, made on first use: kept while the engine keeps the walk (a
   * rescan that lists no directory again passes the same tree, and gets the same value back).
   */
  perWalk<T>(slot: string, make: () => T): T;
  /** Told of each config file a rule reads through this view (a run names the config it followed). */
  readonly configRead?: (file: string) => void;
  /** Set by the engine, never by a rule: how `withCases` counts (see {@link CountingHooks}). */
  readonly counting?: CountingHooks;
}

/**
 * How `withCases` reads a test file to count it (so the read is not taken for a rule's own input), where
 * counting functions are collected per counter key (null: some call with that key did not declare
 * `rowPerFile`, so its rows cannot be patched), and who is told of each call (a rule unit that may redo it).
 */
export interface CountingHooks {
  readonly read?: (file: string) => Promise<string | undefined>;
  readonly counters?: Map<string, Counter | null>;
  readonly calls?: (call: CountCall) => void;
}

/** A unit's package as it is on this walk: its files and directories (package-relative). */
export interface UnitMembers {
  files(): readonly string[];
  dirs(): Iterable<string>;
}

/** Options of `ScanContext.unit`. */
export interface UnitOptions<T> {
  /**
   * The value with the rows `withCases` gives now (by file) for the calls the unit made put in place of
   * its old ones: `given` names every file those calls were given, so a file given whose row is not among
   * `rows` keeps none (a call that declared `keep`), and a row of `rows` the value lacks is new. A unit that
   * counts cases is recorded only with it, and only when each of its calls declared which rows it keeps
   * (`rowPerFile` or `keep`: rows that follow from counts alone) and counted each file once.
   */
  readonly recount?: (value: T, rows: ReadonlyMap<string, FoundTest>, given: ReadonlySet<string>) => T;
  /**
   * The caller's word that the unit sees the tree only through its view and these (its package's files and
   * directories, as they are on this walk): then its record may answer on another walk too.
   */
  readonly members?: UnitMembers;
}

/**
 * Case counts by file and counter key, carried between scans. `get` answers only while the file's stat
 * stamp is the one it had when counted; NaN stands for "counted, no number".
 */
export interface CaseMemo {
  get(file: string, key: string): number | undefined;
  set(file: string, key: string, cases: number): void;
}

/** What the scan followed to find one package's tests (shown in the scan answer's `runs`). */
export interface RunInfo {
  /** Package directory relative to the project root; `''` for the root. */
  readonly package: string;
  /** The test command followed (e.g. the `test` script's text), or null when none was named. */
  readonly command: string | null;
  /** The runner it reaches (a `TestFramework` value), or null when projdex could not tell. */
  readonly runner: string | null;
  /** Config file read, relative to the project root, or null. */
  readonly config: string | null;
  /** Assumptions and unknowns, in words. */
  readonly notes: readonly string[];
}

/** One test file a runner would run. */
export interface FoundTest {
  readonly file: string;
  readonly framework: TestFramework;
  /** Static estimate of the test cases the file declares, when the rule can count them. */
  readonly cases?: number;
}

/** A discovery rule: finds the files one runner (or one family of runners) would run. */
export type Discover = (ctx: ScanContext) => Promise<readonly FoundTest[]>;

/** One port a project's files name. */
export interface FoundPort {
  readonly port: number;
  /** package.json script, compose service or Procfile process it belongs to, else null. */
  readonly script_name: string | null;
  /** File it was read from, relative to the project root (or `default:<tool>`). */
  readonly config_source: string;
}

/** A port finder: reads some family of config files and returns the ports they name. */
export type FindPorts = (ctx: ScanContext) => Promise<readonly FoundPort[]>;
