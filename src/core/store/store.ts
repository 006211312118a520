import { chmodSync, closeSync, openSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { loadSqlite } from './sqlite.ts';
import type { Project, ProjectPort, ProjectUpdate, Test } from '../types.ts';
import type { LastRun } from '../runs/types.ts';
import type { GitReading, GitState } from '../git.ts';
import { PROCESSES_MIGRATION, processVerbs } from './processes.ts';
import type { FoundPort, FoundTest, RunInfo } from '../../rules/types.ts';
import { RUNS_MIGRATION } from './runs.ts';
import { createStaging, STAGING_MIGRATION, type Staging } from './staging.ts';
import { createFinisher, portKindOf, TEST_ROW_JSON, TESTS_JSON, type ApplyRequest } from './finish.ts';
import { patchList } from './list-patch.ts';
import { createApplier } from './applier.ts';
import { createWriteGate } from './write-gate.ts';
import {
  arrayCursor, DELTA_ROWS, packedCount, packedCursor, packedOf, testCountOf, testsLeftOut, type PackedTests,
} from '../../scan/process/packed.ts';

/** Schema migrations, applied in order; `PRAGMA user_version` records how many have run. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE projects (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL,
     path TEXT NOT NULL UNIQUE,
     description TEXT,
     framework TEXT,
     tags TEXT NOT NULL DEFAULT '[]',
     last_scanned INTEGER,
     created_at INTEGER NOT NULL,
     scan_generation INTEGER NOT NULL DEFAULT 0
   );
   CREATE TABLE tests (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
     file_path TEXT NOT NULL,
     framework TEXT,
     status TEXT,
     last_run INTEGER,
     cases INTEGER,
     created_at INTEGER NOT NULL,
     scan_generation INTEGER NOT NULL,
     UNIQUE (project_id, file_path)
   );
   CREATE TABLE ports (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
     port INTEGER NOT NULL,
     script_name TEXT,
     config_source TEXT NOT NULL,
     last_detected INTEGER NOT NULL,
     created_at INTEGER NOT NULL
   );
   CREATE INDEX ports_by_project ON ports (project_id, port, script_name);
   CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // Ports: listen, connect or container (src/ports/kind.ts), and a generation so rows keep their id across rescans.
  `ALTER TABLE ports ADD COLUMN kind TEXT NOT NULL DEFAULT 'listen';
   ALTER TABLE ports ADD COLUMN scan_generation INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX ports_by_kind ON ports (kind, port);`,
  // Sliced saves sweep a big project's stale rows a slice at a time: find them by generation.
  'CREATE INDEX tests_by_generation ON tests (project_id, scan_generation);',
  // What the last scan of each project noticed (notes, runs, truncation), for the dashboard's project page.
  `CREATE TABLE scan_summaries (
     project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
     notes TEXT NOT NULL,
     runs TEXT NOT NULL,
     truncated TEXT,
     scanned_at INTEGER NOT NULL
   );`,
  // What the last scan saw (scan/incremental/snapshot.ts), so a rescan re-reads only what changed. `generation` is
  // the project's scan_generation it was saved with: a snapshot that does not match is ignored.
  `CREATE TABLE scan_snapshots (
     project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
     generation INTEGER NOT NULL,
     data BLOB NOT NULL
   );`,
  RUNS_MIGRATION,
  // Each project's git state as the last scan read it (core/git.ts): JSON, or NULL with the reason in git_note.
  'ALTER TABLE projects ADD COLUMN git TEXT; ALTER TABLE projects ADD COLUMN git_note TEXT;',
  // Scripts started in the background (core/processes/), so a restarted server finds kept ones again.
  PROCESSES_MIGRATION,
  // A big save's slices, kept apart until its last transaction moves them in (staging.ts).
  STAGING_MIGRATION,
];

/** Which port rows a listing shows: the ones a project listens on (default), connects to, or both. */
export type PortKindFilter = 'listen' | 'connect' | 'container' | 'all';

/** A big scan's save is cut in slices of about this many milliseconds of the HTTP thread (see `saveScanSliced`). */
const SLICE_MS = 6;
/** Scans up to this many tests are saved in one transaction; bigger ones go through the staging table. */
const SAVE_SLICE = DELTA_ROWS;
/** A turn of the event loop between slices, so requests are answered. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Rows per piece of a list sent piece by piece (`testsJsonPieces`), and the size from which lists are. */
const LIST_PAGE = 2_000;
export const STREAMED_LIST = 10_000;
/**
 * Bytes of paths from which a list is sent piece by piece whatever its count: deep folders with long names
 * make each row kilobytes (8k rows of 4 KB paths: one 31 MB block of the HTTP thread, 0.3-0.7 s, built at
 * once). A piece holds about PIECE_BYTES.
 */
const STREAMED_BYTES = 2 * 1024 * 1024;
const PIECE_BYTES = 512 * 1024;
/** What a row adds to its path in a list's JSON (the other fields and the keys), for sizing pieces. */
const ROW_BYTES = 160;

/** Largest serialised list kept between requests (a 10k-test list is about 1.6 MB). */
const MAX_CACHED_BODY = 4 * 1024 * 1024;

const PROJECTS_JSON = `SELECT json_group_array(json_object('id', id, 'name', name, 'path', path, 'description', description,
  'framework', framework, 'tags', json(tags), 'last_scanned', last_scanned, 'created_at', created_at,
  'last_run', json(last_run), 'git', json(git), 'git_note', git_note) ORDER BY id) AS body FROM projects`;

/** Narrows `GET /api/projects`; absent fields do not filter. */
export interface ProjectFilter {
  readonly tag?: string;
  readonly framework?: string;
  readonly q?: string;
}

export interface StoreOptions {
  /** Clock in milliseconds, for `created_at`, `last_scanned` and friends. @default Date.now */
  readonly now?: () => number;
  /** Largest database size in bytes; writes past it fail as on a full disk (507). @default no limit */
  readonly maxBytes?: number;
}

/** SQLite's own answer to a failed statement, as `node:sqlite` reports it. */
export interface SqliteFailure { readonly errcode: number; readonly errstr: string }

/** The HTTP answer for a SQLite failure: the real reason (disk full, locked, damaged), never a bare 500. */
export function sqliteFailure(error: unknown): { status: number; message: string } | undefined {
  const { code, errcode, errstr } = (error ?? {}) as { code?: string; errcode?: number; errstr?: string };
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return undefined;
  const primary = errcode & 0xff;
  if (primary === 13) return { status: 507, message: `Database error: ${errstr ?? 'database or disk is full'}; free some disk space and retry` };
  if (primary === 5 || primary === 6) return { status: 503, message: `Database error: ${errstr ?? 'database is locked'}; retry shortly` };
  return { status: 500, message: `Database error: ${errstr ?? `code ${errcode}`}` };
}

export interface ScanRecord extends ScanIncrement {
  readonly tests: readonly FoundTest[];
  /** A row without a kind is a listen row. */
  readonly ports: ReadonlyArray<FoundPort & { readonly kind?: string }>;
  /** Stack the scan detected; written only while the project's framework is still null. */
  readonly framework: string | null;
  /** Directories (relative) the scan could not read: their stored tests and ports are kept. */
  readonly unreadable?: readonly string[];
  /** What the scan noticed, kept for `GET /api/projects/:id/scan` (absent: an empty summary). */
  readonly notes?: readonly string[];
  readonly runs?: readonly RunInfo[];
  readonly truncated?: string | null;
}

/** Per-call options of `saveScanSliced`. */
export interface SaveOptions {
  /**
   * Given the saved tests list as JSON (exactly `testsJson`'s bytes as of the save's commit) when the save
   * built it on the way, off the HTTP thread (a project's first big save); not called otherwise.
   */
  readonly onList?: (body: Buffer) => void;
  /**
   * Given the project's scan generation the save wrote (the one a snapshot kept later must name, see
   * `keepSnapshot`) once it has committed; not called when nothing was saved.
   */
  readonly onSaved?: (generation: number) => void;
}

/** The last scan's remarks on a project, as `GET /api/projects/:id/scan` answers them. */
export interface ScanSummary {
  readonly notes: string[];
  readonly runs: RunInfo[];
  readonly truncated: string | null;
  /** Unix seconds; null when the project was never scanned. */
  readonly scanned_at: number | null;
}

/** What a scan adds to a save when it kept a snapshot (see `ScanRecord`). */
export interface ScanIncrement {
  /**
   * The scan's snapshot, kept for the next scan of the project; null or absent drops the kept one, except
   * with mode `unchanged`, where null keeps it.
   */
  readonly snapshot?: Uint8Array | null;
  /** `unchanged`: the scan found exactly what is stored, so only `last_scanned` is written. */
  readonly mode?: 'full' | 'incremental' | 'unchanged';
  /**
   * The tests that differ from the scan whose snapshot had generation `base`; used instead of rewriting
   * every row while the project is still at that generation.
   */
  readonly delta?: { readonly upserts: readonly FoundTest[]; readonly removed: readonly string[] };
  readonly base?: number;
}

export type Store = ReturnType<typeof openStore>;

/**
 * Opens (creating and migrating as needed) the projdex database at `file`, or an in-memory one for
 * `':memory:'`. A new database file is created with mode 0600.
 *
 * @example
 * const store = openStore(':memory:');
 * const project = store.insertProject({ name: 'app', path: '/home/me/app' });
 */
export function openStore(file: string, { now = Date.now, maxBytes }: StoreOptions = {}) {
  const { DatabaseSync } = loadSqlite();
  if (file !== ':memory:') closeSync(openSync(file, 'a', 0o600));
  const db = new DatabaseSync(file);
  try {
    if (file !== ':memory:') chmodSync(file, 0o600);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
    // Checked at every start, so a damaged file is named now rather than failing requests later.
    const check = String(db.prepare('PRAGMA quick_check').get()?.quick_check);
    if (check !== 'ok') throw Object.assign(new Error(check), { errcode: 11, errstr: check.replace(/\s+/g, ' ').slice(0, 200) });
    migrate(db);
    discardStaged(db);
    if (maxBytes !== undefined) db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / Number(db.prepare('PRAGMA page_size').get()?.page_size)))}`);
  } catch (error) {
    if (db.isOpen) db.close();
    const { errcode = 0, errstr } = error as { errcode?: number; errstr?: string };
    // SQLITE_CORRUPT (11) and SQLITE_NOTADB (26): say which file and what to do; anything else as it is.
    if (file === ':memory:' || ((errcode & 0xff) !== 11 && (errcode & 0xff) !== 26)) throw error;
    throw new Error(`The database ${file} is damaged (${errstr}). Stop projdex, move that file and its -wal and -shm `
      + 'files aside (or restore a backup), and start again: a new empty database is created.', { cause: error });
  }

  const seconds = (): number => Math.floor(now() / 1000);
  const sql = (text: string): StatementSync => db.prepare(text);
  const q = {
    listProjects: sql('SELECT * FROM projects ORDER BY id'),
    getProject: sql('SELECT * FROM projects WHERE id = ?'),
    getProjectByPath: sql('SELECT * FROM projects WHERE path = ?'),
    insertProject: sql('INSERT INTO projects (name, path, created_at) VALUES (?, ?, ?) RETURNING *'),
    deleteProject: sql('DELETE FROM projects WHERE id = ?'),
    listTags: sql('SELECT DISTINCT j.value AS tag FROM projects, json_each(projects.tags) AS j ORDER BY tag'),
    listTests: sql('SELECT id, project_id, file_path, framework, status, last_run, cases, created_at FROM tests WHERE project_id = ? ORDER BY file_path'),
    listPorts: sql(`SELECT id, project_id, port, script_name, config_source, last_detected, created_at, kind FROM ports
      WHERE project_id = ? AND (? = 'all' OR kind = ?) ORDER BY port, script_name, config_source`),
    nextGeneration: sql('UPDATE projects SET scan_generation = scan_generation + 1 WHERE id = ? RETURNING scan_generation'),
    // Every listen row of every project, for GET /api/ports (grouped in JS: a few rows per project).
    listenPorts: sql(`SELECT ports.port, ports.project_id, projects.name, ports.script_name, ports.config_source
      FROM ports JOIN projects ON projects.id = ports.project_id WHERE ports.kind = 'listen'
      ORDER BY ports.port, ports.project_id, ports.script_name, ports.config_source`),
    generationOf: sql('SELECT scan_generation FROM projects WHERE id = ?'),
    deleteTest: sql('DELETE FROM tests WHERE project_id = ? AND file_path = ?'),
    finishScan: sql('UPDATE projects SET last_scanned = ?, framework = COALESCE(framework, ?) WHERE id = ?'),
    listSettings: sql('SELECT key, value FROM settings ORDER BY key'),
    dataVersion: sql('PRAGMA data_version'),
    // The list endpoints' bodies, built by SQLite in one step (same fields and order as the row mappers).
    projectsJson: sql(PROJECTS_JSON),
    testsJson: sql(TESTS_JSON),
    testRow: sql(TEST_ROW_JSON),
    portsJson: sql(`SELECT json_group_array(json_object('id', id, 'project_id', project_id, 'port', port, 'script_name', script_name,
      'config_source', config_source, 'last_detected', last_detected, 'created_at', created_at, 'kind', kind)
      ORDER BY port, script_name, config_source) AS body FROM ports WHERE project_id = ? AND (? = 'all' OR kind = ?)`),
    getSetting: sql('SELECT value FROM settings WHERE key = ?'),
    deleteSetting: sql('DELETE FROM settings WHERE key = ?'),
    countTests: sql('SELECT count(*) AS n FROM tests WHERE project_id = ?'),
    testsPage: sql(`SELECT json_group_array(json_object('id', id, 'project_id', project_id, 'file_path', file_path, 'framework', framework,
      'status', status, 'last_run', last_run, 'cases', cases, 'created_at', created_at)) AS body, max(file_path) AS last
      FROM (SELECT * FROM tests WHERE project_id = ? AND file_path > ? ORDER BY file_path LIMIT ?)`),
    listSize: sql('SELECT count(*) AS n, coalesce(sum(octet_length(file_path)), 0) AS bytes FROM tests WHERE project_id = ?'),
    saveSummary: sql(`INSERT INTO scan_summaries (project_id, notes, runs, truncated, scanned_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET notes = excluded.notes, runs = excluded.runs, truncated = excluded.truncated,
      scanned_at = excluded.scanned_at`),
    getSummary: sql('SELECT notes, runs, truncated, scanned_at FROM scan_summaries WHERE project_id = ?'),
    // One row per project for the dashboard's table: test files, cases, files per runner, distinct ports.
    overviewJson: sql(`SELECT json_group_array(json_object('project_id', p.id, 'tests', coalesce(t.n, 0), 'cases', coalesce(t.cases, 0),
      'runners', json(coalesce(r.runners, '{}')), 'ports', json(coalesce(pp.ports, '[]'))) ORDER BY p.id) AS body
      FROM projects p
      LEFT JOIN (SELECT project_id, count(*) AS n, sum(cases) AS cases FROM tests GROUP BY project_id) t ON t.project_id = p.id
      LEFT JOIN (SELECT project_id, json_group_object(fw, n) AS runners FROM (SELECT project_id, coalesce(framework, 'unknown') AS fw,
        count(*) AS n FROM tests GROUP BY project_id, fw) GROUP BY project_id) r ON r.project_id = p.id
      LEFT JOIN (SELECT project_id, json_group_array(port ORDER BY port) AS ports FROM (SELECT DISTINCT project_id, port FROM ports
        WHERE kind = 'listen') GROUP BY project_id) pp ON pp.project_id = p.id`),
    getSnapshot: sql(`SELECT s.data, s.generation FROM scan_snapshots s JOIN projects p ON p.id = s.project_id
      WHERE s.project_id = ? AND s.generation = p.scan_generation`),
    putSnapshot: sql(`INSERT INTO scan_snapshots (project_id, generation, data) VALUES (?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET generation = excluded.generation, data = excluded.data`),
    currentGeneration: sql('SELECT scan_generation FROM projects WHERE id = ?'),
    setGit: sql('UPDATE projects SET git = ?, git_note = ? WHERE id = ?'),
    getGit: sql('SELECT git, git_note FROM projects WHERE id = ?'),
    putSetting: sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  };

  // Perf: serialised list bodies are kept until the data changes: our own writes clear the cache, and
  // `PRAGMA data_version` moves when another connection (a second server, a CLI) commits.
  const bodies = new Map<string, Buffer>();
  /** Per project, its tests' count and bytes of paths (`bigList`), kept as the bodies are. */
  const sizes = new Map<number, { n: number; bytes: number }>();
  let seenVersion = -1;
  const cachedBody = (key: string, build: () => unknown): Buffer => {
    const version = Number(q.dataVersion.get()?.data_version);
    if (version !== seenVersion) { bodies.clear(); sizes.clear(); seenVersion = version; }
    let body = bodies.get(key);
    if (!body) {
      body = Buffer.from(String(build()));
      // A huge body (90k tests: 15 MB) is not kept: held into the next scan, it would add to its peak memory.
      if (body.length <= MAX_CACHED_BODY) bodies.set(key, body);
    }
    return body;
  };
  const changed = (): void => { bodies.clear(); sizes.clear(); };
  const listSizeOf = (projectId: number): { n: number; bytes: number } => {
    const version = Number(q.dataVersion.get()?.data_version);
    if (version !== seenVersion) { bodies.clear(); sizes.clear(); seenVersion = version; }
    let size = sizes.get(projectId);
    if (!size) {
      const row = q.listSize.get(projectId);
      size = { n: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
      sizes.set(projectId, size);
    }
    return size;
  };

  /** Runs `fn` in one IMMEDIATE transaction: all of it lands, or none. */
  const transaction = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      // SQLite may already have rolled back (a full disk does): the error worth reporting is the first one.
      try { if (db.isTransaction) db.exec('ROLLBACK'); } catch { /* keep the original error */ }
      throw error;
    }
  };

  const finisher = createFinisher(db);
  const finishSave = finisher.finishSave;
  // A file database applies the last transaction of a big save in a thread of its own (applier.ts).
  const applier = file === ':memory:' ? undefined : createApplier(file, maxBytes);
  /** Writes of this connection wait (asynchronously) while a big save's last transaction holds the lock. */
  const gate = createWriteGate();
  /** Big saves in flight. While there are any, this connection checkpoints nothing: the apply thread does. */
  let slicing = 0;
  const leaveCheckpoints = (leave: boolean): void => {
    if (!applier) return;
    slicing += leave ? 1 : -1;
    if (slicing !== (leave ? 1 : 0)) return;
    try { db.exec(`PRAGMA wal_autocheckpoint = ${leave ? 0 : 1000}`); } catch { /* closed meanwhile */ }
  };
  const staging: Staging = createStaging(db);

  /**
   * Runs `step` over and over in transactions of about SLICE_MS each (a slow disk or a busy machine gets
   * smaller slices, not longer stalls), with a turn of the event loop between them, until it returns false.
   * Resolves false, between two transactions, once `going` does.
   */
  const inSlices = async (step: () => boolean, going: () => boolean = () => true): Promise<boolean> => {
    for (let more = true; more; await turn()) {
      // Through the gate: not while the apply thread holds the write lock (this thread would wait for it, blocked).
      const outcome = await gate.write(() => {
        if (!going()) return undefined;
        const until = performance.now() + SLICE_MS;
        return transaction(() => {
          let again: boolean;
          do again = step(); while (again && performance.now() < until);
          return again;
        });
      });
      if (outcome === undefined) return false;
      more = outcome;
    }
    return true;
  };

  interface SliceState {
    readonly rows: ReturnType<typeof arrayCursor>; readonly count: number; readonly at: number;
    readonly prefixes: readonly string[];
    /** The project's generation when the save began: a save of the project committed since wins over this one. */
    readonly startGeneration: number;
  }
  /**
   * The body of `saveScanSliced`: the scan's rows and the removals are staged in slices, then one transaction
   * writes the differences, the ports, the summary and the snapshot. False when the project is gone or
   * another save of it committed first. The staged rows are discarded in the end, whatever happened.
   */
  async function saveSlices(
    projectId: number, record: ScanRecord, state: SliceState,
  ): Promise<number | false> {
    const { rows, count, at, prefixes, startGeneration } = state;
    const current = (): boolean => Number(q.generationOf.get(projectId)?.scan_generation ?? Number.NaN) === startGeneration;
    const saveId = await gate.write(() => transaction(() => staging.begin()));
    applier?.warm();
    leaveCheckpoints(true);
    let applied: number | false | undefined;
    try {
      const staged = await inSlices(() => {
        for (let n = 0, t = rows.next(); t; n++, t = n < 32 ? rows.next() : undefined) staging.stage(saveId, projectId, t);
        return rows.index < count;
      }, current);
      let after: string | undefined = '';
      if (!staged || !await inSlices(() => (after = staging.stageRemovals(saveId, projectId, after!, prefixes)) !== undefined, current)) {
        return false;
      }
      const { ports, framework, notes, runs, truncated, snapshot } = record;
      const request: ApplyRequest = {
        saveId, projectId, startGeneration, at, kept: prefixes, record: { ports, framework, notes, runs, truncated, snapshot },
      };
      const threaded = applier?.apply(request);
      applied = threaded && await gate.hold(threaded);
      changed();
      applied ??= await gate.write(() => transaction(() => finisher.applyStaged(staging, request)));
      return applied;
    } finally {
      // Staged rows are of no use once the save ended (an applied save dropped its own); if discarding fails
      // too, the first error is the one reported, and the next open discards them.
      if (applied === undefined || applied === false) {
        try { await inSlices(() => staging.discardPage(saveId)); } catch { /* see above */ }
      }
      releaseCheckpoints();
    }
  }

  /** The body of `saveScanSliced`: the generation saved, false, or `stale`. */
  async function saveAnySize(
    projectId: number, record: ScanRecord, onList: SaveOptions['onList'],
  ): Promise<number | false | 'stale'> {
    // A result from a scan process keeps its tests in columns: read them from there, a row at a time.
    const packed = packedOf(record);
    const count = testCountOf(record);
    const one = (): Promise<number | false | 'stale'> => gate.write(() => saveOne(projectId, record));
    const { delta, base } = record;
    // Without its tests only a small delta can be saved (saveOne checks its base).
    if (testsLeftOut(record) && record.mode !== 'unchanged') {
      return delta && delta.upserts.length + delta.removed.length <= SAVE_SLICE ? one() : 'stale';
    }
    if (count <= SAVE_SLICE || record.mode === 'unchanged') return one();
    const startGeneration = Number(q.generationOf.get(projectId)?.scan_generation ?? Number.NaN);
    if (Number.isNaN(startGeneration)) return false;
    if (delta && delta.upserts.length + delta.removed.length <= SAVE_SLICE && startGeneration === base) {
      return one();
    }
    const { unreadable = [] } = record;
    const prefixes = unreadable.map((dir) => (dir === '' ? '' : dir + '/'));
    if (applier && listSizeOf(projectId).n === 0) {
      // No stored row to keep (a first scan): the whole save in one transaction of the apply thread.
      const whole = { tests: packed ?? record.tests, at: seconds(), prefixes, startGeneration };
      const saved = await saveWhole(projectId, record, whole, onList);
      if (saved !== undefined) return saved;
    }
    const rows = packed ? packedCursor(packed) : arrayCursor(record.tests);
    return saveSlices(projectId, record, { rows, count, at: seconds(), prefixes, startGeneration });
  }

  /**
   * `saveScan`'s transaction: the generation saved, false when the project no longer exists, or `stale`
   * (nothing written) when the record's tests were left out and its delta is not from the stored scan.
   */
  function saveOne(projectId: number, record: ScanRecord): number | false | 'stale' {
    // Not `tests` here: a scan process's result unpacks them on first read (packed.ts), which an unchanged
    // scan never needs (8,943 row objects: ~2 ms of the HTTP thread per rescan).
    const { framework, unreadable = [], notes = [], runs = [], truncated = null } = record;
    const { snapshot = null, mode = 'full', delta, base } = record;
    const prefixes = unreadable.map((dir) => (dir === '' ? '' : dir + '/'));
    const at = seconds();
    const leftOut = testsLeftOut(record);
    if (mode === 'unchanged') {
      // Nothing found differs from what is stored (the snapshot matched this project's generation):
      // only last_scanned and the summary move, and only the project list's cached body goes stale.
      bodies.delete('projects');
      return transaction(() => {
        const row = q.currentGeneration.get(projectId);
        if (!row) return false;
        if (leftOut && Number(row.scan_generation) !== base) return 'stale';
        q.finishScan.run(at, framework, projectId);
        q.saveSummary.run(projectId, JSON.stringify(notes), JSON.stringify(runs), truncated, at);
        if (snapshot) q.putSnapshot.run(projectId, Number(row.scan_generation), snapshot);
        return Number(row.scan_generation);
      });
    }
    // The list as this connection last built it, patched below when only a few rows move.
    const listKey = `tests:${projectId}`;
    const listBefore = bodies.get(listKey);
    let listAfter: Buffer | undefined;
    changed();
    const saved = transaction(() => {
      // Checked with the write lock held: no other connection can save the project until this one commits.
      const stored = q.currentGeneration.get(projectId);
      if (leftOut && stored && (!delta || Number(stored.scan_generation) !== base)) return 'stale';
      const row = q.nextGeneration.get(projectId);
      if (!row) return false;
      const generation = Number(row.scan_generation);
      if (delta && base === generation - 1) {
        // The stored rows are the snapshot's scan: write only what differs (1% of files touched: ~1% of
        // rows).
        finisher.upsertTests(projectId, arrayCursor(delta.upserts), generation, at);
        for (const file of delta.removed) q.deleteTest.run(projectId, file);
        // Still the stored list when no other connection has committed since it was built (this one holds
        // the write lock now): the rows written, as SQLite writes them, go into it.
        if (listBefore && Number(q.dataVersion.get()?.data_version) === seenVersion) {
          const written = delta.upserts.map((t) => ({
            file: t.file, row: q.testRow.get(projectId, t.file)?.row,
          }));
          if (written.every((edit) => typeof edit.row === 'string')) {
            const removed = delta.removed.map((file) => ({ file, row: null }));
            listAfter = patchList(listBefore, [...written as Array<{ file: string; row: string }>, ...removed]);
          }
        }
      } else {
        const packed = packedOf(record);
        const rows = packed ? packedCursor(packed) : arrayCursor(record.tests);
        finisher.writeTests(projectId, rows, generation, at, prefixes);
      }
      finishSave(projectId, record, generation, at, prefixes);
      return generation;
    });
    // This connection's own commit leaves data_version as it was: the patched list is the stored one.
    if (typeof saved === 'number' && listAfter && listAfter.length <= MAX_CACHED_BODY) {
      bodies.set(listKey, listAfter);
    }
    return saved;
  }

  type WholeSave = Omit<SliceState, 'rows' | 'count'>
    & { readonly tests: PackedTests | readonly FoundTest[] };
  /**
   * A project's first big save, whole, in the apply thread (`saveWhole` in finish.ts): no staging (which
   * writes every row twice, a slice at a time on this thread: ~50 ms of it for 9k rows), still one
   * transaction, and this thread answers requests meanwhile. Undefined when the thread could not run it.
   */
  async function saveWhole(
    projectId: number, record: ScanRecord, { tests, at, prefixes, startGeneration }: WholeSave,
    onList: ((body: Buffer) => void) | undefined,
  ): Promise<number | false | undefined> {
    const { ports, framework, notes, runs, truncated, snapshot } = record;
    // Columns from a scan process may view one big IPC message: copied to their own length, or the clone
    // to the thread would copy that whole message.
    const columns = tests as PackedTests;
    const sent = Array.isArray(tests)
      ? tests
      : { ...columns, kinds: columns.kinds.slice(), cases: columns.cases.slice() };
    // The list is built beside the save only when the answer would not stream it (see `bigList`).
    const count = Array.isArray(tests) ? tests.length : packedCount(columns);
    const bytes = Array.isArray(tests)
      ? (tests as readonly FoundTest[]).reduce((sum, t) => sum + Buffer.byteLength(t.file), 0)
      : Buffer.byteLength(columns.files) - Math.max(0, count - 1);
    const list = onList !== undefined && count <= STREAMED_LIST && bytes <= STREAMED_BYTES;
    leaveCheckpoints(true);
    try {
      const saved = await gate.hold(applier!.saveWhole({
        projectId, startGeneration, at, kept: prefixes, tests: sent, list,
        record: { ports, framework, notes, runs, truncated, snapshot },
      }));
      changed();
      if (saved?.list) onList?.(Buffer.from(saved.list.buffer, saved.list.byteOffset, saved.list.byteLength));
      return saved?.saved;
    } finally {
      releaseCheckpoints();
    }
  }

  /** The end of a big save: the WAL copied in the thread, after which this connection checkpoints again. */
  const releaseCheckpoints = (): void => {
    // The copy of the WAL runs in the thread after the answer, not before it; this connection checkpoints
    // nothing until it has (else its next commit would copy on the HTTP thread).
    const copied = slicing === 1 ? applier?.checkpoint() : undefined;
    if (copied) void copied.then(() => leaveCheckpoints(false), () => leaveCheckpoints(false));
    else leaveCheckpoints(false);
  };

  return {
    listProjects: (): Project[] => q.listProjects.all().map(toProject),
    getProject: (id: number): Project | undefined => maybe(q.getProject.get(id), toProject),
    getProjectByPath: (path: string): Project | undefined => maybe(q.getProjectByPath.get(path), toProject),

    /** Inserts a project; returns `undefined` when its path is already registered (UNIQUE). */
    insertProject({ name, path }: { name: string; path: string }): Project | undefined {
      changed();
      try {
        return toProject(q.insertProject.get(name, path, seconds())!);
      } catch (error) {
        if (isUniqueViolation(error)) return undefined;
        throw error;
      }
    },

    /** Applies the given fields; returns the updated project, or `undefined` when it does not exist. */
    updateProject(id: number, update: ProjectUpdate): Project | undefined {
      // A fixed column allow-list: no SQL is built from request data.
      const sets: string[] = [];
      const values: Array<string | null> = [];
      if (update.name !== undefined) { sets.push('name = ?'); values.push(update.name); }
      if (update.description !== undefined) { sets.push('description = ?'); values.push(update.description); }
      if (update.framework !== undefined) { sets.push('framework = ?'); values.push(update.framework); }
      if (update.tags !== undefined) { sets.push('tags = ?'); values.push(JSON.stringify(update.tags)); }
      if (sets.length === 0) return maybe(q.getProject.get(id), toProject);
      changed();
      return maybe(db.prepare(`UPDATE projects SET ${sets.join(', ')} WHERE id = ? RETURNING *`).get(...values, id), toProject);
    },

    /**
     * Stores the git state a scan read, or null and why; false when the project does not exist. Only the
     * project list shows git, so only its cached body is dropped, and only when the state moved: a rescan
     * of an untouched repository keeps every cached list (its tests above all) as it was.
     */
    setGitState(id: number, { state, note }: GitReading): boolean {
      const row = q.getGit.get(id);
      if (!row) return false;
      const git = state === null ? null : JSON.stringify(state);
      if (row.git === git && row.git_note === note) return true;
      bodies.delete('projects');
      return Number(q.setGit.run(git, note, id).changes) > 0;
    },

    /** Removes a project with its tests and ports; false when it did not exist. */
    deleteProject: (id: number): boolean => (changed(), Number(q.deleteProject.run(id).changes) > 0),

    listTags: (): string[] => q.listTags.all().map((row) => String(row.tag)),
    listTests: (projectId: number): Test[] => q.listTests.all(projectId).map(toTest),
    listPorts: (projectId: number, kind: PortKindFilter = 'listen'): ProjectPort[] =>
      q.listPorts.all(projectId, kind, kind).map(toPort),

    /** How many tests a project has. */
    countTests: (projectId: number): number => Number(q.countTests.get(projectId)?.n ?? 0),
    /**
     * Whether a project's tests list is big enough to be sent in pieces (`testsJsonPieces`): over
     * STREAMED_LIST rows, or over STREAMED_BYTES of paths.
     */
    bigList(projectId: number): boolean {
      // Perf: octet_length takes each size from the row's header, without reading long paths' overflow pages;
      // kept until the data changes (a rescan asks on every answer: ~1.7 ms for 8,943 rows).
      const size = listSizeOf(projectId);
      return size.n > STREAMED_LIST || size.bytes > STREAMED_BYTES;
    },

    /**
     * The tests list as JSON pieces of 2,000 rows, with a turn of the event loop between pieces: a 200k-test
     * list (28 MB) is built while it is sent instead of in one block of the HTTP thread. Rows written while
     * it runs may or may not appear, as with any paged read.
     */
    async *testsJsonPieces(projectId: number): AsyncGenerator<Buffer> {
      yield Buffer.from('[');
      // Pieces of 2,000 rows, fewer when paths are long (about PIECE_BYTES a piece).
      const size = listSizeOf(projectId);
      const average = size.bytes / Math.max(1, size.n) + ROW_BYTES;
      const rows = Math.max(1, Math.min(LIST_PAGE, Math.floor(PIECE_BYTES / average)));
      let after = '';
      for (let first = true; ; first = false) {
        const page = q.testsPage.get(projectId, after, rows);
        const body = String(page?.body ?? '[]');
        if (body === '[]') break;
        yield Buffer.from((first ? '' : ',') + body.slice(1, -1));
        after = String(page!.last);
        await new Promise((resolve) => setImmediate(resolve));
      }
      yield Buffer.from(']');
    },

    /**
     * The same lists as JSON bytes, ready to send; cached until the data changes. `filter` narrows the
     * projects (not cached): `tag` held exactly, `framework` equal ignoring case, `q` a case-insensitive
     * substring of name, path or description.
     */
    projectsJson(filter: ProjectFilter = {}): Buffer {
      const where: string[] = [];
      const args: string[] = [];
      if (filter.tag !== undefined) { where.push('EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)'); args.push(filter.tag); }
      if (filter.framework !== undefined) { where.push('lower(framework) = lower(?)'); args.push(filter.framework); }
      if (filter.q !== undefined) {
        const like = `%${filter.q.replace(/[\\%_]/g, '\\$&')}%`;
        where.push("(name LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')");
        args.push(like, like, like);
      }
      if (where.length === 0) return cachedBody('projects', () => q.projectsJson.get()?.body);
      // A fixed set of clauses; request data only ever reaches SQLite as bound parameters.
      const text = String(db.prepare(PROJECTS_JSON.replace('FROM projects', `FROM projects WHERE ${where.join(' AND ')}`)).get(...args)?.body);
      return Buffer.from(text);
    },
    testsJson: (projectId: number): Buffer => cachedBody(`tests:${projectId}`, () => q.testsJson.get(projectId)?.body),
    portsJson: (projectId: number, kind: PortKindFilter = 'listen'): Buffer =>
      cachedBody(`ports:${projectId}:${kind}`, () => q.portsJson.get(projectId, kind, kind)?.body),
    /**
     * A body built by `build` from the listen rows of every project (sorted by port, project id, script
     * name, source), cached under `key` until the data changes.
     */
    /** The listen rows of every project, in that order, uncached (for answers built per request). */
    listenRows: (): ListenRow[] => q.listenPorts.all().map(toListenRow),
    listenPortsJson: (key: string, build: (rows: ListenRow[]) => unknown): Buffer =>
      cachedBody(`ports:all:${key}`, () => JSON.stringify(build(q.listenPorts.all().map(toListenRow)))),
    /** Per project: `{ project_id, tests, cases, runners: { jest: n }, ports: [listen ports] }`, in id order. */
    overviewJson: (): Buffer => cachedBody('overview', () => q.overviewJson.get()?.body),

    /** What the last scan of a project noticed; an empty summary when it was never scanned. */
    getScanSummary(projectId: number): ScanSummary {
      const row = q.getSummary.get(projectId);
      if (!row) return { notes: [], runs: [], truncated: null, scanned_at: null };
      return {
        notes: JSON.parse(String(row.notes)) as string[],
        runs: JSON.parse(String(row.runs)) as RunInfo[],
        truncated: orNull(row.truncated, String),
        scanned_at: Number(row.scanned_at),
      };
    },

    /**
     * Replaces a project's tests and ports with a scan's findings in one transaction. Tests keep their
     * id while their file is still found; ports while the same port, script and source are still found.
     * Returns false when the project no longer exists.
     */
    saveScan(projectId: number, record: ScanRecord): boolean {
      return typeof saveOne(projectId, record) === 'number';
    },

    /**
     * `saveScan` for any size without holding the thread: a scan of up to 1,000 tests (or an incremental
     * one that differs in up to 1,000 rows) is saved in one transaction as before. A bigger one is written
     * in slices of a few milliseconds (each its own transaction, a turn of the event loop in between, so
     * /health and other requests are answered) to a staging table no reader sees, with the stored tests it
     * no longer finds; one last transaction then writes only the differences, ports, the project and the
     * snapshot. Readers see the old list until that commit, then the new one; a failure (a full disk: 507)
     * or a killed process leaves the old scan exactly as it was. Ids stay stable as in `saveScan`. Resolves
     * false when the project no longer exists, or another save of it committed while this one ran.
     * A scan process's result without its tests (`withTestsLeftOut`) is saved by its delta only, while the
     * project still holds the scan the delta is from (`base`); else nothing is written and it resolves
     * `stale`: scan again with the tests.
     */
    async saveScanSliced(
      projectId: number, record: ScanRecord, { onList, onSaved }: SaveOptions = {},
    ): Promise<boolean | 'stale'> {
      const generation = await saveAnySize(projectId, record, onList);
      if (generation === false || generation === 'stale') return generation;
      onSaved?.(generation);
      return true;
    },

    /**
     * The snapshot a scan kept, saved after its findings (see `SaveOptions.onSaved`): kept only while the
     * project's rows are still the ones saved at `generation`, else dropped (it describes another scan).
     * False when it was dropped.
     */
    keepSnapshot(projectId: number, generation: number, data: Uint8Array): boolean {
      return transaction(() => {
        const stored = Number(q.currentGeneration.get(projectId)?.scan_generation ?? Number.NaN);
        if (stored !== generation) return false;
        q.putSnapshot.run(projectId, generation, data);
        return true;
      });
    },

    /**
     * The snapshot the project's last scan kept with the generation it was saved at, or undefined (never
     * scanned, or scanned without one).
     */
    getSnapshot(projectId: number): { readonly data: Uint8Array; readonly generation: number } | undefined {
      const row = q.getSnapshot.get(projectId);
      return row?.data instanceof Uint8Array ? { data: row.data, generation: Number(row.generation) } : undefined;
    },

    /** All settings as one object; own keys only, so `__proto__` is an ordinary key. */
    getSettings(): Record<string, string> {
      return Object.fromEntries(q.listSettings.all().map((row) => [String(row.key), String(row.value)]));
    },
    putSetting(key: string, value: string): void {
      q.putSetting.run(key, value);
    },
    getSetting: (key: string): string | undefined => maybe(q.getSetting.get(key), (row) => String(row.value)),
    /** False when there was no such key. */
    deleteSetting: (key: string): boolean => Number(q.deleteSetting.run(key).changes) > 0,

    /**
     * This connection's durability settings as SQLite reports them: `synchronous` 0 OFF, 1 NORMAL, 2 FULL.
     * Tests check them on the server's own connection (synchronous is per connection, not in the file).
     */
    pragmas: () => ({
      journal_mode: String(db.prepare('PRAGMA journal_mode').get()?.journal_mode),
      synchronous: Number(db.prepare('PRAGMA synchronous').get()?.synchronous),
      foreign_keys: Number(db.prepare('PRAGMA foreign_keys').get()?.foreign_keys),
      busy_timeout: Number(db.prepare('PRAGMA busy_timeout').get()?.timeout),
    }),

    /** For the store's sibling modules (runs.ts) only: the connection, the cache reset, a transaction. */
    extend: <T>(build: (db: DatabaseSync, changed: () => void, inTransaction: <R>(fn: () => R) => R) => T): T =>
      build(db, changed, transaction),
    ...processVerbs(db),

    /**
     * Runs `fn` (synchronous calls of the write verbs) at once, or, while a big save's last transaction holds
     * the database's write lock in its own thread, right after it, in the order calls came: the HTTP thread
     * never waits for the lock itself. Every write on the HTTP thread goes through here.
     */
    write: <T>(fn: () => T): Promise<T> => gate.write(fn),

    /** Runs `fn` (calls of these verbs) in one IMMEDIATE transaction: all of it lands, or none. */
    atomically: <T>(fn: () => T): T => transaction(fn),

    /** Checks the database file; 'ok' when intact. */
    integrityCheck: (): string => String(db.prepare('PRAGMA integrity_check').get()?.integrity_check),
    close(): void {
      applier?.close();
      if (db.isOpen) db.close();
    },
  };
}

/**
 * Drops the rows a big save staged and never applied (a process killed in the middle). A failure here (a
 * full disk) leaves them for a later open: nothing reads them.
 */
function discardStaged(db: InstanceType<ReturnType<typeof loadSqlite>['DatabaseSync']>): void {
  try { createStaging(db).discardAll(); } catch { /* see above */ }
}

function migrate(db: InstanceType<ReturnType<typeof loadSqlite>['DatabaseSync']>): void {
  const version = Number(db.prepare('PRAGMA user_version').get()?.user_version ?? 0);
  if (version > MIGRATIONS.length) {
    throw new Error(`This database was written by a newer projdex (schema ${version}; this one knows ${MIGRATIONS.length}).`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.exec('BEGIN IMMEDIATE');
    try {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }
}

type Row = Record<string, unknown>;

function maybe<T>(row: Row | undefined, map: (row: Row) => T): T | undefined {
  return row === undefined ? undefined : map(row);
}

const orNull = <T>(value: unknown, map: (v: unknown) => T): T | null => (value === null || value === undefined ? null : map(value));

function toProject(row: Row): Project {
  return {
    id: Number(row.id),
    name: String(row.name),
    path: String(row.path),
    description: orNull(row.description, String),
    framework: orNull(row.framework, String),
    tags: JSON.parse(String(row.tags)) as string[],
    last_scanned: orNull(row.last_scanned, Number),
    created_at: Number(row.created_at),
    last_run: row.last_run == null ? null : JSON.parse(String(row.last_run)) as LastRun,
    git: typeof row.git === 'string' ? JSON.parse(row.git) as GitState : null,
    git_note: orNull(row.git_note, String),
  };
}

function toTest(row: Row): Test {
  return {
    id: Number(row.id),
    project_id: Number(row.project_id),
    file_path: String(row.file_path),
    framework: orNull(row.framework, String),
    status: orNull(row.status, String),
    last_run: orNull(row.last_run, Number),
    cases: orNull(row.cases, Number),
    created_at: Number(row.created_at),
  };
}

function toPort(row: Row): ProjectPort {
  return {
    id: Number(row.id),
    project_id: Number(row.project_id),
    port: Number(row.port),
    script_name: orNull(row.script_name, String),
    config_source: String(row.config_source),
    last_detected: Number(row.last_detected),
    created_at: Number(row.created_at),
    kind: portKindOf(row.kind),
  };
}

/** One listen row of some project, as GET /api/ports groups them. */
export interface ListenRow {
  readonly port: number;
  readonly project_id: number;
  readonly name: string;
  readonly script_name: string | null;
  readonly config_source: string;
}

function toListenRow(row: Row): ListenRow {
  return {
    port: Number(row.port),
    project_id: Number(row.project_id),
    name: String(row.name),
    script_name: orNull(row.script_name, String),
    config_source: String(row.config_source),
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && (error as { errstr?: string }).errstr === 'constraint failed' && /UNIQUE/.test(error.message);
}
