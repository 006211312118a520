import assert from 'node:assert/strict';
import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createContext } from '../../src/scan/context.ts';
import { membership } from '../../src/scan/membership.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { makeTree } from '../helpers/index.ts';

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
  test('under answers the same from a pass over the files (first asks) as from the one sorted copy (later ones)', async (t) => {
    const root = makeTree(t, { ...FILES, 'a/B.ts': '', 'a/b-c.ts': '', 'a/b/\u00e9.ts': '', 'a/b/Z.ts': '' });
    const tree = await walk(root);
    const ctx = createContext(root, tree);
    const asks = ['a', 'a/b', 'ab', 'a/b/c', 'nope', 'a', 'a/b', 'ab', 'a/b/c', 'nope', 'a'];
    const answers = asks.map((dir) => ctx.under(dir));
    for (const [i, dir] of asks.entries()) {
      assert.deepEqual(answers[i], tree.files.filter((f) => f.startsWith(dir + '/')).sort(), dir);
    }
    assert.deepEqual(answers[0], ['a/B.ts', 'a/b-c.ts', 'a/b/Z.ts', 'a/b/c/y.ts', 'a/b/x.test.ts', 'a/b/\u00e9.ts', 'a/package.json']);
  });
});

suite('membership(): ctx.has over the directory index', () => {
  test('answers exactly what a Set of the walked files answers, on every fixture', async () => {
    const fixtures = join(import.meta.dirname, '..', 'fixtures');
    let checked = 0;
    for (const name of readdirSync(fixtures)) {
      const root = realpathSync(join(fixtures, name));
      const tree = await walk(root);
      const has = membership(tree);
      const set = new Set(tree.files);
      const probes = [...tree.files, ...tree.dirs, 'missing', '', '/', '../outside'];
      for (const f of tree.files) probes.push(`${f}x`, `./${f}`, `/${f}`, `${f}/x`, f.slice(0, -1));
      for (const d of tree.dirs) probes.push(`${d}/package.json`, `${d}/`, `${d}/missing.ts`);
      for (const p of probes) assert.equal(has(p), set.has(p), `${name}: ${p}`);
      checked += probes.length;
    }
    assert.ok(checked > 1000);
  });

  test('a directory with more files than a scanned run, an edited tree and a truncated walk', async (t) => {
    const files: Record<string, string> = { 'top.ts': '' };
    for (let i = 0; i < 100; i++) files[`flat/f${i}.ts`] = '';
    const root = makeTree(t, files);
    const tree = await walk(root);
    const has = membership(tree);
    for (let i = 0; i < 100; i++) assert.ok(has(`flat/f${i}.ts`));
    assert.ok(!has('flat/f100.ts') && !has('flat') && !has('top.tsx'));
    // A hand-edited file list no longer matches the record: a Set answers.
    const edited = membership({ ...tree, files: [...tree.files, 'extra.js'] });
    assert.ok(edited('extra.js') && edited('flat/f1.ts'));
    const cut = await walk(root, { maxEntries: 10 });
    const hasCut = membership(cut);
    for (const f of cut.files) assert.ok(hasCut(f));
    assert.equal(cut.files.filter((f) => hasCut(f)).length, cut.files.length);
    assert.ok(!hasCut('flat/nope.ts'));
    // And the context answers through it.
    assert.ok(createContext(root, tree).has('flat/f7.ts'));
    assert.ok(!createContext(root, tree).has('flat/f7.tsx'));
  });
});
