import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, send } from '../load.ts';
import { spawnProjdex } from '../procs.ts';
import { median, ms, percentile, type Row } from '../stats.ts';
import { ensureTree } from '../tree.ts';

export interface Variant {
  /** Row label suffix, e.g. `full rescans`. */
  readonly name: string;
  /** `full`: the same project rescanned with `?full=1`; `first`: a new project each round (every row inserted). */
  readonly kind: 'full' | 'first';
}

/** Sends GET /health back to back (concurrency 1, keep-alive) until `until` settles; returns the latencies. */
export async function pollHealth(url: string, until: Promise<unknown>): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let done = false;
  until.then(() => { done = true; }, () => { done = true; });
  const latencies: number[] = [];
  try {
    while (!done) {
      const started = performance.now();
      const res = await send(`${url}/health`, { agent });
      if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
      latencies.push(performance.now() - started);
    }
  } finally {
    agent.destroy();
  }
  return latencies;
}

/**
 * Responsiveness: p99 of /health while projdex scans the `size`-file tree and saves what it found, per
 * variant (full rescans of one project; first scans of a new project, inserting every row), against the
 * same server's idle /health p99.
 */
export async function healthSuite({ size, rounds, variants, nodeArgs = [], log }: {
  size: number; rounds: number; variants: readonly Variant[]; nodeArgs?: readonly string[]; log: (line: string) => void;
}): Promise<Row[]> {
  const root = ensureTree(size, { log });
  const rows: Row[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
  const server = await spawnProjdex(dataDir, { nodeArgs });
  try {
    let project = await json<{ id: number }>(`${server.url}/api/projects`, { method: 'POST', body: { name: 'mono', path: root } });
    await json(`${server.url}/api/projects/${project.id}/scan`, { method: 'POST' }); // warm cache and JIT
    for (const variant of variants) {
      log(`health: ${variant.name}, ${rounds} scans of ${size.toLocaleString('en')} files`);
      const busy: number[] = [];
      const idle: number[] = [];
      const scans: number[] = [];
      for (let round = 0; round < rounds; round++) {
        if (variant.kind === 'first') {
          await json(`${server.url}/api/projects/${project.id}`, { method: 'DELETE' });
          project = await json(`${server.url}/api/projects`, { method: 'POST', body: { name: 'mono', path: root } });
        }
        idle.push(...await pollHealth(server.url, new Promise((r) => setTimeout(r, 300))));
        const started = performance.now();
        const path = `/api/projects/${project.id}/scan${variant.kind === 'full' ? '?full=1' : ''}`;
        const scanning = json(`${server.url}${path}`, { method: 'POST' }).then(() => scans.push(performance.now() - started));
        busy.push(...await pollHealth(server.url, scanning));
        await scanning;
      }
      const p99 = percentile(busy, 99);
      rows.push({
        name: `/health p99 during ${size / 1000}k scan, ${variant.name}`,
        subject: ms(p99), baseline: ms(percentile(idle, 99)), ratio: p99 / percentile(idle, 99),
        target: '< 20 ms', pass: p99 < 20,
        note: `max ${ms(busy.reduce((a, b) => Math.max(a, b), 0))}, ${busy.length} polls, scan ${ms(median(scans))}`,
      });
    }
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
