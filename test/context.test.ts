import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { createContext } from '../src/scan/context.ts';
import { walk } from '../src/scan/walk.ts';
import { makeTree } from './helpers.ts';

const FILES = { 'package.json': '{}', 'a/package.json': '{}', 'a/b/x.test.ts': '', 'a/b/c/y.ts': '', 'ab/z.ts': '' };

suite('createContext() compact views', () => {
  test('byName, names and under agree with files, from the walk\'s index or built from files', async (t) => {
    const root = makeTree(t, FILES);
    const tree = await walk(root);
    for (const ctx of [createContext(root, tree), createContext(root, { files: tree.files, dirs: tree.dirs, truncated: null })]) {
      assert.deepEqual([...ctx.byName('package.json')].sort(), ['a/package.json', 'package.json']);
      assert.deepEqual(ctx.byName('missing'), []);
      const all = [...ctx.names().values()].flat().sort();
      assert.deepEqual(all, [...tree.files].sort());
      assert.deepEqual(ctx.under('a'), ['a/b/c/y.ts', 'a/b/x.test.ts', 'a/package.json']);
      assert.deepEqual(ctx.under('a/b/c'), ['a/b/c/y.ts']);
      assert.deepEqual(ctx.under('nope'), []);
      assert.deepEqual(ctx.under(''), [...tree.files].sort());
    }
  });
});
