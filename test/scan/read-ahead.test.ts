import assert from 'node:assert/strict';
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { createHelper, type Helper } from '../../src/scan/walk/helper.ts';
import { withCases } from '../../src/rules/with-cases.ts';
import { countCases } from '../../src/discover/js/cases.ts';
import { makeTree } from '../helpers/index.ts';

// Enough test files for several batches, some of each kind a read can end in.
function files(): Record<string, string> {
  const tree: Record<string, string> = { 'package.json': '{}', 'big/huge.test.ts': `test('x', () => {});${' '.repeat(2048)}` };
  for (let i = 0; i < 300; i++) tree[`src/m${i % 7}/f${i}.test.ts`] = "test('a', () => {});\n".repeat(i % 5);
  tree['gone/g.test.ts'] = "it('g', () => {});";
  tree['moved/h.test.ts'] = "it('h', () => {});";
  tree['linked/l.test.ts'] = "it('l', () => {});";
  return tree;
}

/** Counts every test file of a fresh walk of `root` after changing it under the walk, through `helper`. */
async function countAll(t: { after: (fn: () => unknown) => void }, helper: Helper | undefined) {
  const root = makeTree(t, files());
  const outside = makeTree(t, { 'l.test.ts': "it('o', () => {}); it('p', () => {});" });
  const tree = await walk(root);
  // After the walk: a file removed, one replaced by a link, a folder swapped for a link to outside.
  unlinkSync(join(root, 'gone/g.test.ts'));
  unlinkSync(join(root, 'moved/h.test.ts'));
  symlinkSync(join(outside, 'l.test.ts'), join(root, 'moved/h.test.ts'));
  renameSync(join(root, 'linked'), join(root, 'linked-away'));
  symlinkSync(outside, join(root, 'linked'));
  const ctx = createContext(root, tree, { maxFileBytes: 1024, ...(helper ? { helper } : {}) });
  const tests = tree.files.filter((f) => f.endsWith('.test.ts'));
  const found = await withCases(ctx, tests, 'jest', countCases, { rowPerFile: true });
  // Stamps hold the inode, which differs between the two trees: compared by which files have one.
  const stamped = [...ctx.record.reads].map(([file, stamp]) => `${file}:${stamp.every((n) => Number.isNaN(n)) ? 'none' : 'stat'}`);
  return { found, notes: ctx.notes, stamped: stamped.sort() };
}

suite('reading a first scan\'s test files ahead on the helper thread', () => {
  test('gives the same counts, notes and stamps as reading them on the scanning thread', async (t) => {
    const helper = createHelper();
    t.after(() => helper.close());
    let asked = 0;
    const counted: Helper = { ...helper, ask: (request, transfer) => { asked++; return helper.ask(request, transfer); } };
    const ahead = await countAll(t, counted);
    const here = await countAll(t, undefined);
    assert.ok(asked >= 3, `the helper read the files (${asked} batches)`);
    assert.deepEqual(ahead, here);
    const byFile = new Map(ahead.found.map((f) => [f.file, f.cases]));
    assert.equal(byFile.get('src/m0/f14.test.ts'), 4);
    assert.equal(byFile.get('big/huge.test.ts'), undefined, 'over maxFileBytes: not read');
    assert.equal(byFile.get('gone/g.test.ts'), undefined);
    assert.equal(byFile.get('moved/h.test.ts'), undefined, 'a link is never read');
    assert.equal(byFile.get('linked/l.test.ts'), undefined, 'a folder that became a link is not crossed');
    assert.ok(ahead.notes.some((n) => n.startsWith('linked/l.test.ts was not read')));
  });

  test('a helper that answers nothing (none running, or it died) leaves every read to the scanning thread', async (t) => {
    const dead: Helper = {
      start: () => {}, watch: () => false, idle: () => false, ask: async () => undefined,
      close: async () => {},
    };
    assert.deepEqual(await countAll(t, dead), await countAll(t, undefined));
  });

  test('a batch over its text budget leaves the files it did not get to to the scanning thread', async (t) => {
    // 200 files of 10k characters: a batch of 128 holds 1.28M, over its 1M budget.
    const tree: Record<string, string> = {};
    for (let i = 0; i < 200; i++) tree[`t/f${i}.test.js`] = `${"it('a', () => {});\n".repeat(1 + (i % 3))}${'/'.repeat(10_000)}`;
    const root = makeTree(t, tree);
    const walked = await walk(root);
    const helper = createHelper();
    t.after(() => helper.close());
    const tests = walked.files.filter((f) => f.endsWith('.test.js'));
    const count = (h?: Helper) => withCases(createContext(root, walked, h ? { helper: h } : {}), tests, 'jest', countCases);
    const ahead = await count(helper);
    assert.deepEqual(ahead, await count());
    assert.equal(ahead.filter((f) => f.cases === 3).length, 66);
  });
});
