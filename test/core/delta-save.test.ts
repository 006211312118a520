// A rescan's reply carries its delta, not its tests, and the save writes that delta. When another connection
// saved the project after the scan read its snapshot, the delta is not from the stored rows: the scan runs
// again with its tests, and the answer is the tree as it is, never the delta laid over someone else's rows.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';
import { openStore } from '../../src/core/store/store.ts';

const TREE: Record<string, string> = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  'src/a.test.js': "test('a', () => {});\n",
  'src/b.test.js': "test('b', () => {});\n",
};

test('a rescan whose project another connection saved meanwhile is scanned again with its tests', async (t) => {
  const root = makeTree(t, TREE);
  const db = join(makeTree(t), 'projdex.db');
  const server = await serve(t, { db });
  const other = openStore(db);
  t.after(() => other.close());
  const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
  const scanned = async (): Promise<{ mode: unknown; files: string[] }> => {
    const finished = new Promise<unknown>((resolve) => {
      const stop = server.events.subscribe((event) => {
        if (event.type === 'scan.finished' && event.data.id === project.id) { stop(); resolve(event.data.mode); }
      });
    });
    const answer = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(answer.status, 200);
    await server.settled();
    const files = answer.body.tests.map((row: { file_path: string }) => row.file_path);
    assert.equal(JSON.stringify(answer.body.tests), other.testsJson(project.id).toString());
    return { mode: await finished, files };
  };
  assert.deepEqual((await scanned()).files, ['src/a.test.js', 'src/b.test.js']);
  // Past the racy window, so that the next rescan of the untouched tree is `unchanged`. This one reads the
  // files again if the first scan ran within 2 s of their writing (their stamps were racy), and on a slow
  // machine it may not have: either is right, a full scan is not.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  assert.ok(['incremental', 'unchanged'].includes(String((await scanned()).mode)));
  /** While the scan runs (it has read the snapshot), the other connection saves a row the tree does not hold. */
  const interfere = (): void => {
    const stop = server.events.subscribe((event) => {
      if (event.type !== 'scan.progress' || event.data.id !== project.id) return;
      stop();
      const ghost = { file: 'src/ghost.test.js', framework: 'jest' as const };
      assert.ok(other.saveScan(project.id, { tests: [ghost], ports: [], framework: null }));
    });
  };
  // An unchanged tree: its reply is the count alone. The snapshot went with the other save: a full scan.
  interfere();
  const unchanged = await scanned();
  assert.deepEqual(unchanged.files, ['src/a.test.js', 'src/b.test.js']);
  assert.equal(unchanged.mode, 'full');
  // An edited tree: its reply is the delta alone.
  await new Promise((resolve) => setTimeout(resolve, 2100));
  assert.equal((await scanned()).mode, 'unchanged');
  writeFileSync(join(root, 'src', 'c.test.js'), "test('c', () => {});\n");
  interfere();
  const edited = await scanned();
  assert.deepEqual(edited.files, ['src/a.test.js', 'src/b.test.js', 'src/c.test.js']);
  assert.equal(edited.mode, 'full');
  // Undisturbed, the next edit is saved from its delta.
  writeFileSync(join(root, 'src', 'd.test.js'), "test('d', () => {});\n");
  const next = await scanned();
  assert.equal(next.mode, 'incremental');
  assert.deepEqual(next.files, ['src/a.test.js', 'src/b.test.js', 'src/c.test.js', 'src/d.test.js']);
});
