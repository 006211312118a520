// The apply thread's entry (started by applier.ts): the last transaction of a big save (or a project's
// first big save, whole) on its own connection, so the HTTP thread goes on answering (WAL: its readers see
// the old rows until the commit).
import { parentPort, workerData } from 'node:worker_threads';
import { createFinisher, type ApplyRequest, type WholeSaveRequest } from './finish.ts';
import { createStaging } from './staging.ts';
import { loadSqlite } from './sqlite.ts';

/** Opens the thread's connection and answers each request in turn, on its own. */
function serveApplies({ file, maxBytes }: { file: string; maxBytes?: number }): void {
  const db = new (loadSqlite().DatabaseSync)(file);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  if (maxBytes !== undefined) {
    db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / Number(db.prepare('PRAGMA page_size').get()?.page_size)))}`);
  }
  const staging = createStaging(db);
  const finisher = createFinisher(db);

  type Request = ApplyRequest | WholeSaveRequest | 'checkpoint';
  parentPort!.on('message', ({ id, request }: { id: number; request: Request }) => {
    if (request === 'checkpoint') {
      // The copy of the WAL into the database, here rather than on the HTTP thread (see applier.ts).
      try { db.exec('PRAGMA wal_checkpoint(PASSIVE)'); } catch { /* the next checkpoint does it */ }
      parentPort!.postMessage({ id, ok: true });
      return;
    }
    try {
      db.exec('BEGIN IMMEDIATE');
      let outcome: { ok: boolean; generation?: number; list?: string };
      try {
        if ('tests' in request) outcome = finisher.saveWhole(request);
        else {
          const generation = finisher.applyStaged(staging, request);
          outcome = generation === false ? { ok: false } : { ok: true, generation };
        }
        db.exec('COMMIT');
      } catch (error) {
        try { if (db.isTransaction) db.exec('ROLLBACK'); } catch { /* keep the first error */ }
        throw error;
      }
      // A list travels as bytes of its own, moved to the HTTP thread rather than copied.
      const list = outcome.list === undefined ? undefined : new TextEncoder().encode(outcome.list);
      const { ok, generation } = outcome;
      parentPort!.postMessage({ id, ok, generation, list }, list ? [list.buffer] : []);
    } catch (error) {
      // SQLite's codes and an HttpError's answer travel as fields: the HTTP side answers as it would itself.
      const { message, code, errcode, errstr, status } = error as Error & Record<string, unknown>;
      parentPort!.postMessage({ id, error: { message, code, errcode, errstr, status } });
    }
  });
}

serveApplies(workerData as { file: string; maxBytes?: number });
