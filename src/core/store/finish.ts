/**
 * The end of a save, on any connection: the store's own (store.ts) or the apply thread's (apply-thread.ts),
 * which runs the last transaction of a big save, or a project's first big save whole, off the HTTP thread.
 */
import type { DatabaseSync } from 'node:sqlite';
import { httpError } from '../errors.ts';
import type { FoundPort, FoundTest, RunInfo } from '../../rules/types.ts';
import type { Staging } from './staging.ts';
import { arrayCursor, packedCursor, type PackedTests } from '../../scan/process/packed.ts';

type TestCursor = ReturnType<typeof arrayCursor>;

/**
 * A project's tests list as JSON, built by SQLite (`GET /api/projects/:id/tests`). One text for every
 * connection that builds it, so a list built in the apply thread is byte for byte the one the store builds.
 * Perf: the rows come in file order from the (project_id, file_path) index through an ordered subquery,
 * which SQLite never flattens into an aggregate (its rule 16); an ORDER BY inside json_group_array sorts
 * every row again: 27 -> 14 ms for 8,943 tests (a file database).
 */
export const TESTS_JSON = `SELECT json_group_array(${testRowJson()}) AS body
  FROM (SELECT * FROM tests WHERE project_id = ? ORDER BY file_path)`;

/** One row of `TESTS_JSON`'s list, as it writes it (a list patched after a small save, list-patch.ts). */
export const TEST_ROW_JSON = `SELECT ${testRowJson()} AS row FROM tests WHERE project_id = ? AND file_path = ?`;

function testRowJson(): string {
  return `json_object('id', id, 'project_id', project_id, 'file_path', file_path, 'framework', framework,
  'status', status, 'last_run', last_run, 'cases', cases, 'created_at', created_at)`;
}

/** What the end of a save writes besides tests (a `ScanRecord` without its tests). */
export interface FinishRecord {
  /** A row without a kind is a listen row. */
  readonly ports: ReadonlyArray<FoundPort & { readonly kind?: string }>;
  readonly framework: string | null;
  readonly notes?: readonly string[];
  readonly runs?: readonly RunInfo[];
  readonly truncated?: string | null;
  readonly snapshot?: Uint8Array | null;
}

/** The last transaction of a big save, as the apply thread receives it. */
export interface ApplyRequest {
  readonly saveId: number;
  readonly projectId: number;
  /** The project's generation when the save began: a save of it committed since wins. */
  readonly startGeneration: number;
  readonly record: FinishRecord;
  readonly at: number;
  /** Prefixes of directories the scan could not read: their ports are kept. */
  readonly kept: readonly string[];
}

/**
 * A whole save in one transaction, as the apply thread receives it: a project's first big save, where no
 * stored row can be kept, so staging would only write every row twice. The tests travel in columns when a
 * scan process sent them so (a structured clone of one string and two typed arrays).
 */
export interface WholeSaveRequest extends Omit<ApplyRequest, 'saveId'> {
  readonly tests: PackedTests | readonly FoundTest[];
  /** Also build the saved list's JSON (`TESTS_JSON`) in the transaction, for the scan's answer. */
  readonly list?: boolean;
}

/** Rows per statement of `upsertTests`, and the characters of paths one may carry (paths may be long). */
const WRITE_ROWS = 2_000;
const WRITE_CHARS = 1024 * 1024;

/** A stored or found row's kind; anything else (an old row, no kind) is a listen row. */
export function portKindOf(kind: unknown): 'listen' | 'connect' | 'container' {
  return kind === 'connect' || kind === 'container' ? kind : 'listen';
}

