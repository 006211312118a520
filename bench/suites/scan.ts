import { spawn } from 'node:child_process';
import { closeSync, cpSync, fstatSync, lstatSync, mkdtempSync, openSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createHelper } from '../../src/scan/walk/helper.ts';
import { SNAPSHOT_MAX_ENTRIES } from '../../src/scan/index.ts';
import { readWhole } from '../../src/scan/read-whole.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { createWalkSharing, walkShared } from '../../src/scan/walk/walk-split.ts';
import { commitTree } from '../git-tree.ts';
import { json } from '../load.ts';
import { sampleTogether, spawnProjdex } from '../procs.ts';
import { alternate, mb, median, ms, timed, underCeiling, type Row } from '../stats.ts';
import { ensureTree, touchFraction } from '../tree.ts';

export interface ScanSuiteOptions {
  readonly sizes: readonly number[];
  readonly rounds: number;
  readonly nodeArgs?: readonly string[];
  readonly log: (line: string) => void;
}

/** `find ROOT -type f > /dev/null`, spawn to exit. */
export function runFind(root: string): Promise<number> {
  return timed(() => new Promise<void>((resolve, reject) => {
    const proc = spawn('find', [root, '-type', 'f'], { stdio: ['ignore', 'ignore', 'inherit'] });
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`find exited with ${code}`))));
  }));
}

