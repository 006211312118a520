import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { makeTree } from '../../helpers/index.ts';

suite('createContext() sliced reads', () => {
  test('many queued reads all resolve, and other callbacks run between slices', async (t) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`src/f${i}.test.js`] = `it('case ${i}', () => {});\n`;
    const root = makeTree(t, files);
    // sliceMs 0: every read is its own slice, so the event loop gets a turn after each one.
    const ctx = createContext(root, await walk(root), { sliceMs: 0 });
    let turns = 0;
    const ticker = setInterval(() => { turns++; }, 0);
    try {
      const texts = await Promise.all(Object.keys(files).map((f) => ctx.read(f)));
      assert.deepEqual(texts, Object.values(files));
    } finally {
      clearInterval(ticker);
    }
    assert.ok(turns > 0, 'a timer ran while the reads were queued');
  });

  test('one read per file: concurrent and repeated reads share the result', async (t) => {
    const root = makeTree(t, { 'package.json': '{"name":"a"}' });
    const ctx = createContext(root, await walk(root));
    const [a, b] = [ctx.read('package.json'), ctx.read('package.json')];
    assert.equal(a, b);
    assert.equal(await a, '{"name":"a"}');
    appendFileSync(join(root, 'package.json'), ' ');
    assert.equal(await ctx.read('package.json'), '{"name":"a"}');
  });

  test('reads an empty file as "", a directory recorded as a file as undefined, and multi-byte text whole', async (t) => {
    const text = 'é'.repeat(5000) + '\n';
    const root = makeTree(t, { 'empty.js': '', 'utf8.js': text });
    mkdirSync(join(root, 'dir.js'));
    const tree = await walk(root);
    const ctx = createContext(root, { ...tree, files: [...tree.files, 'dir.js'] });
    assert.equal(await ctx.read('empty.js'), '');
    assert.equal(await ctx.read('utf8.js'), text);
    assert.equal(await ctx.read('dir.js'), undefined);
  });
});

suite('walk() concurrency', () => {
  test('any concurrency lists the same tree', async (t) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) for (let j = 0; j < 5; j++) files[`d${i}/e${j % 2}/f${j}.js`] = '';
    const root = makeTree(t, files);
    const expected = Object.keys(files).sort();
    for (const concurrency of [1, 4, 32, 256]) {
      assert.deepEqual([...(await walk(root, { concurrency })).files].sort(), expected);
    }
  });
});
