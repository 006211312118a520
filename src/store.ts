import { chmodSync, closeSync, openSync } from 'node:fs';
import type { StatementSync } from 'node:sqlite';
import { loadSqlite } from './sqlite.ts';
import type { Project, ProjectPort, ProjectUpdate, Test } from './types.ts';
import type { FoundPort, FoundTest } from './scan/types.ts';

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
  // What the last scan saw (src/scan/snapshot.ts), so a rescan re-reads only what changed. `generation` is
  // the project's scan_generation it was saved with: a snapshot that does not match is ignored.
  `CREATE TABLE scan_snapshots (
     project_id INTEGER PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
     generation INTEGER NOT NULL,
     data BLOB NOT NULL
   );`,
];

/** Largest serialised list kept between requests (a 10k-test list is about 1.6 MB). */
const MAX_CACHED_BODY = 4 * 1024 * 1024;

export interface StoreOptions {
  /** Clock in milliseconds, for `created_at`, `last_scanned` and friends. @default Date.now */
  readonly now?: () => number;
}

export interface ScanRecord {
  readonly tests: readonly FoundTest[];
  readonly ports: readonly FoundPort[];
  /** Stack the scan detected; written only while the project's framework is still null. */
  readonly framework: string | null;
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
export function openStore(file: string, { now = Date.now }: StoreOptions = {}) {
  const { DatabaseSync } = loadSqlite();
  if (file !== ':memory:') closeSync(openSync(file, 'a', 0o600));
  const db = new DatabaseSync(file);
  if (file !== ':memory:') chmodSync(file, 0o600);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  migrate(db);

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
    listPorts: sql('SELECT id, project_id, port, script_name, config_source, last_detected, created_at FROM ports WHERE project_id = ? ORDER BY port, script_name, config_source'),
    nextGeneration: sql('UPDATE projects SET scan_generation = scan_generation + 1 WHERE id = ? RETURNING scan_generation'),
    upsertTest: sql(`INSERT INTO tests (project_id, file_path, framework, cases, created_at, scan_generation) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (project_id, file_path) DO UPDATE SET framework = excluded.framework, cases = excluded.cases, scan_generation = excluded.scan_generation`),
    sweepTests: sql('DELETE FROM tests WHERE project_id = ? AND scan_generation <> ?'),
    deleteTest: sql('DELETE FROM tests WHERE project_id = ? AND file_path = ?'),
    clearPorts: sql('DELETE FROM ports WHERE project_id = ?'),
    insertPort: sql('INSERT INTO ports (project_id, port, script_name, config_source, last_detected, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    finishScan: sql('UPDATE projects SET last_scanned = ?, framework = COALESCE(framework, ?) WHERE id = ?'),
    listSettings: sql('SELECT key, value FROM settings ORDER BY key'),
    dataVersion: sql('PRAGMA data_version'),
    // The list endpoints' bodies, built by SQLite in one step (same fields and order as the row mappers).
    projectsJson: sql(`SELECT json_group_array(json_object('id', id, 'name', name, 'path', path, 'description', description,
      'framework', framework, 'tags', json(tags), 'last_scanned', last_scanned, 'created_at', created_at) ORDER BY id) AS body FROM projects`),
    testsJson: sql(`SELECT json_group_array(json_object('id', id, 'project_id', project_id, 'file_path', file_path, 'framework', framework,
      'status', status, 'last_run', last_run, 'cases', cases, 'created_at', created_at) ORDER BY file_path) AS body FROM tests WHERE project_id = ?`),
    portsJson: sql(`SELECT json_group_array(json_object('id', id, 'project_id', project_id, 'port', port, 'script_name', script_name,
      'config_source', config_source, 'last_detected', last_detected, 'created_at', created_at) ORDER BY port, script_name, config_source) AS body
      FROM ports WHERE project_id = ?`),
    getSnapshot: sql(`SELECT s.data, s.generation FROM scan_snapshots s JOIN projects p ON p.id = s.project_id
      WHERE s.project_id = ? AND s.generation = p.scan_generation`),
    putSnapshot: sql(`INSERT INTO scan_snapshots (project_id, generation, data) VALUES (?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET generation = excluded.generation, data = excluded.data`),
    dropSnapshot: sql('DELETE FROM scan_snapshots WHERE project_id = ?'),
    currentGeneration: sql('SELECT scan_generation FROM projects WHERE id = ?'),
    putSetting: sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
  };

  // Perf: serialised list bodies are kept until the data changes: our own writes clear the cache, and
  // `PRAGMA data_version` moves when another connection (a second server, a CLI) commits.
  const bodies = new Map<string, Buffer>();
  let seenVersion = -1;
  const cachedBody = (key: string, build: () => unknown): Buffer => {
    const version = Number(q.dataVersion.get()?.data_version);
    if (version !== seenVersion) { bodies.clear(); seenVersion = version; }
    let body = bodies.get(key);
    if (!body) {
      body = Buffer.from(String(build()));
      // A huge body (90k tests: 15 MB) is not kept: held into the next scan, it would add to its peak memory.
      if (body.length <= MAX_CACHED_BODY) bodies.set(key, body);
    }
    return body;
  };
  const changed = (): void => bodies.clear();

  /** Runs `fn` in one IMMEDIATE transaction: all of it lands, or none. */
  const transaction = <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
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

    /** Removes a project with its tests and ports; false when it did not exist. */
    deleteProject: (id: number): boolean => (changed(), Number(q.deleteProject.run(id).changes) > 0),

    listTags: (): string[] => q.listTags.all().map((row) => String(row.tag)),
    listTests: (projectId: number): Test[] => q.listTests.all(projectId).map(toTest),
    listPorts: (projectId: number): ProjectPort[] => q.listPorts.all(projectId).map(toPort),

    /** The same lists as JSON bytes, ready to send; cached until the data changes. */
    projectsJson: (): Buffer => cachedBody('projects', () => q.projectsJson.get()?.body),
    testsJson: (projectId: number): Buffer => cachedBody(`tests:${projectId}`, () => q.testsJson.get(projectId)?.body),
    portsJson: (projectId: number): Buffer => cachedBody(`ports:${projectId}`, () => q.portsJson.get(projectId)?.body),

    /**
     * Replaces a project's tests and ports with a scan's findings in one transaction. Tests keep their
     * id while their file is still found. Returns false when the project no longer exists.
     */
    saveScan(projectId: number, { tests, ports, framework, snapshot = null, mode = 'full', delta, base }: ScanRecord): boolean {
      const at = seconds();
      if (mode === 'unchanged') {
        // Nothing found differs from what is stored (the snapshot matched this project's generation):
        // only last_scanned moves, and only the project list's cached body goes stale.
        bodies.delete('projects');
        return transaction(() => {
          const row = q.currentGeneration.get(projectId);
          if (!row) return false;
          q.finishScan.run(at, framework, projectId);
          if (snapshot) q.putSnapshot.run(projectId, Number(row.scan_generation), snapshot);
          return true;
        });
      }
      changed();
      return transaction(() => {
        const row = q.nextGeneration.get(projectId);
        if (!row) return false;
        const generation = Number(row.scan_generation);
        if (delta && base === generation - 1) {
          // The stored rows are the snapshot's scan: write only what differs (1% of files touched: ~1% of rows).
          for (const t of delta.upserts) q.upsertTest.run(projectId, t.file, t.framework, t.cases ?? null, at, generation);
          for (const file of delta.removed) q.deleteTest.run(projectId, file);
        } else {
          for (const t of tests) q.upsertTest.run(projectId, t.file, t.framework, t.cases ?? null, at, generation);
          q.sweepTests.run(projectId, generation);
        }
        q.clearPorts.run(projectId);
        for (const p of ports) q.insertPort.run(projectId, p.port, p.script_name, p.config_source, at, at);
        q.finishScan.run(at, framework, projectId);
        if (snapshot) q.putSnapshot.run(projectId, generation, snapshot);
        else q.dropSnapshot.run(projectId);
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

    /** Checks the database file; 'ok' when intact. */
    integrityCheck: (): string => String(db.prepare('PRAGMA integrity_check').get()?.integrity_check),
    close(): void {
      if (db.isOpen) db.close();
    },
  };
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
  };
}

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && (error as { errstr?: string }).errstr === 'constraint failed' && /UNIQUE/.test(error.message);
}
