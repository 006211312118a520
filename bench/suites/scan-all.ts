import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { json } from '../load.ts';
import { spawnProjdex } from '../procs.ts';
import { alternate, median, ms, timed, underCeiling, type Row } from '../stats.ts';
import { ensureTree } from '../tree.ts';

export interface ScanAllSuiteOptions {
  readonly rounds: number;
  /** Projects registered (copies of the 10k tree). @default 20 */
  readonly projects?: number;
  readonly nodeArgs?: readonly string[];
  readonly log: (line: string) => void;
}

/**
 * `POST /api/projects/scan/all?full=1` over N copies of the 10k tree against the same N scans one at a time
 * (`POST /api/projects/:id/scan?full=1`, each awaited), alternating, on one server: the ratio is how much
 * running scans side by side (the pool's processes) gains. Full scans both ways, so neither side answers
 * from a snapshot. The copies live under the OS temp dir (`projdex-bench-all-N`), kept between runs.
 */
export async function scanAllSuite({ rounds, projects = 20, nodeArgs = [], log }: ScanAllSuiteOptions): Promise<Row[]> {
  const source = realpathSync(ensureTree(10_000, { log }));
  const base = join(realpathSync(tmpdir()), `projdex-bench-all-${projects}`);
  const roots = Array.from({ length: projects }, (_, i) => join(base, `p${String(i).padStart(2, '0')}`));
  if (!existsSync(join(base, '.done'))) {
    log(`scan/all: copying the 10k tree ${projects} times into ${base}`);
    rmSync(base, { recursive: true, force: true });
    mkdirSync(base, { recursive: true });
    for (const root of roots) cpSync(source, root, { recursive: true });
    writeFileSync(join(base, '.done'), `${new Date().toISOString()}\n`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
  const server = await spawnProjdex(dataDir, { nodeArgs });
  try {
    const ids: number[] = [];
    for (const [i, path] of roots.entries()) {
      ids.push((await json<{ id: number }>(`${server.url}/api/projects`, { method: 'POST', body: { name: `all-${i}`, path } })).id);
    }
    const all = (): Promise<number> => timed(async () => {
      const answer = await json<unknown[]>(`${server.url}/api/projects/scan/all?full=1`, { method: 'POST' });
      if (!Array.isArray(answer) || answer.length !== projects) throw new Error('scan/all: unexpected answer');
    });
    const oneByOne = (): Promise<number> => timed(async () => {
      for (const id of ids) await json(`${server.url}/api/projects/${id}/scan?full=1`, { method: 'POST' });
    });
    // CPU seconds (user + system) of the server and its live scan processes: what one at a time leaves idle
    // on the second core is all scan/all can gain.
    const cpu = (): number => cpuSeconds(server.proc.pid!);
    const measured = async (fn: () => Promise<number>, into: number[]): Promise<number> => {
      const before = cpu();
      const took = await fn();
      into.push((cpu() - before) / (took / 1000));
      return took;
    };
    const busyAll: number[] = [];
    const busyOne: number[] = [];
    log(`scan/all: warming (caches, scan processes)`);
    await all();
    await oneByOne();
    log(`scan/all: ${projects} projects of 10k files, scan/all vs one at a time, ${rounds} rounds`);
    const r = await alternate(rounds, () => measured(all, busyAll), () => measured(oneByOne, busyOne));
    const s = median(r.subject);
    const b = median(r.baseline);
    // The target is a speed-up: one at a time / scan/all >= 1.6, i.e. scan/all <= 0.625x one at a time.
    return [{
      name: `scan/all ${projects}x10k vs one at a time`, subject: ms(s), baseline: ms(b), ratio: s / b,
      target: '<= 0.625x', ...underCeiling(s / b, 0.625),
      note: `speed-up ${(b / s).toFixed(2)}x (target >= 1.6x); ${availableParallelism()} cores`,
    }, {
      name: `scan/all ${projects}x10k: cores busy (CPU s / wall s)`, subject: median(busyAll).toFixed(2),
      baseline: median(busyOne).toFixed(2), ratio: null, target: '', pass: null,
      note: 'server, its scan processes and git; one at a time near the core count leaves scan/all nothing to gain',
    }];
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * User + system CPU seconds of `pid`, of its children it has waited for (each scan's `git status`, a scan
 * process that ended) and of its live children (Linux /proc; NaN elsewhere).
 */
function cpuSeconds(pid: number): number {
  const of = (p: string, reaped = false): number => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime, stime, then cutime, cstime, in clock ticks (USER_HZ = 100)
      const ticks = Number(fields[11]) + Number(fields[12]) + (reaped ? Number(fields[13]) + Number(fields[14]) : 0);
      return ticks / 100;
    } catch {
      return 0;
    }
  };
  try {
    const kids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    return of(String(pid), true) + kids.reduce((sum, k) => sum + of(k), 0);
  } catch {
    return NaN;
  }
}
