/**
 * The staging area of a big save (`saveScanSliced` in store.ts). Why: a big scan is written a slice at a
 * time so the HTTP thread keeps answering, but the stored list must move from the old scan to the new one
 * at once. The slices go here, where no reader looks, each row marked with what it will change; a failed
 * save, or a process killed in the middle, leaves only staging rows, which nothing reads and the next open
 * discards. One last short transaction (`apply`) then writes only the differences into `tests`.
 */
import { randomInt } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';

/** Appended to the store's MIGRATIONS (store.ts). `change`: 1 insert or update, 0 as stored, -1 remove. */
export const STAGING_MIGRATION = `CREATE TABLE scan_staging (
     save_id INTEGER NOT NULL,
     file_path TEXT NOT NULL,
     framework TEXT,
     cases INTEGER,
     change INTEGER NOT NULL,
     PRIMARY KEY (save_id, file_path)
   ) WITHOUT ROWID;
   CREATE INDEX scan_staging_changes ON scan_staging (save_id, change);`;

/** The row every save stages first; the final transaction refuses to apply a save whose marker is gone. */
const MARKER = 2;
/** Rows per statement when listing stored tests or discarding staged rows. */
const PAGE = 256;

/** One test as a save stages it. */
export interface StagedTest { readonly file: string; readonly framework: string | null; readonly cases: number | null }

/** The staging verbs on an open connection; each runs inside a transaction the caller holds. */
export function createStaging(db: DatabaseSync) {
  const sql = (text: string) => db.prepare(text);
  const q = {
    // Marked 0 when the stored row is already exactly this: the last transaction skips it.
    stage: sql(`INSERT INTO scan_staging (save_id, file_path, framework, cases, change)
      VALUES (?1, ?2, ?3, ?4, NOT EXISTS (SELECT 1 FROM tests WHERE project_id = ?5 AND file_path = ?2 AND framework IS ?3 AND cases IS ?4))
      ON CONFLICT (save_id, file_path) DO UPDATE SET framework = excluded.framework, cases = excluded.cases, change = excluded.change`),
    mark: sql(`INSERT INTO scan_staging (save_id, file_path, change) VALUES (?, '', ${MARKER})`),
    hasMark: sql(`SELECT 1 AS ok FROM scan_staging WHERE save_id = ? AND file_path = '' AND change = ${MARKER}`),
    storedAfter: sql(`SELECT file_path FROM tests WHERE project_id = ? AND file_path > ? ORDER BY file_path LIMIT ${PAGE}`),
    stageRemoval: sql('INSERT INTO scan_staging (save_id, file_path, change) VALUES (?, ?, -1) ON CONFLICT DO NOTHING'),
    // Ids stay: a file still found updates its row in place (the conflict), a new file gets a new id. Perf:
    // a row's scan_generation is left as it was (only a one-transaction save sweeps by it, after rewriting
    // it on every row), which spares an index update per changed row of the last transaction.
    applyUpserts: sql(`INSERT INTO tests (project_id, file_path, framework, cases, created_at, scan_generation)
      SELECT ?, file_path, framework, cases, ?, ? FROM scan_staging INDEXED BY scan_staging_changes WHERE save_id = ? AND change = 1
      ON CONFLICT (project_id, file_path) DO UPDATE SET framework = excluded.framework, cases = excluded.cases`),
    applyRemovals: sql(`DELETE FROM tests WHERE project_id = ? AND file_path IN
      (SELECT file_path FROM scan_staging INDEXED BY scan_staging_changes WHERE save_id = ? AND change = -1)`),
    discardPage: sql(`DELETE FROM scan_staging WHERE save_id = ?1 AND file_path IN
      (SELECT file_path FROM scan_staging WHERE save_id = ?1 LIMIT ${PAGE})`),
    discardAll: sql('DELETE FROM scan_staging'),
    discardSave: sql('DELETE FROM scan_staging WHERE save_id = ?'),
  };

  return {
    /** A new save's id, with its marker row staged. */
    begin(): number {
      const saveId = randomInt(1, 2 ** 47);
      q.mark.run(saveId);
      return saveId;
    },
    stage(saveId: number, projectId: number, t: StagedTest): void {
      q.stage.run(saveId, t.file, t.framework, t.cases, projectId);
    },
    /**
     * Stages the removal of the stored tests after `after` (file order, one page) that the save did not
     * stage, except under `kept` prefixes (directories the scan could not read). Returns the last file
     * looked at, or undefined when no stored test is left.
     */
    stageRemovals(saveId: number, projectId: number, after: string, kept: readonly string[]): string | undefined {
      const rows = q.storedAfter.all(projectId, after);
      for (const row of rows) {
        const file = String(row.file_path);
        if (!kept.some((prefix) => file.startsWith(prefix))) q.stageRemoval.run(saveId, file);
      }
      return rows.length === 0 ? undefined : String(rows[rows.length - 1]!.file_path);
    },
    /**
     * Writes the staged differences into `tests` under `generation` and drops the staged rows, in the
     * caller's transaction (the save ends with it, not with slices of discarding after); false when the
     * staged rows are gone.
     */
    apply(saveId: number, projectId: number, at: number, generation: number): boolean {
      if (!q.hasMark.get(saveId)) return false;
      q.applyUpserts.run(projectId, at, generation, saveId);
      q.applyRemovals.run(projectId, saveId);
      q.discardSave.run(saveId);
      return true;
    },
    /** Discards up to a page of the save's staged rows; false when none was left. */
    discardPage: (saveId: number): boolean => Number(q.discardPage.run(saveId).changes) > 0,
    /** Discards every staged row: at open, where they can only be left by a save that never finished. */
    discardAll: (): void => { q.discardAll.run(); },
  };
}

export type Staging = ReturnType<typeof createStaging>;
