// Big scans over HTTP: saved from the scan process's columns a slice at a time while the server keeps
// answering, ids stable across rescans, and `scan/all` streamed with the same entries as single scans.
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createScanPool } from '../../src/scan/process/pool.ts';
import { arrayCursor, packedCount, packedCursor, packedOf } from '../../src/scan/process/packed.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

/** A vitest project with `count` test files (over 10k: the sliced save and the streamed lists). */
function bigTree(t: Parameters<typeof makeTree>[0], count: number): { root: string; files: string[] } {
  const root = makeTree(t, { 'package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3' } }) });
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = `src/d${Math.floor(i / 500)}`;
    if (i % 500 === 0) mkdirSync(join(root, dir), { recursive: true });
    const file = `${dir}/f${i}.test.ts`;
    writeFileSync(join(root, file), i % 3 ? "test('a', () => {});\n" : "test('a', () => {});\ntest('b', () => {});\n");
    files.push(file);
  }
  return { root, files: files.sort() };
}

const COUNT = 12_000;

suite('big scans over HTTP', () => {
  test('a 12k-test scan is saved while /health and GETs are answered; rows exact, ids stable across rescans', async (t) => {
    const { root, files } = bigTree(t, COUNT);
    const server = await serve(t);
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'big', path: root });
    const scanning = call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    let settled = false;
    void scanning.finally(() => { settled = true; });
    // Other requests keep being answered while the scan runs and its rows are saved (no timing asserted).
    let answered = 0;
    while (!settled) {
      assert.equal((await call(`${server.url}/health`)).status, 200);
      const list = await call(`${server.url}/api/projects/${project.id}/tests`);
      assert.equal(list.status, 200);
      assert.ok(Array.isArray(list.body));
      answered++;
    }
    assert.ok(answered > 0);
    const first = await scanning;
    assert.equal(first.status, 200);
    assert.equal(first.body.testsFound, COUNT);
    assert.deepEqual(first.body.tests.map((x: { file_path: string }) => x.file_path), files);
    assert.equal(first.body.tests.find((x: { file_path: string }) => x.file_path === 'src/d0/f0.test.ts').cases, 2);
    assert.equal(first.body.tests.find((x: { file_path: string }) => x.file_path === 'src/d0/f1.test.ts').cases, 1);
    assert.ok(first.body.tests.every((x: { framework: string }) => x.framework === 'vitest'));
    const stored = await call(`${server.url}/api/projects/${project.id}/tests`);
    assert.deepEqual(stored.body, first.body.tests);

    // A full rescan rewrites every row through the sliced save: same rows, same ids.
    const again = await call(`${server.url}/api/projects/${project.id}/scan?full=1`, 'POST');
    assert.deepEqual(again.body.tests, first.body.tests);

    // Files removed and added: the rest keep their ids, the removed are gone, the new ones are there.
    const removed = files.slice(0, 1_500);
    for (const file of removed) rmSync(join(root, file));
    mkdirSync(join(root, 'src/new'));
    for (let i = 0; i < 1_500; i++) writeFileSync(join(root, `src/new/n${i}.test.ts`), "test('n', () => {});\n");
    const after = await call(`${server.url}/api/projects/${project.id}/scan?full=1`, 'POST');
    assert.equal(after.body.testsFound, COUNT);
    const before = new Map(first.body.tests.map((x: { file_path: string; id: number }) => [x.file_path, x.id]));
    const kept = after.body.tests.filter((x: { file_path: string }) => before.has(x.file_path));
    assert.equal(kept.length, COUNT - removed.length);
    for (const x of kept) assert.equal(x.id, before.get(x.file_path));
    assert.equal(after.body.tests.filter((x: { file_path: string }) => x.file_path.startsWith('src/new/')).length, 1_500);
  });

  test('scan/all streams its answer: in id order, each entry what a single scan answers, plus error', async (t) => {
    const big = bigTree(t, COUNT);
    const small = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { dev: 'vite --port 5190', test: 'vitest' }, devDependencies: { vitest: '^3', vite: '^6' } }),
      'a.test.ts': "test('a', () => {});\n",
    });
    const gone = makeTree(t, { 'x.test.ts': '' });
    const server = await serve(t);
    const ids: number[] = [];
    for (const [name, path] of [['big', big.root], ['small', small], ['gone', gone]] as const) {
      ids.push((await call(`${server.url}/api/projects`, 'POST', { name, path })).body.id);
    }
    rmSync(gone, { recursive: true });
    const all = await call(`${server.url}/api/projects/scan/all`, 'POST');
    assert.equal(all.status, 200);
    assert.equal(all.headers.get('transfer-encoding'), 'chunked');
    assert.deepEqual(all.body.map((e: { project: { id: number } }) => e.project.id), ids);
    for (const i of [0, 1]) {
      const single = await call(`${server.url}/api/projects/${ids[i]}/scan`, 'POST');
      const { error, ...entry } = all.body[i];
      assert.equal(error, null);
      // The project's last_scanned and its ports' last_detected move with the second scan (when a second
      // boundary falls between them); everything else is equal.
      const still = (body: { project: object; ports: object[] }) => ({
        ...body, project: { ...body.project, last_scanned: 0 }, ports: body.ports.map((p) => ({ ...p, last_detected: 0 })),
      });
      assert.deepEqual(still(entry), still(single.body));
    }
    assert.equal(all.body[0].testsFound, COUNT);
    assert.equal(all.body[0].tests.length, COUNT);
    assert.deepEqual(all.body[1].ports.map((p: { port: number }) => p.port), [5190]);
    assert.match(all.body[2].error, /no longer exists/);
    assert.deepEqual({ ...all.body[2], error: null, project: null },
      { project: null, testsFound: 0, tests: [], ports: [], notes: [], runs: [], truncated: null, error: null });
  });
});

suite('scan results in columns', () => {
  test('a scan process result keeps its columns; tests, the cursor and a spread read the same rows', async (t) => {
    const { root, files } = bigTree(t, 40);
    const pool = createScanPool({ processes: 1 });
    t.after(() => pool.close());
    const result = await pool.scan(root);
    const packed = packedOf(result);
    assert.ok(packed);
    assert.equal(packedCount(packed), 40);
    const rows: unknown[] = [];
    const cursor = packedCursor(packed);
    for (let row = cursor.next(); row; row = cursor.next()) rows.push({ ...row });
    assert.equal(cursor.index, 40);
    const expected = result.tests.map((x) => ({ file: x.file, framework: x.framework, cases: x.cases ?? null }));
    assert.deepEqual(rows, expected);
    assert.deepEqual(expected.map((x) => x.file), files);
    assert.deepEqual({ ...result }.tests, result.tests);
    assert.equal(Object.keys(result).includes('packed'), false);
    const objects = arrayCursor(result.tests);
    for (const row of rows) assert.deepEqual({ ...objects.next() }, row);
    assert.equal(objects.next(), undefined);
  });
});
