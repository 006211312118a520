// Incremental rescans together with what the scan processes, port ids, scan summaries and kept rows do.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { suite, test } from 'node:test';
import type { ProjdexEvent } from '../../../src/core/events.ts';
import { scan } from '../../../src/scan/index.ts';
import { createScanner } from '../../../src/core/scanner.ts';
import { openStore } from '../../../src/core/store/store.ts';
import { call, makeTree, serve } from '../../helpers/index.ts';

const PROJECT = {
  'package.json': JSON.stringify({ scripts: { dev: 'vite --port 5174', test: 'vitest' }, devDependencies: { vitest: '^3', vite: '^6' } }),
  'src/a.test.ts': "test('a', () => {});\ntest('b', () => {});\n",
  'src/b.test.ts': "test('c', () => {});\n",
};

/** Every `scan.finished` event of the server, in order. */
function finishedModes(events: { subscribe(l: (e: ProjdexEvent) => void): () => void }): string[] {
  const modes: string[] = [];
  events.subscribe((e) => { if (e.type === 'scan.finished') modes.push(String(e.data.mode)); });
  return modes;
}

suite('incremental rescans through the scan processes', () => {
  test('unchanged, then incremental: the snapshot crosses the process, port and test ids stay, the summary moves', async (t) => {
    const root = makeTree(t, PROJECT);
    const server = await serve(t);
    const modes = finishedModes(server.events);
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
    const scanNow = async (query = ''): Promise<any> => (await call(`${server.url}/api/projects/${project.id}/scan${query}`, 'POST')).body;
    const first = await scanNow();
    assert.deepEqual(first.ports.map((p: { port: number }) => p.port), [5174]);
    // The first scan saw everything within the racy window (2 s) of its writes: recorded as changed. Past
    // it, a rescan stamps them for good (same findings), and the one after finds nothing moved.
    await sleep(2100);
    assert.deepEqual((await scanNow()).tests, first.tests);
    const unchanged = await scanNow();
    assert.deepEqual(unchanged.tests, first.tests);
    assert.deepEqual(unchanged.ports.map((p: { id: number }) => p.id), first.ports.map((p: { id: number }) => p.id));
    writeFileSync(join(root, 'src/c.test.ts'), "test('d', () => {});\n");
    rmSync(join(root, 'src/b.test.ts'));
    const incremental = await scanNow();
    assert.deepEqual(incremental.tests.map((x: { file_path: string }) => x.file_path), ['src/a.test.ts', 'src/c.test.ts']);
    assert.equal(incremental.tests[0].id, first.tests[0].id);
    assert.deepEqual(incremental.ports.map((p: { id: number }) => p.id), first.ports.map((p: { id: number }) => p.id));
    const full = await scanNow('?full=1');
    assert.deepEqual(full.tests, incremental.tests);
    // The second scan is incremental when the first ran within the racy window of the tree's writes, and
    // unchanged when a loaded machine started it later than that: either way the third finds nothing moved.
    assert.ok(['incremental', 'unchanged'].includes(modes[1]!), modes.join(', '));
    assert.deepEqual([modes[0], ...modes.slice(2)], ['full', 'unchanged', 'incremental', 'full']);
    // The summary of the last scan (GET /api/projects/:id/scan) is written by every kind of save.
    const summary = await call(`${server.url}/api/projects/${project.id}/scan`);
    assert.equal(summary.status, 200);
    assert.ok(summary.body.scanned_at >= first.project.last_scanned, JSON.stringify(summary.body));
    assert.deepEqual(summary.body.runs, full.runs);
  });

  test('no snapshot of a tree over snapshotMaxEntries: a note says so and the next scan is full', async (t) => {
    const root = makeTree(t, PROJECT);
    const big = await scan(root, { snapshotMaxEntries: 3 });
    assert.equal(big.snapshot, null);
    assert.equal(big.mode, 'full');
    assert.ok(big.notes.some((n) => /over the 3 a scan keeps a snapshot of/.test(n)), JSON.stringify(big.notes));
    const small = await scan(root);
    assert.ok(small.snapshot instanceof Uint8Array);
    assert.ok(!small.notes.some((n) => /keeps a snapshot/.test(n)));
    const { snapshot: _a, mode: _m, ...withoutSnapshot } = big;
    const { snapshot: _b, mode: _n, ...withSnapshot } = small;
    assert.deepEqual({ ...withoutSnapshot, notes: [] }, { ...withSnapshot, notes: [] });
    // The server's `scan` options carry the bound into the scan processes.
    const server = await serve(t, { scan: { snapshotMaxEntries: 3 } });
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
    const answer = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.ok(answer.body.notes.some((n: string) => /over the 3 a scan keeps a snapshot of/.test(n)), JSON.stringify(answer.body.notes));
    assert.equal(server.store.getSnapshot(project.id), undefined);
  });

  test('a package whose package.json cannot be read: its stored rows stay, the rest is saved from a delta', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ workspaces: ['packages/*'], scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'packages/a/package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'packages/a/x.test.js': "test('x', () => {});\n",
      'packages/a/y.test.js': "test('y', () => {});\n",
      'packages/b/package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'packages/b/z.test.js': "test('z', () => {});\n",
      'packages/b/w.test.js': "test('w', () => {});\n",
    });
    const store = openStore(':memory:');
    const scanner = createScanner(store);
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    await scanner.scanProject(project);
    await scanner.settled(); // the snapshot is kept just after the answer
    const stored = (): string[] => store.listTests(project.id).map((x) => x.file_path);
    const before = stored();
    assert.deepEqual(before, ['packages/a/x.test.js', 'packages/a/y.test.js', 'packages/b/w.test.js', 'packages/b/z.test.js']);
    const snapshot = store.getSnapshot(project.id)!.data;
    // Mid-edit, as the bench's 1% touch leaves it: b's package.json is not JSON; a test of each package goes.
    appendFileSync(join(root, 'packages/b/package.json'), "\nit('added', () => {});\n");
    rmSync(join(root, 'packages/a/y.test.js'));
    rmSync(join(root, 'packages/b/w.test.js'));
    const direct = await scan(root, { previous: snapshot });
    assert.deepEqual(direct.unreadable, ['packages/b']);
    assert.equal(direct.snapshot, null);
    assert.deepEqual(direct.delta, { upserts: [], removed: ['packages/a/y.test.js'] });
    const outcome = await scanner.scanProject(project);
    assert.equal(outcome.mode, 'incremental');
    // b's rows as they were (w.test.js too: b could not be read), a's as found: what a full save keeps.
    assert.deepEqual(stored(), ['packages/a/x.test.js', 'packages/b/w.test.js', 'packages/b/z.test.js']);
    assert.equal(store.getSnapshot(project.id), undefined);
    await scanner.scanProject(project, { full: true });
    assert.deepEqual(stored(), ['packages/a/x.test.js', 'packages/b/w.test.js', 'packages/b/z.test.js']);
  });

  test('a walk that left a directory unread keeps no snapshot (a rescan from it would sweep rows kept there)', async (t) => {
    const root = makeTree(t, PROJECT);
    const store = openStore(':memory:');
    const scanner = createScanner(store);
    t.after(async () => { await scanner.close(); store.close(); });
    const project = store.insertProject({ name: 'p', path: root })!;
    mkdirSync(join(root, 'd'));
    writeFileSync(join(root, 'd/x.test.ts'), "test('x', () => {});\n");
    assert.equal((await scanner.scanProject(project)).testsFound, 3);
    const ids = store.listTests(project.id).map((x) => x.id);
    // A directory whose name is not valid UTF-8 cannot be listed by name: counted unreadable.
    mkdirSync(Buffer.concat([Buffer.from(root + '/'), Buffer.from([0x64, 0xc3])]));
    rmSync(join(root, 'd'), { recursive: true });
    mkdirSync(Buffer.concat([Buffer.from(root + '/'), Buffer.from([0x65, 0xc3])]));
    const direct = await scan(root);
    assert.equal(direct.snapshot, null);
    assert.deepEqual(direct.unreadable.sort(), ['d\uFFFD[c3]', 'e\uFFFD[c3]']);
    const outcome = await scanner.scanProject(project);
    assert.equal(outcome.mode, 'incremental');
    // d/ is gone (its row swept), the unreadable directories changed nothing; no snapshot was stored.
    assert.deepEqual(store.listTests(project.id).map((x) => x.file_path), ['src/a.test.ts', 'src/b.test.ts']);
    assert.deepEqual(store.listTests(project.id).map((x) => x.id), ids.slice(1));
    assert.equal(store.getSnapshot(project.id), undefined);
    assert.equal((await scanner.scanProject(project)).mode, 'full');
  });
});
