import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureStore } from '../seed.ts';
import { mb, type Row } from '../stats.ts';
import { compareEndpoints } from './http.ts';

/**
 * Scale: a store of 1,000 projects x 1,000 tests (seeded once through openStore().saveScan, cached in
 * .bench/stores), served by projdex against a bare server replaying the same bytes.
 */
export async function scaleSuite({ rounds, durationMs, log }: { rounds: number; durationMs: number; log: (line: string) => void }): Promise<Row[]> {
  const cached = ensureStore('scale-1000x1000-v1', { projects: 1000, testsEach: 1000 }, log);
  const size = statSync(join(cached, 'projdex.db')).size;
  // Served from a copy: the server's WAL and server.json never touch the cached store.
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
  cpSync(join(cached, 'projdex.db'), join(dataDir, 'projdex.db'));
  try {
    const rows = await compareEndpoints(dataDir, [
      { name: 'scale: GET /api/projects (1,000)', path: '/api/projects', concurrency: [8] },
      { name: 'scale: GET /api/projects/500', path: '/api/projects/500', concurrency: [8] },
      { name: 'scale: GET /api/projects/500/tests (1,000)', path: '/api/projects/500/tests', concurrency: [8] },
    ], { rounds, durationMs, log });
    rows.push({ name: 'scale: store file, 1M tests', subject: mb(size), baseline: '', ratio: null, target: '', pass: null, note: `${(size / 1e6).toFixed(0)} bytes per test row` });
    return rows;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