const label = (size: number): string => (size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`);

/**
 * Scan vs find, then rescans (unchanged, 1% changed), per tree size. The scan is the full
 * `POST /api/projects/:id/scan` round trip against projdex in a child process; find runs on the same
 * tree, warm cache, alternating with it.
 */
export async function scanSuite({ sizes, rounds, nodeArgs = [], log }: ScanSuiteOptions): Promise<Row[]> {
  const rows: Row[] = [];
  // The walk-alone row walks as a scan process does: with the helper thread, loaded before it is timed.
  const helper = createHelper();
  const sharing = createWalkSharing(helper);
  helper.start();
  const copies: string[] = [];
  for (const size of sizes) {
    const root = ensureTree(size, { log });
    const n = label(size);
    const sizeRounds = size >= 1_000_000 ? Math.min(rounds, 3) : rounds;
    const dataDir = mkdtempSync(join(tmpdir(), 'projdex-bench-'));
    const server = await spawnProjdex(dataDir, { nodeArgs });
    const together = sampleTogether(server.proc.pid!);
    try {
      let project = await json<{ id: number }>(`${server.url}/api/projects`, { method: 'POST', body: { name: 'mono', path: root } });
      let last: { testsFound: number; truncated: string | null; tests?: unknown } = { testsFound: 0, truncated: null };
      // (tests: the API's Test records, each with `file_path`)
      const scanOnce = async (): Promise<number> => timed(async () => {
        last = await json(`${server.url}/api/projects/${project.id}/scan`, { method: 'POST' });
      });
      log(`scan ${n}: warming the cache`);
      await runFind(root);
      await scanOnce();

      log(`scan ${n}: first scan vs find, ${sizeRounds} rounds`);
      const fresh = await alternate(sizeRounds, async () => {
        // A new project each round, so every timed scan inserts its tests from nothing.
        await json(`${server.url}/api/projects/${project.id}`, { method: 'DELETE' });
        project = await json(`${server.url}/api/projects`, { method: 'POST', body: { name: 'mono', path: root } });
        return scanOnce();
      }, () => runFind(root));
      const note = `${last.testsFound.toLocaleString('en')} tests${last.truncated ? `; TRUNCATED: ${last.truncated}` : ''}`;
      rows.push(ratioRow(`scan ${n} vs find`, fresh, size === 100_000 ? 1.8 : null, note));
      // What a first scan cannot go below: the walk as a scan process takes it (shared with the helper thread
      // while the root is not known big, walk-split.ts), then one read of each test file to count its cases.
      // `stampsUpTo` as a scan sets it: past it the root counts as big and its later walks are not shared.
      const unlimited = { maxEntries: Infinity, timeoutMs: Infinity, stampsUpTo: SNAPSHOT_MAX_ENTRIES };
      const firstWalk = await alternate(sizeRounds, () => timed(() => walkShared(root, unlimited, true, sharing)), () => runFind(root));
      rows.push(ratioRow(`the walk alone, as a scan process takes it, ${n}, vs find`, firstWalk, null,
        `${sharing.lastParts} part(s) in the last round`));
      const found = (last.tests as Array<{ file_path: string }> | undefined) ?? [];
      const testPaths = found.map((t) => join(root, t.file_path));
      const reads = await alternate(sizeRounds, () => timed(async () => { readEach(testPaths); }),
        () => runFind(root));
      const firstFloor = (ratioOf(firstWalk) + ratioOf(reads)).toFixed(2);
      rows.push(ratioRow(`one read of each test file, ${n}, vs find`, reads, null,
        `with the row above: ${firstFloor}x, a first scan's floor before rules, save and answer`));

      log(`scan ${n}: rescan, nothing changed`);
      const same = await alternate(sizeRounds, scanOnce, () => runFind(root));
      rows.push(ratioRow(`rescan ${n}, unchanged, vs find`, same, size === 100_000 ? 0.25 : null));
      // What no stat-based check can go below: one lstat per walked directory and per test file (the files a
      // rescan must stat; configs add a few hundred), in this process, one thread.
      const walked = await walk(root, { maxEntries: Infinity, timeoutMs: Infinity });
      const listed = (last.tests as Array<{ file_path: string }> | undefined) ?? [];
      const floorPaths = [...walked.dirs, ...listed.map((t) => t.file_path)].map((p) => join(root, p));
      const floor = await alternate(sizeRounds, () => timed(async () => {
        for (const p of floorPaths) lstatSync(p, { throwIfNoEntry: false });
      }), () => runFind(root));
      rows.push(ratioRow(`lstat of each directory and test file, ${n}, vs find`, floor, null,
        `${floorPaths.length.toLocaleString('en')} paths: a stat check's floor`));
      // The same stats as the quick check takes them (relative to the root, half on a second thread), and the
      // part of the answer no check can skip (the list the scan answer carries, as GET /tests sends it): their
      // sum is what an unchanged rescan through the API can reach without a change journal.
      const relativePaths = [...walked.dirs, ...listed.map((t) => t.file_path)].map((p) => (p === '' ? '.' : p));
      const twoThreads = await alternate(sizeRounds, () => statOnTwoThreads(root, relativePaths), () => runFind(root));
      rows.push(ratioRow(`the same lstats, relative, on two threads, ${n}, vs find`, twoThreads, null,
        'as the quick check takes them'));
      const answer = await alternate(sizeRounds, () => timed(async () => {
        await json(`${server.url}/api/projects/${project.id}/tests`);
      }), () => runFind(root));
      rows.push(ratioRow(`GET tests (the scan answer's list), ${n}, vs find`, answer, null,
        `with the row above: ${(ratioOf(twoThreads) + ratioOf(answer)).toFixed(2)}x, an unchanged rescan's floor without a change journal`));

      // The 1% row edits files: on a private copy, so the shared cached tree (and other benches reading it)
      // never changes. Walked through its real path: the walk refuses directories reached through a symlink
      // (`.bench` is often one), and a walk of 2 files made this row touch nothing at all.
      log(`scan ${n}: copying the tree for the 1% row`);
      const copy = join(realpathSync(tmpdir()), `projdex-bench-touch-${size}-${process.pid}`);
      rmSync(copy, { recursive: true, force: true });
      cpSync(realpathSync(root), copy, { recursive: true });
      copies.push(copy);
      project = await json(`${server.url}/api/projects`, { method: 'POST', body: { name: 'touched', path: copy } });
      // The copy's files are new: past their racy window before the scan every round starts from.
      await new Promise((r) => setTimeout(r, 2100));
      await scanOnce();
      const files = (await walk(copy, { maxEntries: Infinity, timeoutMs: Infinity })).files;
      let mismatches = 0;
      const body = (path: string): Promise<string> => json<{ tests: unknown }>(`${server.url}${path}`, { method: 'POST' }).then((r) => JSON.stringify(r.tests));
      const touched = (pool: readonly string[], fraction: number) => alternate(sizeRounds, async (round) => {
        const undo = touchFraction(copy, pool, fraction, 100 + round);
        try {
          const took = await scanOnce();
          const incremental = JSON.stringify(last.tests);
          if (incremental !== await body(`/api/projects/${project.id}/scan?full=1`)) mismatches++;
          return took;
        } finally {
          undo();
          // Past the racy window of the restored files before they are taken in (untimed): a scan within it
          // records their stamps as never matching, and the next round would read them again beside its own.
          await new Promise((r) => setTimeout(r, 2100));
          await scanOnce();
        }
      }, () => runFind(copy));
      const exact = (): string => (mismatches === 0 ? 'exact: equals a ?full=1 scan every round' : `MISMATCH in ${mismatches} rounds`);
      log(`scan ${n}: rescan, 1% of files changed`);
      // 1% of every file: on the bench tree that includes about 1% of the ~360 files rules read (package.json,
      // configs), so nearly every round moves a rule input and the rules run again.
      const changed = await touched(files, 0.01);
      rows.push(ratioRow(`rescan ${n}, 1% changed, vs find`, changed, size === 100_000 ? 0.5 : null, exact()));
      mismatches = 0;
      log(`scan ${n}: rescan, as many files changed, all test files`);
      // The same number of files, test files only (an edit session): counts patched, no rule runs again.
      const testFiles = (last.tests as Array<{ file_path: string }>).map((t) => t.file_path);
      const testsChanged = await touched(testFiles, Math.min(1, (files.length * 0.01) / Math.max(1, testFiles.length)));
      rows.push(ratioRow(`rescan ${n}, 1% changed (test files only), vs find`, testsChanged, null, exact()));
      // Projects are git repositories: every scan also reads the git state, and its answer waits for it. The
      // same copy committed to git (not the 1M tree: committing it takes minutes), rescanned unchanged.
      const tracked = size <= 100_000 ? commitTree(copy) : null;
      if (tracked !== null) {
        log(`scan ${n}: rescan, nothing changed, in a git repository`);
        // As a repository sits between commits: past the window in which a just-written index or directory
        // is not trusted by its stamp (projdex's and git's racy rule), then .git and .gitignore taken in.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        await scanOnce();
        await scanOnce();
        const inGit = await alternate(sizeRounds, scanOnce, () => runFind(copy));
        rows.push(ratioRow(`rescan ${n}, unchanged, in a git repository, vs find`, inGit, null,
          `${tracked.toLocaleString('en')} tracked files, installs ignored`));
        // A first scan there, as most projects are first scanned: git's full status (its own walk of the
        // tree) shares the cores with the scan's walk and rules, and the answer waits for both.
        log(`scan ${n}: first scan, in a git repository`);
        const firstInGit = await alternate(sizeRounds, async () => {
          await json(`${server.url}/api/projects/${project.id}`, { method: 'DELETE' });
          project = await json(`${server.url}/api/projects`, { method: 'POST', body: { name: 'touched', path: copy } });
          return scanOnce();
        }, () => runFind(copy));
        rows.push(ratioRow(`scan ${n} vs find, in a git repository`, firstInGit, null,
          'a newly registered project each round, as the first row'));
      }

      const peak = server.peakRss();
      const childPeak = server.childPeakRss();
      rows.push({
        name: `server peak RSS, scans of ${n}`,
        subject: mb(peak), baseline: '', ratio: null, target: '', pass: null,
        note: `${files.length.toLocaleString('en')} files walked`,
      });
      rows.push({
        name: `scan process peak RSS, scans of ${n}`,
        subject: mb(childPeak), baseline: '', ratio: null, target: '', pass: null,
        note: 'largest live scan process (a retry process that already exited is not counted)',
      });
      rows.push({
        name: `server + scan process peak RSS, scans of ${n}`,
        subject: mb(peak + childPeak), baseline: '', ratio: null, target: '', pass: null,
        note: 'sum of the two peaks above: they need not meet, and other children are left out',
      });
      // The target counts the server and its scan processes together: their sum at one moment, every live child
      // included (each scan process, git).
      const moment = await together.stop();
      const limit = size >= 1_000_000 ? 350 * 1048576 : null;
      rows.push({
        name: `server + scan processes at one moment, peak RSS, scans of ${n}`,
        subject: mb(moment.rss), baseline: '', ratio: null,
        target: limit === null ? '' : '< 350 MB',
        ...(limit === null ? { pass: null } : underCeiling(moment.rss, limit)),
        note: `sampled every 25 ms, git included; ${mb(moment.file)} of it file-backed (Node, git's packs)`,
      });
    } finally {
      await together.stop();
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
      for (const copy of copies.splice(0)) rmSync(copy, { recursive: true, force: true });
    }
  }
  await helper.close(); // this process's other walks stay on their own thread
  return rows;
}

