/**
 * Hostile paths: folder names that repeat in every path below them, names that are not UTF-8. Each test
 * builds the tree on disk and goes through the real server.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { deepLongFolders } from '../helpers/hostile-trees.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

interface ScanAnswer { tests: Array<{ file_path: string }>; truncated: string | null }

suite('long folder prefixes have a total budget', { timeout: 120_000 }, () => {
  test('600 tests under 3.5 KB of folder names: the answer and the stored rows stop at the budget, with a note', async (t) => {
    const root = makeTree(t, { 'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }) });
    const deep = deepLongFolders(root, 14);
    for (let i = 0; i < 600; i++) writeFileSync(join(root, deep, `t${i}.test.js`), '');
    const budget = 1_000_000;
    const running = await serve(t, { scan: { maxPathChars: budget } });
    const { body: project } = await call(`${running.url}/api/projects`, 'POST', { name: 'deep', path: root });
    for (const query of ['', '?full=1', '']) {
      const res = await fetch(`${running.url}/api/projects/${project.id}/scan${query}`, { method: 'POST' });
      assert.equal(res.status, 200);
      const text = await res.text();
      const answer = JSON.parse(text) as ScanAnswer;
      assert.match(answer.truncated ?? '', /path length limit reached: the paths found add up to over 1000000 characters/);
      const chars = answer.tests.reduce((sum, x) => sum + x.file_path.length, 0);
      assert.ok(answer.tests.length > 100 && answer.tests.length < 600, `${answer.tests.length} tests`);
      assert.ok(chars <= budget, `${chars} characters of paths`);
      // The rows add ~200 bytes each to their paths: the answer stays within the budget plus that.
      assert.ok(text.length <= budget + answer.tests.length * 400, `${text.length} bytes answered`);
      const stored = (await call(`${running.url}/api/projects/${project.id}/tests`)).body as Array<{ file_path: string }>;
      assert.deepEqual(stored.map((x) => x.file_path), answer.tests.map((x) => x.file_path));
    }
    assert.equal((await call(`${running.url}/health`)).status, 200);
  });
});

suite('names that are not UTF-8', { timeout: 120_000 }, () => {
  test('files get distinct names that stay, a deleted one goes, and a directory is named in a note', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
      'ok.test.js': "test('a', () => {});\n",
      // A valid name that reads like an invalid one: it must not take the invalid one's row or text.
      'bad\uFFFD[ff].test.js': "test('a', () => {});\ntest('b', () => {});\n",
    });
    const bytes = (...parts: Array<string | number[]>): Buffer =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    writeFileSync(bytes(root, '/bad', [0xff], '.test.js'), "test('a', () => {});\n");
    writeFileSync(bytes(root, '/bad', [0xfe], '.test.js'), "test('a', () => {});\n");
    mkdirSync(bytes(root, '/dir', [0xfe]));
    writeFileSync(bytes(root, '/dir', [0xfe], '/x.test.js'), "test('a', () => {});\n");
    const running = await serve(t);
    const { body: project } = await call(`${running.url}/api/projects`, 'POST', { name: 'bytes', path: root });
    const scan = async (query = ''): Promise<{ tests: Array<{ id: number; file_path: string; cases: number | null }>; notes: string[] }> =>
      (await call(`${running.url}/api/projects/${project.id}/scan${query}`, 'POST')).body;

    const first = await scan();
    assert.deepEqual(first.tests.map((x) => [x.file_path, x.cases]), [
      ['bad\uFFFD[efbfbd][ff].test.js', null],
      ['bad\uFFFD[fe].test.js', null],
      ['bad\uFFFD[ff].test.js', null],
      ['ok.test.js', 1],
    ]);
    assert.ok(first.notes.includes('1 directory was not scanned: the name is not valid UTF-8 (dir\uFFFD[fe]; each such byte shown as \uFFFD[hh]); rename to scan'), first.notes.join('\n'));
    assert.ok(first.notes.some((n) => n.startsWith('3 test files listed with a name that is not valid UTF-8')), first.notes.join('\n'));
    // Stable: the same rows, with their ids, at every scan, incremental or full.
    for (const query of ['', '?full=1']) assert.deepEqual((await scan(query)).tests, first.tests);

    rmSync(bytes(root, '/bad', [0xff], '.test.js'));
    const after = await scan();
    assert.deepEqual(after.tests.map((x) => x.file_path), ['bad\uFFFD[efbfbd][ff].test.js', 'bad\uFFFD[fe].test.js', 'ok.test.js']);
    assert.deepEqual(after.tests, first.tests.filter((x) => x.file_path !== 'bad\uFFFD[ff].test.js'));
    assert.deepEqual((await call(`${running.url}/api/projects/${project.id}/tests`)).body.map((x: { id: number }) => x.id), after.tests.map((x) => x.id));
  });
});
