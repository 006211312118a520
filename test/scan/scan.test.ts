import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { suite, test } from 'node:test';
import { scan } from '../../src/scan/index.ts';
import { makeTree } from '../helpers/index.ts';

const JEST_PROJECT = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' } }),
  'src/a.test.js': "test('a', () => {}); test('b', () => {});",
  'src/__tests__/b.js': "it('c', () => {});",
  'src/latest.js': '',
};

suite('scan()', () => {
  test('finds the same tests from a relative root, a symlinked root and a trailing slash', async (t) => {
    const root = makeTree(t, JEST_PROJECT);
    const link = join(makeTree(t), 'link');
    symlinkSync(root, link);
    const expected = [
      { file: 'src/__tests__/b.js', framework: 'jest', cases: 1 },
      { file: 'src/a.test.js', framework: 'jest', cases: 2 },
    ];
    for (const spelling of [root, relative(process.cwd(), root), link, root + '/']) {
      assert.deepEqual((await scan(spelling)).tests, expected, spelling);
    }
  });

  test('reports the stack, no notes and no truncation for a plain project', async (t) => {
    const root = makeTree(t, { ...JEST_PROJECT, 'package.json': JSON.stringify({ scripts: { test: 'jest' }, dependencies: { express: '5' }, devDependencies: { jest: '30' } }) });
    const result = await scan(root);
    assert.equal(result.framework, 'express');
    assert.deepEqual(result.notes, []);
    assert.equal(result.truncated, null);
    assert.deepEqual(result.ports, []);
  });

  test('a walk cap shows in the result', async (t) => {
    const root = makeTree(t, JEST_PROJECT);
    assert.match((await scan(root, { maxEntries: 2 })).truncated ?? '', /entry limit of 2/);
  });

  test('rejects a root that does not exist', async (t) => {
    await assert.rejects(scan(join(makeTree(t), 'missing')), { code: 'ENOENT' });
  });
});
