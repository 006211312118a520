import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, recordResponses, type LoadResult } from '../load.ts';
import { spawnBare, spawnProjdex, type Child } from '../procs.ts';
import { alternate, median, ms, rps, type Row } from '../stats.ts';

export interface Endpoint {
  /** Row label, e.g. `GET /api/projects (20)`. */
  readonly name: string;
  readonly path: string;
  readonly concurrency: readonly number[];
  /** Minimum ratio of projdex's requests/s to the bare server's, by concurrency. */
  readonly targets?: Readonly<Record<number, number>>;
}

/**
 * Serves the store in `dataDir` with projdex and, in another process, a bare node:http server that
 * replays projdex's exact responses; then loads both alternately for each endpoint and concurrency.
 */
export async function compareEndpoints(dataDir: string, endpoints: readonly Endpoint[], { rounds, durationMs, nodeArgs = [], log }: { rounds: number; durationMs: number; nodeArgs?: readonly string[]; log: (line: string) => void }): Promise<Row[]> {
  const rows: Row[] = [];
  const projdex = await spawnProjdex(dataDir, { nodeArgs });
  let bare: Child | undefined;
  const routesFile = join(dataDir, 'bare-routes.json');
  try {
    writeFileSync(routesFile, JSON.stringify(await recordResponses(projdex.url, endpoints.map((e) => e.path))));
    bare = await spawnBare(routesFile);
    for (const endpoint of endpoints) {
      for (const concurrency of endpoint.concurrency) {
        log(`http: ${endpoint.name} c=${concurrency}, ${rounds} rounds`);
        const run = (child: Child) => () => load(child.url, endpoint.path, { concurrency, durationMs });
        const r = await alternate(rounds, run(projdex), run(bare));
        rows.push(loadRow(`${endpoint.name} c=${concurrency}`, r, endpoint.targets?.[concurrency]));
      }
    }
  } finally {
    await Promise.all([projdex.stop(), bare?.stop()]);
    rmSync(routesFile, { force: true });
  }
  return rows;
}

function loadRow(name: string, r: { subject: LoadResult[]; baseline: LoadResult[] }, min: number | undefined): Row {
  const pick = (list: LoadResult[], key: 'rps' | 'p50' | 'p99'): number => median(list.map((x) => x[key]));
  const s = pick(r.subject, 'rps');
  const b = pick(r.baseline, 'rps');
  const errors = [...r.subject, ...r.baseline].reduce((sum, x) => sum + x.errors, 0);
  return {
    name, subject: rps(s), baseline: rps(b), ratio: s / b,
    target: min === undefined ? '' : `>= ${min.toFixed(1)}x`, pass: min === undefined ? null : s / b >= min,
    note: `p50 ${ms(pick(r.subject, 'p50'))}/${ms(pick(r.baseline, 'p50'))}, p99 ${ms(pick(r.subject, 'p99'))}/${ms(pick(r.baseline, 'p99'))}` +
      `, ${(r.subject[0]!.bytes / Math.max(1, r.subject[0]!.count) / 1024).toFixed(0)} KB/resp${errors ? `, ${errors} ERRORS` : ''}`,
  };
}
