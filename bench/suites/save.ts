import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/server.ts';
import type { FoundTest } from '../../src/scan/types.ts';
import { ms, percentile, type Row } from '../stats.ts';

/** GET /health back to back on this process's own server until `until` settles; the latencies. */
async function poll(url: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.then(() => { done = true; }, () => { done = true; });
  const out: number[] = [];
  while (!done) {
    const started = performance.now();
    await (await fetch(`${url}/health`)).arrayBuffer();
    out.push(performance.now() - started);
  }
  return out;
}

/**
 * The HTTP thread while a scan of `tests` test files is saved: p99 of /health during the sliced save
 * (what the scanner does) against the same server's idle p99, and the one-transaction save for scale.
 * The server runs in this process, so its thread is the one the polls measure.
 */
export async function saveSuite({ tests, rounds, log }: { tests: number; rounds: number; log: (line: string) => void }): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-save-'));
  const server = await startServer({ port: 0, dataDir, logger: { error: () => {} } });
  try {
    const { id } = server.store.insertProject({ name: 'big', path: dataDir })!;
    const found = (round: number): FoundTest[] => Array.from({ length: tests }, (_, i) => ({
      file: `packages/p${i % 200}/src/${round % 2 ? 'a' : 'b'}/file-${i}.test.ts`, framework: 'vitest', cases: i % 7 }));
    const idle: number[] = [];
    const sliced: number[] = [];
    const whole: number[] = [];
    for (let round = 0; round < rounds; round++) {
      log(`save: round ${round + 1}/${rounds}, ${tests.toLocaleString('en')} tests`);
      idle.push(...await poll(server.url, new Promise((r) => setTimeout(r, 300))));
      const rows = found(round);
      sliced.push(...await poll(server.url, server.store.saveScanSliced(id, { tests: rows, ports: [], framework: null })));
      const other = found(round + 1);
      // One transaction: the poll waiting on it is answered only when it is over.
      const saving = new Promise<void>((resolve) => setTimeout(() => { server.store.saveScan(id, { tests: other, ports: [], framework: null }); resolve(); }, 20));
      whole.push(...await poll(server.url, saving));
    }
    const p99 = percentile(sliced, 99);
    const base = percentile(idle, 99);
    return [{
      name: `/health p99 during a ${tests / 1000}k-test save`, subject: ms(p99), baseline: ms(base), ratio: p99 / base,
      target: '< 20 ms', pass: p99 < 20,
      note: `max ${ms(Math.max(...sliced))}, ${sliced.length} polls; one transaction instead: max ${ms(Math.max(...whole))}`,
    }];
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
