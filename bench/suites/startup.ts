import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send } from '../load.ts';
import { spawnBare, spawnProjdex, type Child } from '../procs.ts';
import { alternate, median, ms, type Row } from '../stats.ts';

/** Spawn to the first 200 on /health (the URL comes from the child's first stdout line). */
async function timeToHealthy(start: () => Promise<Child>): Promise<number> {
  const started = performance.now();
  const child = await start();
  try {
    for (;;) {
      const res = await send(`${child.url}/health`).catch(() => undefined);
      if (res?.status === 200) return performance.now() - started;
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    await child.stop();
  }
}

/** Start-up: `node src/bin.ts` against a bare node:http script, alternating; an existing data dir. */
export async function startupSuite({ rounds, log }: { rounds: number; log: (line: string) => void }): Promise<Row[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
  try {
    await timeToHealthy(() => spawnProjdex(dataDir)); // creates the database, so every timed start opens an existing one
    log(`startup: ${rounds} rounds`);
    const r = await alternate(rounds, () => timeToHealthy(() => spawnProjdex(dataDir)), () => timeToHealthy(() => spawnBare()));
    const s = median(r.subject);
    const b = median(r.baseline);
    return [{ name: 'start-up, spawn to first 200 /health', subject: ms(s), baseline: ms(b), ratio: s / b, target: '<= 1.5x', pass: s / b <= 1.5 }];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
