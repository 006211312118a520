/**
 * Test runs in the store: one row per run (its files, steps and output kept as JSON and text), the
 * project's `last_run` summary, and each reported file's `status` and `last_run` on its test row.
 */
import type { Store } from './store.ts';
import type { FileResult, LastRun, RunRecord, RunStatus, StepRecord } from '../runs/types.ts';

/** Appended to the store's MIGRATIONS (store.ts). */
export const RUNS_MIGRATION = `CREATE TABLE runs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
     status TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     finished_at INTEGER,
     exit_code INTEGER,
     passed INTEGER NOT NULL DEFAULT 0,
     failed INTEGER NOT NULL DEFAULT 0,
     skipped INTEGER NOT NULL DEFAULT 0,
     files TEXT NOT NULL DEFAULT '[]',
     steps TEXT NOT NULL DEFAULT '[]',
     output TEXT NOT NULL DEFAULT '',
     reason TEXT
   );
   CREATE INDEX runs_by_project ON runs (project_id, id);
   ALTER TABLE projects ADD COLUMN last_run TEXT;`;

/** What a finished run writes. */
export interface RunEnd {
  readonly status: RunStatus;
  readonly exit_code: number | null;
  readonly files: readonly FileResult[];
  readonly steps: readonly StepRecord[];
  readonly output: string;
  readonly reason: string | null;
}

/** Runs listed per page at most. */
export const MAX_RUNS_PAGE = 100;

/** The runs verbs on an open store; statements prepared once. */
export function openRunsStore(store: Store, { now = Date.now }: { now?: () => number } = {}) {
  return store.extend((db, changed, inTransaction) => {
    const seconds = (): number => Math.floor(now() / 1000);
    const q = {
      insert: db.prepare('INSERT INTO runs (project_id, status, started_at) VALUES (?, ?, ?) RETURNING *'),
      get: db.prepare('SELECT * FROM runs WHERE id = ?'),
      setStatus: db.prepare('UPDATE runs SET status = ?, started_at = ? WHERE id = ?'),
      // A page leaves out each run's output (up to 1 MiB each): `getRun` has it.
      page: db.prepare(`SELECT id, project_id, status, started_at, finished_at, exit_code, passed, failed, skipped, files, steps, reason
        FROM runs WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`),
      count: db.prepare('SELECT count(*) AS n FROM runs WHERE project_id = ?'),
      finish: db.prepare(`UPDATE runs SET status = ?, finished_at = ?, exit_code = ?, passed = ?, failed = ?, skipped = ?, files = ?,
        steps = ?, output = ?, reason = ? WHERE id = ? RETURNING *`),
      setLastRun: db.prepare('UPDATE projects SET last_run = ? WHERE id = ?'),
      markTest: db.prepare('UPDATE tests SET status = ?, last_run = ? WHERE project_id = ? AND file_path = ?'),
      unfinished: db.prepare("SELECT id, project_id FROM runs WHERE status IN ('queued', 'running')"),
    };
    const finishRun = (id: number, end: RunEnd): RunRecord | undefined => {
      const at = seconds();
      const counts = { passed: 0, failed: 0, skipped: 0 };
      for (const f of end.files) counts[f.status]++;
      changed();
      return inTransaction(() => {
        const row = q.finish.get(end.status, at, end.exit_code, counts.passed, counts.failed, counts.skipped, JSON.stringify(end.files),
          JSON.stringify(end.steps), end.output, end.reason, id);
        if (!row) return undefined;
        const projectId = Number(row.project_id);
        const last: LastRun = { id, status: end.status, finished_at: at };
        q.setLastRun.run(JSON.stringify(last), projectId);
        for (const f of end.files) q.markTest.run(f.status, at, projectId, f.file_path);
        return toRun(row);
      });
    };
    return {
      createRun(projectId: number, status: 'queued' | 'running'): RunRecord {
        return toRun(q.insert.get(projectId, status, seconds())!);
      },
      /** A queued run starts: its status and start time. */
      startRun(id: number): void { q.setStatus.run('running', seconds(), id); },
      getRun: (id: number): RunRecord | undefined => { const row = q.get.get(id); return row ? toRun(row) : undefined; },
      /** Newest first; `before` is an id (runs older than it), for the next page. */
      listRuns(projectId: number, { limit = 20, before = Number.MAX_SAFE_INTEGER }: { limit?: number; before?: number } = {}):
        { runs: Array<Omit<RunRecord, 'output'>>; total: number } {
        const runs = q.page.all(projectId, before, Math.min(limit, MAX_RUNS_PAGE)).map((row) => {
          const { output: _, ...rest } = toRun({ ...row, output: '' });
          return rest;
        });
        return { runs, total: Number(q.count.get(projectId)?.n ?? 0) };
      },
      finishRun,
      /** Runs a stopped server left queued or running: recorded as `error` with that reason. */
      failUnfinished(reason: string): number {
        const rows = q.unfinished.all();
        for (const row of rows) finishRun(Number(row.id), { status: 'error', exit_code: null, files: [], steps: [], output: '', reason });
        return rows.length;
      },
    };
  });
}

export type RunsStore = ReturnType<typeof openRunsStore>;

function toRun(row: Record<string, unknown>): RunRecord {
  return {
    id: Number(row.id),
    project_id: Number(row.project_id),
    status: String(row.status) as RunStatus,
    started_at: Number(row.started_at),
    finished_at: row.finished_at == null ? null : Number(row.finished_at),
    exit_code: row.exit_code == null ? null : Number(row.exit_code),
    counts: { passed: Number(row.passed), failed: Number(row.failed), skipped: Number(row.skipped) },
    files: JSON.parse(String(row.files)) as FileResult[],
    steps: JSON.parse(String(row.steps)) as StepRecord[],
    output: String(row.output),
    reason: row.reason == null ? null : String(row.reason),
  };
}
