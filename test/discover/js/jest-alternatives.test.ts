import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { makeTree } from '../../helpers/index.ts';

async function discover(root: string) {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverJs(ctx);
  return { files: tests.map((t) => t.file), notes: ctx.notes };
}

// Listed with Jest 30.5 `--listTests` on this tree: picomatch reads a top-level `|` as alternatives of one
// regex over the absolute path, the later ones with `**/` as a single directory level.
suite('Jest testMatch with a top-level |', () => {
  const tree = { 'src/a.spec.js': '', 'src/b.test.js': '', 'b2.test.js': '', 'src/deep/b3.test.js': '' };
  const pkg = (testMatch: unknown): string => JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' }, jest: { testMatch } });

  test('only the first part matches at any depth; the note says how the rest is read', async (t) => {
    const a = await discover(makeTree(t, { ...tree, 'package.json': pkg('**/*.spec.js|**/*.test.js') }));
    assert.deepEqual(a.files, ['src/a.spec.js']);
    assert.deepEqual(a.notes, ['package.json: testMatch "**/*.spec.js|**/*.test.js" has a `|` outside any group; as Jest\'s matcher reads it, '
      + 'each part after the first has `**/` as one directory level']);
    const b = await discover(makeTree(t, { ...tree, 'package.json': pkg(['**/*.test.js|**/*.spec.js']) }));
    assert.deepEqual(b.files, ['b2.test.js', 'src/b.test.js', 'src/deep/b3.test.js']);
  });

  test('a | inside a group is an ordinary alternative', async (t) => {
    const c = await discover(makeTree(t, { ...tree, 'package.json': pkg(['**/src/**/*.(spec|test).js']) }));
    assert.deepEqual(c.files, ['src/a.spec.js', 'src/b.test.js', 'src/deep/b3.test.js']);
    assert.deepEqual(c.notes, []);
  });
});
