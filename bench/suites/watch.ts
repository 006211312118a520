import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json } from '../load.ts';
import { spawnProjdex } from '../procs.ts';
import { median, ms, type Row } from '../stats.ts';
import { ensureTree } from '../tree.ts';

/**
 * Watch mode: from writing a new test file into a watched project to the file showing in
 * `GET /api/projects/:id/tests` (polled every 10 ms), per tree size. Watch mode is switched on through
 * the `watch` setting, as a user would. No baseline: the target is absolute (within a second).
 */
export async function watchSuite({ sizes, rounds, nodeArgs = [], log }: {
  sizes: readonly number[]; rounds: number; nodeArgs?: readonly string[]; log: (line: string) => void;
}): Promise<Row[]> {
  const rows: Row[] = [];
  for (const size of sizes) {
    const root = ensureTree(size, { log });
    const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
    const server = await spawnProjdex(dataDir, { nodeArgs });
    const written: string[] = [];
    try {
      const project = await json<{ id: number }>(`${server.url}/api/projects`, { method: 'POST', body: { name: 'mono', path: root } });
      await json(`${server.url}/api/projects/${project.id}/scan`, { method: 'POST' });
      await json(`${server.url}/api/settings/watch`, { method: 'PUT', body: { value: 'on' } });
      await new Promise((r) => setTimeout(r, 3000)); // the setting is picked up within 2 s
      log(`watch ${size / 1000}k: ${rounds} changes`);
      const took: number[] = [];
      let polled = false;
      for (let round = 0; round < rounds; round++) {
        const file = `packages/pkg-0000/src/watch-${process.pid}-${round}.test.ts`;
        written.push(join(root, file));
        const started = performance.now();
        writeFileSync(join(root, file), "it('w', () => {});\n");
        for (;;) {
          const tests = await json<Array<{ file_path: string }>>(`${server.url}/api/projects/${project.id}/tests`);
          if (tests.some((t) => t.file_path === file)) break;
          if (performance.now() - started > 15_000) { polled = true; break; }
          await new Promise((r) => setTimeout(r, 10));
        }
        took.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, 500));
      }
      const m = median(took);
      rows.push({
        name: `watch ${size / 1000}k: change to visible`, subject: ms(m), baseline: '', ratio: null,
        target: '< 1 s', pass: m < 1000, note: `max ${ms(Math.max(...took))}${polled ? '; some changes never seen within 15 s' : ''}`,
      });
    } finally {
      for (const file of written) rmSync(file, { force: true });
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}
