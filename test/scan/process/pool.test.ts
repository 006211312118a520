import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { scan } from '../../../src/scan/index.ts';
import { createScanPool } from '../../../src/scan/process/pool.ts';
import type { ProcessScanResult } from '../../../src/scan/process/scan-process.ts';
import type { FoundTest } from '../../../src/rules/types.ts';
import { testCountOf, testsLeftOut } from '../../../src/scan/process/packed.ts';
import { makeTree } from '../../helpers/index.ts';
import { scanProcesses } from '../../helpers/processes.ts';

const PROJECT = {
  'package.json': JSON.stringify({ scripts: { test: 'vitest', dev: 'vite --port 5174' }, devDependencies: { vitest: '^4.0.0', vite: '^7.0.0' } }),
  'src/a.test.ts': "test('a', () => {}); it('b', () => {});",
  'src/b.spec.tsx': "test('c', () => {});",
  'src/c.ts': '',
  'py/tests/test_x.py': 'def test_x():\n    pass\n',
  'py/pytest.ini': '[pytest]\ntestpaths = tests\n',
};

suite('createScanPool()', () => {
  test('a scan on the worker thread equals the same scan in this thread', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool();
    t.after(() => pool.close());
    const [inWorker, inThread] = await Promise.all([pool.scan(root), scan(root)]);
    // Snapshots hold the walk order, which differs between walks; what was found does not.
    const { snapshot: a, ...found } = inWorker;
    const { snapshot: b, ...same } = inThread;
    assert.deepEqual(found, same);
    assert.ok(a instanceof Uint8Array && b instanceof Uint8Array);
    assert.ok(inWorker.tests.length >= 2);
    assert.deepEqual(inWorker.ports.map((p) => p.port), [5174]);
  });

  test('a scan process runs V8 with one background thread (the cores are shared)', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool();
    t.after(() => pool.close());
    await pool.scan(root);
    const threads = (pid: number): string[] => {
      try {
        const tasks = readdirSync(`/proc/${pid}/task`);
        return tasks.map((task) => readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim());
      } catch {
        return []; // a process of an earlier test, gone meanwhile
      }
    };
    const live = scanProcesses().map(threads).filter((names) => names.length > 0);
    assert.ok(live.length > 0 && live.every((names) => names.includes('MainThread')), 'a scan process is kept');
    for (const names of live) {
      assert.equal(names.filter((name) => name.startsWith('V8Worker')).length, 1, names.join(', '));
    }
  });

  test('passes walk limits across and runs queued scans one after another', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool();
    t.after(() => pool.close());
    const [capped, full] = await Promise.all([pool.scan(root, { maxEntries: 1 }), pool.scan(root)]);
    assert.match(capped.truncated ?? '', /entry limit of 1/);
    assert.equal(full.truncated, null);
  });

  test('a scan sent to a kept process that died while idle runs in a new one; a second death fails it', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool();
    t.after(() => pool.close());
    const first = await pool.scan(root);
    const [pid] = scanProcesses();
    assert.ok(pid !== undefined, 'a scan process is kept');
    // Killed and asked for in the same turn: the pool has not seen the exit yet, so the process looks idle.
    process.kill(pid, 'SIGKILL');
    const again = await pool.scan(root);
    assert.deepEqual(again.tests, first.tests);
    const [next] = scanProcesses().filter((p) => p !== pid);
    assert.ok(next !== undefined && next !== pid, 'a new scan process answered');
    // A process that dies under the scan once more (a project that crashes it, say) fails the scan.
    const dying = pool.scan(root);
    process.kill(next, 'SIGKILL');
    // The pool forks the next one in this process's turn that sees the exit: looked for every turn, it is
    // killed while it starts Node, long before it could load the scanner and scan.
    let third: number | undefined;
    const deadline = Date.now() + 60_000;
    while ((third = scanProcesses().find((p) => p !== pid && p !== next)) === undefined && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.ok(third !== undefined, 'the scan was sent again');
    process.kill(third, 'SIGKILL');
    await assert.rejects(dying, { code: 'SCAN_PROCESS_DIED' });
  });

  test('every kept process ended, its exit not yet seen: a scan runs in a new one', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool({ processes: 2 });
    t.after(() => pool.close());
    // Scans that wait make the pool start its second process.
    const [first] = await Promise.all([pool.scan(root), pool.scan(root), pool.scan(root)]);
    const kept = scanProcesses();
    assert.equal(kept.length, 2, 'two scan processes are kept');
    for (const pid of kept) process.kill(pid, 'SIGKILL');
    // Waited for without giving this process a turn: both children have ended, so a send to either fails
    // (EPIPE) while the pool has not seen their exits yet; neither may be picked twice, nor end the scan.
    const ended = (pid: number): boolean => /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const deadline = Date.now() + 60_000;
    while (!kept.every(ended) && Date.now() < deadline) { /* wait */ }
    const again = await pool.scan(root);
    assert.deepEqual(again.tests, first.tests);
    assert.ok(scanProcesses().some((pid) => !kept.includes(pid)), 'a new scan process answered');
  });

  test('a failing scan rejects with the error code and the worker goes on serving', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool();
    t.after(() => pool.close());
    await assert.rejects(pool.scan(join(root, 'missing')), { code: 'ENOENT' });
    assert.ok((await pool.scan(root)).tests.length > 0);
  });

  test('a scan that runs out of memory is retried on a roomier thread, or fails when there is no fallback', async (t) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`pkg${i % 30}/src/deep/er/file-number-${i}.test.ts`] = "test('x', () => {});";
    const root = makeTree(t, { ...PROJECT, ...files });
    const starved = createScanPool({ heapMb: 8, fallbackHeapMb: null });
    t.after(() => starved.close());
    await assert.rejects(starved.scan(root), { code: 'SCAN_OUT_OF_MEMORY' });
    // The default: the scan is retried once on a roomier one-off thread, and succeeds.
    const retrying = createScanPool({ heapMb: 8 });
    t.after(() => retrying.close());
    assert.ok((await retrying.scan(root)).tests.length > 3000);
  });

  test('with snapshotLater the findings come first and the snapshot after them, for a rescan', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool({ processes: 1 });
    t.after(() => pool.close());
    // Files dated an hour ahead stay within the racy window of any scan, so the second reads them again
    // however long the first took to start: incremental, never unchanged.
    const ahead = new Date(Date.now() + 3_600_000);
    for (const file of Object.keys(PROJECT)) utimesSync(join(root, file), ahead, ahead);
    const early = await pool.scan(root, {}, { snapshotLater: true });
    assert.equal(early.snapshot, null);
    assert.ok(early.snapshotLater, 'the snapshot follows');
    const snapshot = await early.snapshotLater;
    assert.ok(snapshot instanceof Uint8Array && snapshot.byteLength > 0);
    // Without it, a scan resolves with the snapshot in place. This one starts from the first one's.
    const whole = await pool.scan(root, { previous: snapshot });
    assert.equal(whole.mode, 'incremental');
    assert.ok(whole.snapshot instanceof Uint8Array && whole.snapshot.byteLength > 0);
    assert.equal('snapshotLater' in whole, false);
    const { snapshot: _, snapshotLater: __, mode: ___, ...found } = early;
    const { snapshot: ____, mode: _____, delta: ______, ...same } = whole;
    assert.deepEqual(found, same);
  });

  test('with deltaOnly a rescan comes with its delta and its count, not its tests; a first scan with its tests', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool({ processes: 1 });
    t.after(() => pool.close());
    const first = await pool.scan(root, {}, { deltaOnly: true });
    assert.equal(first.mode, 'full');
    assert.equal(testsLeftOut(first), false);
    writeFileSync(join(root, 'src', 'd.test.ts'), "test('d', () => {});");
    rmSync(join(root, 'src', 'b.spec.tsx'));
    const rescan = await pool.scan(root, { previous: first.snapshot }, { deltaOnly: true });
    assert.equal(rescan.mode, 'incremental');
    assert.equal(testsLeftOut(rescan), true);
    assert.throws(() => rescan.tests, /delta only/);
    // What the delta says, applied to the first scan's tests, is what a full scan finds now.
    const full = await scan(root);
    assert.equal(testCountOf(rescan), full.tests.length);
    const removed = new Set(rescan.delta!.removed);
    const upserts = new Map(rescan.delta!.upserts.map((row) => [row.file, row]));
    const applied = first.tests.filter((row) => !removed.has(row.file) && !upserts.has(row.file))
      .concat([...upserts.values()]).sort((a, b) => (a.file < b.file ? -1 : 1));
    assert.deepEqual(applied, full.tests);
    assert.deepEqual(rescan.delta!.removed, ['src/b.spec.tsx']);
    // Without deltaOnly, the same rescan carries its tests.
    const whole = await pool.scan(root, { previous: first.snapshot });
    assert.equal(whole.mode, 'incremental');
    assert.deepEqual(whole.tests, full.tests);
  });

  test('a rescan names the snapshot its process made; a process holding another is sent the bytes', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool({ processes: 1 });
    t.after(() => pool.close());
    // The delta of `rescan` applied to the tests of the scan whose snapshot it was given.
    const applied = (base: FoundTest[], rescan: ProcessScanResult): FoundTest[] => {
      const removed = new Set(rescan.delta!.removed);
      const upserts = new Map(rescan.delta!.upserts.map((row) => [row.file, row]));
      return base.filter((row) => !removed.has(row.file) && !upserts.has(row.file))
        .concat([...upserts.values()]).sort((a, b) => (a.file < b.file ? -1 : 1));
    };
    const first = await pool.scan(root);
    writeFileSync(join(root, 'src', 'd.test.ts'), "test('d', () => {});");
    // The process encoded this snapshot itself: the request names it.
    const second = await pool.scan(root, { previous: first.snapshot }, { deltaOnly: true });
    assert.equal(second.mode, 'incremental');
    assert.deepEqual(applied(first.tests, second), (await scan(root)).tests);
    // The process now holds the second scan's snapshot; the caller gives the first one again (as a store does
    // after another connection saved): it must be rescanned from the first one, so its delta applies there.
    writeFileSync(join(root, 'src', 'e.test.ts'), "test('e', () => {});");
    const third = await pool.scan(root, { previous: first.snapshot }, { deltaOnly: true });
    assert.equal(third.mode, 'incremental');
    const full = await scan(root);
    assert.deepEqual(applied(first.tests, third), full.tests);
    assert.deepEqual(third.delta!.upserts.map((row) => row.file).sort(), ['src/d.test.ts', 'src/e.test.ts']);
    // Then from the third one's (sent whole once after a refusal) and the fourth one's, named again (files
    // written within the racy window are read again: incremental, not unchanged).
    const fourth = await pool.scan(root, { previous: third.snapshot });
    const fifth = await pool.scan(root, { previous: fourth.snapshot });
    for (const again of [fourth, fifth]) {
      assert.equal(again.mode, 'incremental');
      assert.deepEqual(again.tests, full.tests);
    }
  });

  test('a rescan begun on the guess that no directory moved runs again where one did', async (t) => {
    const root = makeTree(t, PROJECT);
    const pool = createScanPool({ processes: 1 });
    t.after(() => pool.close());
    const found = (r: ProcessScanResult) => ({ tests: r.tests, ports: r.ports, notes: r.notes, framework: r.framework });
    const withPort = (port: number): string => JSON.stringify({
      scripts: { test: 'vitest', dev: `vite --port ${port}` }, devDependencies: { vitest: '^4.0.0', vite: '^7.0.0' },
    });
    // Stamps trusted at once (racyMs 0): the tree was written just now. Each scan says when its directory
    // check is done, and whether every directory was as it was.
    const told: boolean[] = [];
    const rescan = (previous: Uint8Array | null) => pool.scan(root, { previous, racyMs: 0 }, {
      onDirsChecked: (unchanged) => told.push(unchanged),
    });
    let previous = (await rescan(null)).snapshot;
    // A file the rules read, written again in place (the same inode): the rules start beside the directories'
    // stats, and the guess holds.
    writeFileSync(join(root, 'package.json'), withPort(5175));
    const edited = await rescan(previous);
    assert.equal(edited.mode, 'incremental');
    assert.deepEqual(edited.ports.map((p) => p.port), [5175]);
    assert.deepEqual(found(edited), found(await scan(root)));
    previous = edited.snapshot;
    // Written in place again, and a test file added in a new directory: the run on the guess does not see it,
    // so the rescan runs again over a walk that lists it.
    writeFileSync(join(root, 'package.json'), withPort(5176));
    mkdirSync(join(root, 'src', 'new'));
    writeFileSync(join(root, 'src', 'new', 'd.test.ts'), "test('d', () => {});");
    const both = await rescan(previous);
    assert.equal(both.mode, 'incremental');
    assert.deepEqual(both.ports.map((p) => p.port), [5176]);
    assert.ok(both.tests.some((row) => row.file === 'src/new/d.test.ts'), both.tests.map((row) => row.file).join());
    assert.deepEqual(found(both), found(await scan(root)));
    assert.deepEqual(told, [false, true, false], 'no snapshot; every directory as it was; one moved');
  });

  test('close() without a scan resolves, and an idle worker does not keep the process alive', (t) => {
    const root = makeTree(t, PROJECT);
    const script = `
      import { createScanPool } from ${JSON.stringify(join(import.meta.dirname, '..', '..', '..', 'src', 'scan', 'process', 'pool.ts'))};
      await createScanPool().close();
      const pool = createScanPool();
      const result = await pool.scan(${JSON.stringify(root)});
      console.log(result.tests.length);`;
    // No close() at the end: the child must still exit by itself.
    const file = join(makeTree(t, { 'run.mjs': script }), 'run.mjs');
    const out = execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(Number(out.trim()) >= 2, true);
  });
});