/** The end-of-save verbs on a connection; each runs inside a transaction the caller holds. */
export function createFinisher(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  const q = {
    generationOf: sql('SELECT scan_generation FROM projects WHERE id = ?'),
    nextGeneration: sql('UPDATE projects SET scan_generation = scan_generation + 1 WHERE id = ? RETURNING scan_generation'),
    findPort: sql('SELECT id FROM ports WHERE project_id = ? AND port = ? AND script_name IS ? AND config_source = ?'),
    touchPort: sql('UPDATE ports SET kind = ?, last_detected = ?, scan_generation = ? WHERE id = ?'),
    insertPort: sql(`INSERT INTO ports (project_id, port, script_name, config_source, kind, last_detected, created_at, scan_generation)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    keepPortsUnder: sql('UPDATE ports SET scan_generation = ? WHERE project_id = ? AND substr(config_source, 1, length(?)) = ?'),
    sweepPorts: sql('DELETE FROM ports WHERE project_id = ? AND scan_generation <> ?'),
    finishScan: sql('UPDATE projects SET last_scanned = ?, framework = COALESCE(framework, ?) WHERE id = ?'),
    saveSummary: sql(`INSERT INTO scan_summaries (project_id, notes, runs, truncated, scanned_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET notes = excluded.notes, runs = excluded.runs, truncated = excluded.truncated,
      scanned_at = excluded.scanned_at`),
    putSnapshot: sql(`INSERT INTO scan_snapshots (project_id, generation, data) VALUES (?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET generation = excluded.generation, data = excluded.data`),
    dropSnapshot: sql('DELETE FROM scan_snapshots WHERE project_id = ?'),
    // Rows given as one JSON array of [file, framework, cases], walked in order (new rows take their ids in
    // the order given, as with one insert each): one statement per batch instead of one per row.
    upsertTests: sql(`INSERT INTO tests (project_id, file_path, framework, cases, created_at, scan_generation)
      SELECT ?1, value ->> 0, value ->> 1, value ->> 2, ?2, ?3 FROM json_each(?4) WHERE true
      ON CONFLICT (project_id, file_path) DO UPDATE SET framework = excluded.framework, cases = excluded.cases,
        scan_generation = excluded.scan_generation`),
    // Rows under a directory the scan could not read join the new generation, so the sweep keeps them.
    keepTestsUnder: sql(`UPDATE tests SET scan_generation = ? WHERE project_id = ?
      AND substr(file_path, 1, length(?)) = ?`),
    sweepTests: sql('DELETE FROM tests WHERE project_id = ? AND scan_generation <> ?'),
    testsJson: sql(TESTS_JSON),
  };

  /**
   * Each row inserted, or its stored row updated in place (its id kept), under `generation`, in the order
   * given. Perf: one statement per batch (8,943 rows in 48 ms instead of 70, a file database).
   */
  const upsertTests = (projectId: number, rows: TestCursor, generation: number, at: number): void => {
    let batch: Array<readonly [string, string | null, number | null]> = [];
    let chars = 0;
    const flush = (): void => {
      if (batch.length > 0) q.upsertTests.run(projectId, at, generation, JSON.stringify(batch));
      batch = [];
      chars = 0;
    };
    for (let t = rows.next(); t; t = rows.next()) {
      // A lone surrogate as a bound parameter would be: U+FFFD (JSON would carry it as an escape that SQLite
      // writes as bytes no UTF-8 reader takes).
      batch.push([t.file.toWellFormed(), t.framework, t.cases]);
      chars += t.file.length;
      if (batch.length === WRITE_ROWS || chars >= WRITE_CHARS) flush();
    }
    flush();
  };

  /**
   * Every test of a scan written under `generation` (a row keeps its id while its file is still found),
   * then the rows it no longer found swept, except under `kept` prefixes.
   */
  const writeTests = (
    projectId: number, rows: TestCursor, generation: number, at: number, kept: readonly string[],
  ): void => {
    upsertTests(projectId, rows, generation, at);
    for (const prefix of kept) q.keepTestsUnder.run(generation, projectId, prefix, prefix);
    q.sweepTests.run(projectId, generation);
  };

  /**
   * Writes a scan's ports: a row keeps its id while the same port, script and source are still found; rows
   * read from a directory the scan could not read (`kept` prefixes) stay as they were.
   */
  const savePorts = (projectId: number, ports: FinishRecord['ports'], generation: number, at: number, kept: readonly string[]): void => {
    for (const p of ports) {
      const kind = portKindOf(p.kind);
      const found = q.findPort.get(projectId, p.port, p.script_name, p.config_source);
      if (found) q.touchPort.run(kind, at, generation, found.id as number);
      else q.insertPort.run(projectId, p.port, p.script_name, p.config_source, kind, at, at, generation);
    }
    for (const prefix of kept) q.keepPortsUnder.run(generation, projectId, prefix, prefix);
    q.sweepPorts.run(projectId, generation);
  };

  /**
   * The end of every full or incremental save: ports, the project's scan time and framework, the summary and
   * the snapshot (dropped when the scan kept none).
   */
  const finishSave = (projectId: number, record: FinishRecord, generation: number, at: number, kept: readonly string[]): void => {
    const { ports, framework, notes = [], runs = [], truncated = null, snapshot = null } = record;
    savePorts(projectId, ports, generation, at, kept);
    q.finishScan.run(at, framework, projectId);
    q.saveSummary.run(projectId, JSON.stringify(notes), JSON.stringify(runs), truncated, at);
    if (snapshot) q.putSnapshot.run(projectId, generation, snapshot);
    else q.dropSnapshot.run(projectId);
  };

  return {
    finishSave,
    upsertTests,
    writeTests,
    /**
     * The last transaction of a big save: the staged differences, then `finishSave`. The generation saved, or
     * false when the project is gone or another save of it committed since the save began.
     */
    applyStaged(
      staging: Staging, { saveId, projectId, startGeneration, record, at, kept }: ApplyRequest,
    ): number | false {
      if (Number(q.generationOf.get(projectId)?.scan_generation ?? Number.NaN) !== startGeneration) return false;
      const generation = Number(q.nextGeneration.get(projectId)!.scan_generation);
      if (!staging.apply(saveId, projectId, at, generation)) {
        throw httpError(503, 'SAVE_DISCARDED', 'The scan could not be saved: another projdex process opened the database '
          + 'and discarded it while it was being written; nothing was changed, scan again');
      }
      finishSave(projectId, record, generation, at, kept);
      return generation;
    },
    /**
     * A whole save (`WholeSaveRequest`), as `saveScan` writes one: every row under the next generation, the
     * rows no longer found swept, then `finishSave`; with `list`, the list as saved, as JSON. `ok` false when
     * the project is gone or another save of it committed since the save began; else the generation saved.
     */
    saveWhole(
      { projectId, startGeneration, record, at, kept, tests, list }: WholeSaveRequest,
    ): { ok: boolean; generation?: number; list?: string } {
      const stored = Number(q.generationOf.get(projectId)?.scan_generation ?? Number.NaN);
      if (stored !== startGeneration) return { ok: false };
      const generation = Number(q.nextGeneration.get(projectId)!.scan_generation);
      const rows = Array.isArray(tests)
        ? arrayCursor(tests as readonly FoundTest[])
        : packedCursor(tests as PackedTests);
      writeTests(projectId, rows, generation, at, kept);
      finishSave(projectId, record, generation, at, kept);
      if (!list) return { ok: true, generation };
      return { ok: true, generation, list: String(q.testsJson.get(projectId)?.body) };
    },
  };
}

export type Finisher = ReturnType<typeof createFinisher>;
