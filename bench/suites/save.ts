import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json } from '../load.ts';
import { projdexBin, spawnServer, type Child } from '../procs.ts';
import { median, ms, percentile, type Row } from '../stats.ts';
import { pollHealth } from './health.ts';

const CACHE = join(import.meta.dirname, '..', '..', '.bench', 'trees');
/** Bump when the layout below changes, so a cached tree of the old shape is not reused. */
const LAYOUT = 1;

/**
 * A tree whose scan finds `tests` test files: one vitest package, the files 500 to a folder, one line each
 * (the scan reads them to count cases). Generated once under `.bench/trees/tests-<n>-v<LAYOUT>` (a name the
 * `mono-*` trees do not use), with a `.done` marker written last.
 */
export function ensureTestTree(tests: number, log: (line: string) => void): string {
  const name = `tests-${tests}-v${LAYOUT}`;
  const root = join(CACHE, name);
  const marker = join(CACHE, `${name}.done`);
  if (existsSync(marker) && existsSync(root)) return root;
  rmSync(root, { recursive: true, force: true });
  log(`generating a ${tests.toLocaleString('en')}-test tree in ${root} ...`);
  const started = performance.now();
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'many', private: true, scripts: { test: 'vitest run' } }));
  const body = "import { test } from 'vitest';\ntest('works', () => {});\n";
  for (let i = 0; i < tests; i++) {
    const dir = join(root, 'src', `p${Math.floor(i / 10_000)}`, `d${Math.floor(i / 500) % 20}`);
    if (i % 500 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `file-${i}.test.ts`), body);
  }
  writeFileSync(marker, `${new Date().toISOString()}\n`);
  log(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return root;
}

/**
 * This checkout, and with `SAVE_BASELINE_BIN=<checkout>/src/bin.ts` a baseline checkout too (ABBA), e.g.
 * `git archive <commit> src | tar -x -C /tmp/base && ln -s $PWD/node_modules /tmp/base/`.
 */
function defaultSubjects(): SaveSubject[] {
  const base = process.env.SAVE_BASELINE_BIN;
  return base ? [{ name: 'this', bin: projdexBin() }, { name: 'baseline', bin: base }] : [{ name: '', bin: projdexBin() }];
}

/** One server under test: a name for the rows and the bin it runs (`src/bin.ts` of some checkout). */
export interface SaveSubject { readonly name: string; readonly bin: string }

/**
 * The HTTP thread while the largest scans are saved: projdex runs as a child process (`bin --port 0`)
 * and scans a tree of `tests` test files through `POST /api/projects/:id/scan`; this process polls
 * /health back to back meanwhile. Each round scans twice: a first scan (new project: every row inserted)
 * and a `?full=1` rescan (every row rewritten). With two subjects (e.g. this branch and a baseline
 * checkout) the rounds alternate ABBA, each subject on its own server.
 */
export async function saveSuite({ tests, rounds, log, subjects = defaultSubjects() }: {
  tests: number; rounds: number; log: (line: string) => void; subjects?: readonly SaveSubject[];
}): Promise<Row[]> {
  const root = ensureTestTree(tests, log);
  const stats = subjects.map(() => ({ busy: [] as number[][], idle: [] as number[], scans: [] as number[], found: 0 }));
  const servers: { server: Child; dataDir: string }[] = [];
  try {
    for (const s of subjects) {
      const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-save-'));
      servers.push({ server: await spawnServer([s.bin, '--port', '0', '--data-dir', dataDir]), dataDir });
    }
    for (let round = 0; round < rounds * 2; round++) {
      // ABBA: round r runs subject order [0, 1] when r % 4 is 0 or 3, [1, 0] otherwise.
      const order = subjects.map((_, i) => i);
      if (subjects.length > 1 && (round % 4 === 1 || round % 4 === 2)) order.reverse();
      for (const i of order) {
        const { url } = servers[i]!.server;
        const st = stats[i]!;
        log(`save: ${subjects[i]!.name || 'projdex'} round ${round + 1}/${rounds * 2}, ${tests.toLocaleString('en')} tests`);
        const project = await json<{ id: number }>(`${url}/api/projects`, { method: 'POST', body: { name: `many-${round}`, path: root } });
        const busy: number[] = [];
        for (const path of [`/api/projects/${project.id}/scan`, `/api/projects/${project.id}/scan?full=1`]) {
          st.idle.push(...await pollHealth(url, new Promise((r) => setTimeout(r, 300))));
          const started = performance.now();
          const scanning = json<{ testsFound: number }>(`${url}${path}`, { method: 'POST' })
            .then((answer) => { st.scans.push(performance.now() - started); st.found = answer.testsFound; });
          for (const ms of await pollHealth(url, scanning)) busy.push(ms); // a spread overflows the stack past ~120k polls
          await scanning;
        }
        st.busy.push(busy);
        await json(`${url}/api/projects/${project.id}`, { method: 'DELETE' });
      }
    }
  } finally {
    for (const { server, dataDir } of servers) {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return subjects.map((s, i) => {
    const st = stats[i]!;
    // The median over rounds of each round's p99 (and max): one noisy round does not decide the figure.
    const p99 = median(st.busy.map((b) => percentile(b, 99)));
    const base = percentile(st.idle, 99);
    return {
      name: `/health p99 during ${tests / 1000}k-test scans+saves${s.name ? `, ${s.name}` : ''}`,
      subject: ms(p99), baseline: ms(base), ratio: p99 / base, target: '< 20 ms', pass: p99 < 20,
      note: `median max ${ms(median(st.busy.map((b) => b.reduce((x, y) => Math.max(x, y), 0))))}, ${st.busy.flat().length} polls, `
        + `scan ${ms(median(st.scans))}, ${st.found} found`,
    };
  });
}
