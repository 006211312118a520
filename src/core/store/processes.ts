import type { DatabaseSync } from 'node:sqlite';

/** The `processes` table: every script projdex started, so a restarted server finds kept ones again. */
export const PROCESSES_MIGRATION = `CREATE TABLE processes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  script TEXT NOT NULL,
  command TEXT NOT NULL,
  pid INTEGER,
  proc_start TEXT,
  keep INTEGER NOT NULL,
  status TEXT NOT NULL,
  exit_code INTEGER,
  note TEXT,
  ports TEXT NOT NULL,
  log_path TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);`;

export type ProcessStatus = 'running' | 'exited' | 'failed' | 'stopped';

/** A started script as stored (times in Unix seconds). */
export interface ProcessRow {
  readonly id: number;
  readonly project_id: number;
  readonly script: string;
  readonly command: string;
  readonly pid: number | null;
  /** Linux: field 22 of /proc/PID/stat when it started, so a reused pid is not taken for it; null elsewhere. */
  readonly proc_start: string | null;
  readonly keep: boolean;
  readonly status: ProcessStatus;
  readonly exit_code: number | null;
  /** Why it ended without an exit code (gone while no server watched it), or why it failed to start. */
  readonly note: string | null;
  /** The ports the script declares (the scan's rows for it). */
  readonly ports: number[];
  readonly log_path: string;
  readonly started_at: number;
  readonly ended_at: number | null;
}

type NewProcess = Pick<ProcessRow, 'project_id' | 'script' | 'command' | 'keep' | 'ports' | 'log_path' | 'started_at'>;

const toRow = (row: Record<string, unknown>): ProcessRow => ({
  id: Number(row.id),
  project_id: Number(row.project_id),
  script: String(row.script),
  command: String(row.command),
  pid: row.pid === null ? null : Number(row.pid),
  proc_start: row.proc_start === null ? null : String(row.proc_start),
  keep: row.keep === 1,
  status: String(row.status) as ProcessStatus,
  exit_code: row.exit_code === null ? null : Number(row.exit_code),
  note: row.note === null ? null : String(row.note),
  ports: JSON.parse(String(row.ports)) as number[],
  log_path: String(row.log_path),
  started_at: Number(row.started_at),
  ended_at: row.ended_at === null ? null : Number(row.ended_at),
});

/** The verbs of the `processes` table, on the store's connection. */
export function processVerbs(db: DatabaseSync) {
  const insert = db.prepare(`INSERT INTO processes (project_id, script, command, keep, status, ports, log_path, started_at)
    VALUES (?, ?, ?, ?, 'running', ?, ?, ?) RETURNING *`);
  const setPid = db.prepare('UPDATE processes SET pid = ?, proc_start = ? WHERE id = ?');
  const setLog = db.prepare('UPDATE processes SET log_path = ? WHERE id = ?');
  const finish = db.prepare(`UPDATE processes SET status = ?, exit_code = ?, note = ?, ended_at = ?
    WHERE id = ? AND status = 'running' RETURNING *`);
  const get = db.prepare('SELECT * FROM processes WHERE id = ?');
  const list = db.prepare('SELECT * FROM processes ORDER BY id');
  const running = db.prepare("SELECT * FROM processes WHERE status = 'running' ORDER BY id");
  return {
    insertProcess: (p: NewProcess): ProcessRow =>
      toRow(insert.get(p.project_id, p.script, p.command, p.keep ? 1 : 0, JSON.stringify(p.ports), p.log_path, p.started_at)!),
    setProcessPid: (id: number, pid: number, procStart: string | null): void => { setPid.run(pid, procStart, id); },
    setProcessLog: (id: number, path: string): void => { setLog.run(path, id); },
    /** Ends a running row; undefined when it had already ended (the first ending wins). */
    finishProcess: (id: number, end: Pick<ProcessRow, 'status' | 'exit_code' | 'note' | 'ended_at'>): ProcessRow | undefined => {
      const row = finish.get(end.status, end.exit_code, end.note, end.ended_at, id);
      return row ? toRow(row) : undefined;
    },
    getProcess: (id: number): ProcessRow | undefined => { const row = get.get(id); return row ? toRow(row) : undefined; },
    listProcesses: (): ProcessRow[] => list.all().map(toRow),
    runningProcesses: (): ProcessRow[] => running.all().map(toRow),
  };
}