/**
 * Milliseconds to lstat `paths` (relative to `root`) with the first half on a worker thread, from inside
 * `root`, as a scan process's quick check does (scan/rescan.ts).
 */
async function statOnTwoThreads(root: string, paths: readonly string[]): Promise<number> {
  const source = `const { parentPort } = require('node:worker_threads'); const { lstatSync } = require('node:fs');
    parentPort.on('message', (list) => { for (const p of list) lstatSync(p, { throwIfNoEntry: false }); parentPort.postMessage(0); });`;
  const worker = new Worker(source, { eval: true });
  const half = paths.slice(0, paths.length >> 1);
  const rest = paths.slice(paths.length >> 1);
  const back = process.cwd();
  // A worker that fails to start or dies rejects instead of leaving the bench waiting.
  const failed = new Promise<never>((_, reject) => { worker.once('error', reject); });
  failed.catch(() => {}); // handled where it is raced; an error after the timing has nobody waiting
  try {
    await Promise.race([new Promise((resolve) => { worker.once('online', resolve); }), failed]);
    process.chdir(root);
    return await timed(async () => {
      const theirs = Promise.race([new Promise((resolve) => { worker.once('message', resolve); }), failed]);
      worker.postMessage(half);
      for (const p of rest) lstatSync(p, { throwIfNoEntry: false });
      await theirs;
    });
  } finally {
    process.chdir(back);
    await worker.terminate();
  }
}

/** Opens, stats, reads whole and closes each of `paths`, as a scan reads a test file to count its cases. */
function readEach(paths: readonly string[]): void {
  for (const p of paths) {
    const fd = openSync(p, 'r');
    try { readWhole(fd, fstatSync(fd).size); } finally { closeSync(fd); }
  }
}

const ratioOf = (r: { subject: number[]; baseline: number[] }): number => median(r.subject) / median(r.baseline);

function ratioRow(name: string, r: { subject: number[]; baseline: number[] }, max: number | null, note?: string): Row {
  const s = median(r.subject);
  const b = median(r.baseline);
  return {
    name, subject: ms(s), baseline: ms(b), ratio: s / b,
    target: max === null ? '' : `<= ${+max.toFixed(2)}x`,
    ...(max === null ? { pass: null } : underCeiling(s / b, max)),
    ...(note === undefined ? {} : { note }),
  };
}
