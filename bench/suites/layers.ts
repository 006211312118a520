// What each reuse layer of the scan engine is worth: the same three scans (a first scan, a rescan of the
// unchanged tree, a rescan after 1% of its test files changed) with the engine's cache as a scan process
// makes it, then with one layer switched off at a time, each timed against `find` in the same rounds. The
// scans run in this process, as a scan process runs them (no server, no IPC, no save), so a row's ratio is
// the engine's alone.
import { cpSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScanCache, type ScanCacheOptions } from '../../src/scan/incremental/cache.ts';
import { scan } from '../../src/scan/index.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { alternate, median, ms, timed, type Row } from '../stats.ts';
import { ensureTree, touchFraction } from '../tree.ts';
import { runFind } from './scan.ts';

export interface LayersSuiteOptions {
  readonly size: number;
  readonly rounds: number;
  readonly log: (line: string) => void;
}

// As process.ts makes it (no chdir: this process resolves other paths relatively).
const AS_A_SCAN_PROCESS: ScanCacheOptions = { snapshotBytes: 48 * 1024 * 1024, shareWalks: true };

const VARIANTS: ReadonlyArray<readonly [name: string, options: ScanCacheOptions]> = [
  ['every layer on', AS_A_SCAN_PROCESS],
  ['no decoded-snapshot cache (nor unit replay)', { ...AS_A_SCAN_PROCESS, snapshotBytes: 0 }],
  ['no unit replay', { ...AS_A_SCAN_PROCESS, replayUnits: false }],
  ['no count patching', { ...AS_A_SCAN_PROCESS, patchCounts: false }],
  ['no two-thread walk', { ...AS_A_SCAN_PROCESS, shareWalks: false, helper: true }],
];

export async function layersSuite({ size, rounds, log }: LayersSuiteOptions): Promise<Row[]> {
  const rows: Row[] = [];
  const root = ensureTree(size, { log });
  // The 1% rows edit files: on a private copy, walked through its real path.
  const copy = join(realpathSync(tmpdir()), `projdex-bench-layers-${process.pid}`);
  rmSync(copy, { recursive: true, force: true });
  cpSync(realpathSync(root), copy, { recursive: true });
  try {
    const files = (await walk(copy, { maxEntries: Infinity, timeoutMs: Infinity })).files;
    const tests = (await scan(copy)).tests.map((t) => t.file);
    await runFind(copy);
    for (const [name, options] of VARIANTS) {
      log(`layers: ${name}`);
      const cache = createScanCache(options);
      try {
        const first = await alternate(rounds, () => timed(() => scan(copy, { cache, racyMs: 50 })), () => runFind(copy));
        let previous = (await scan(copy, { cache, racyMs: 50 })).snapshot;
        await new Promise((r) => setTimeout(r, 100));
        previous = (await scan(copy, { cache, racyMs: 50, previous })).snapshot ?? previous;
        const same = await alternate(rounds, () => timed(async () => {
          const r = await scan(copy, { cache, racyMs: 50, previous });
          previous = r.snapshot ?? previous;
        }), () => runFind(copy));
        const touched = await alternate(rounds, async (round) => {
          await new Promise((r) => setTimeout(r, 100)); // past the racy window of the last round's edits
          const undo = touchFraction(copy, tests, 0.01, 300 + round);
          try {
            return await timed(async () => {
              const r = await scan(copy, { cache, racyMs: 50, previous });
              previous = r.snapshot ?? previous;
            });
          } finally {
            undo();
            await new Promise((r) => setTimeout(r, 100));
            previous = (await scan(copy, { cache, racyMs: 50, previous })).snapshot ?? previous;
          }
        }, () => runFind(copy));
        for (const [what, r] of [['first scan', first], ['rescan, unchanged', same], ['rescan, 1% of test files', touched]] as const) {
          rows.push(row(`layers ${label(size)}: ${name}: ${what}`, r));
        }
      } finally {
        await cache.close();
      }
    }
    log(`layers: ${files.length.toLocaleString('en')} files, ${tests.length.toLocaleString('en')} tests`);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
  return rows;
}

function row(name: string, r: { subject: number[]; baseline: number[] }): Row {
  const s = median(r.subject);
  const b = median(r.baseline);
  return { name, subject: ms(s), baseline: ms(b), ratio: s / b, target: '', pass: null };
}

const label = (size: number): string => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);
