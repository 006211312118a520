import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, recordResponses, type LoadResult } from '../load.ts';
import { spawnBare, spawnProjdex, type Child } from '../procs.ts';
import { alternate, median, ms, rps, type Row } from '../stats.ts';

// Write throughput, the figure test/load.test.ts and test/fuzz.test.ts used to assert as floors
// (> 600 requests in 3 s, >= 1000 in 4.5 s): the tests now only check correctness, the speed lives here.

const PATH = '/api/settings/bench';
const BODY = { value: 'a value of moderate length, like a path or a flag' };

/**
 * `PUT /api/settings/:key` at `concurrency` connections: each request is one SQLite write transaction
 * (WAL, synchronous=NORMAL). Baseline: the bare node:http server answering the same bytes without storing.
 */
export async function writesSuite(dataDir: string, { concurrency, rounds, durationMs, log }: { concurrency: readonly number[]; rounds: number; durationMs: number; log: (line: string) => void }): Promise<Row[]> {
  const rows: Row[] = [];
  const projdex = await spawnProjdex(dataDir);
  let bare: Child | undefined;
  const routesFile = join(dataDir, 'bare-write-routes.json');
  try {
    writeFileSync(routesFile, JSON.stringify(await recordResponses(projdex.url, [PATH], { method: 'PUT', body: BODY })));
    bare = await spawnBare(routesFile);
    for (const c of concurrency) {
      log(`writes: PUT ${PATH} c=${c}, ${rounds} rounds`);
      const run = (child: Child) => () => load(child.url, PATH, { concurrency: c, durationMs, method: 'PUT', body: BODY });
      const r = await alternate(rounds, run(projdex), run(bare));
      const pick = (list: LoadResult[], key: 'rps' | 'p50' | 'p99'): number => median(list.map((x) => x[key]));
      const s = pick(r.subject, 'rps');
      const b = pick(r.baseline, 'rps');
      const errors = [...r.subject, ...r.baseline].reduce((sum, x) => sum + x.errors, 0);
      rows.push({
        name: `PUT ${PATH} (one write each) c=${c}`, subject: rps(s), baseline: rps(b), ratio: s / b, target: '', pass: null,
        note: `p50 ${ms(pick(r.subject, 'p50'))}/${ms(pick(r.baseline, 'p50'))}, p99 ${ms(pick(r.subject, 'p99'))}/${ms(pick(r.baseline, 'p99'))}${errors ? `, ${errors} ERRORS` : ''}`,
      });
    }
  } finally {
    await Promise.all([projdex.stop(), bare?.stop()]);
    rmSync(routesFile, { force: true });
  }
  return rows;
}
