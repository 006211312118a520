import assert from 'node:assert/strict';
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { createHelper, type Helper } from '../../src/scan/walk/helper.ts';
import { withCases } from '../../src/rules/with-cases.ts';
import { countCases } from '../../src/discover/js/cases.ts';
import { scan } from '../../src/scan/index.ts';
import { createScanCache } from '../../src/scan/incremental/cache.ts';
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

/** 200 files of 10k characters: a batch of 128 holds 1.28M, over its 1M budget. */
function overBudget(): Record<string, string> {
  const tree: Record<string, string> = {};
  for (let i = 0; i < 200; i++) {
    tree[`t/f${i}.test.js`] = `${"it('a', () => {});\n".repeat(1 + (i % 3))}${'/'.repeat(10_000)}`;
  }
  return tree;
}

/**
 * Counts every test file of a fresh walk of `root` after changing it under the walk, through `helper`; with
 * `lot`, the files are first given to `countAhead` in lots of that many, as a rule finds them.
 */
async function countAll(t: { after: (fn: () => unknown) => void }, helper: Helper | undefined, lot?: number) {
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
  for (let i = 0; lot && i < tests.length; i += lot) ctx.countAhead?.(tests.slice(i, i + lot), countCases);
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
    const here = await countAll(t, undefined);
    assert.deepEqual(await countAll(t, dead), here);
    assert.deepEqual(await countAll(t, dead, 100), here, 'and every count given to count ahead');
  });

  test('a batch over its text budget leaves the rest to the scanning thread, read or counted', async (t) => {
    const root = makeTree(t, overBudget());
    const walked = await walk(root);
    const helper = createHelper();
    t.after(() => helper.close());
    const tests = walked.files.filter((f) => f.endsWith('.test.js'));
    const count = (h?: Helper, countedAhead = false) => {
      const ctx = createContext(root, walked, h ? { helper: h } : {});
      if (countedAhead) ctx.countAhead?.(tests, countCases);
      return withCases(ctx, tests, 'jest', countCases);
    };
    const here = await count();
    assert.equal(here.filter((f) => f.cases === 3).length, 66);
    assert.deepEqual(await count(helper), here);
    assert.deepEqual(await count(helper, true), here);
  });
});

/** What a helper was asked to read: its files, and the counter it counts them with, if any. */
type Asked = Array<{ counter?: string; files: readonly string[] }>;

/** `helper`, recording what it is asked in `asked`. */
function watched(helper: Helper, asked: Asked): Helper {
  return {
    ...helper,
    ask: (request, moved) => { asked.push(request as Asked[number]); return helper.ask(request, moved); },
  };
}

suite('counting a first scan\'s test files ahead on the helper thread', () => {
  test('gives the same counts, notes and stamps as counting on the scanning thread', async (t) => {
    const helper = createHelper();
    t.after(() => helper.close());
    const asked: Asked = [];
    const ahead = await countAll(t, watched(helper, asked), 40);
    assert.deepEqual(ahead, await countAll(t, undefined));
    assert.ok(asked.length >= 3, `${asked.length} batches`);
    assert.ok(asked.every((r) => r.counter === 'js-cases'), 'every batch counted there, no text sent back');
    // Lots of 40 are held until a batch is full: fewer, bigger messages; the rest is sent when asked for.
    const sizes = asked.map((r) => r.files.length);
    assert.ok(sizes.slice(0, -1).every((n) => n === 128), sizes.join());
    // (A folder swapped for a link is noted as on this thread: the equality above.)
    assert.ok(ahead.notes.some((n) => n.startsWith('linked/l.test.ts was not read')));
  });

  test('too few files for a message, or a counter the helper does not know: counted here', async (t) => {
    const helper = createHelper();
    t.after(() => helper.close());
    const asked: Asked = [];
    const root = makeTree(t, { 'a.test.js': "it('a', () => {}); it('b', () => {});", 'b.test.js': 'it(1);' });
    const ctx = createContext(root, await walk(root), { helper: watched(helper, asked) });
    ctx.countAhead?.(['a.test.js', 'b.test.js'], countCases);
    const length = (text: string): number => text.length;
    ctx.countAhead?.(['a.test.js'], length);
    const found = await withCases(ctx, ['a.test.js', 'b.test.js'], 'jest', countCases);
    assert.deepEqual(found.map((f) => f.cases), [2, 1]);
    assert.equal((await withCases(ctx, ['a.test.js'], 'jest', length))[0]!.cases, 37);
    assert.equal(asked.length, 0);
  });

  test('a workspace\'s first scan counts each claimed file there, and finds the same tests', async (t) => {
    // Four packages, each run by its own runner through the root's script, some files run by two.
    const tree: Record<string, string> = {
      'package.json': JSON.stringify({ workspaces: ['a', 'b', 'c', 'd'], scripts: { test: 'npm test -ws' } }),
      'a/package.json': JSON.stringify({ scripts: { test: 'jest' } }),
      'b/package.json': JSON.stringify({ scripts: { test: 'vitest run' } }),
      'c/package.json': JSON.stringify({ scripts: { test: 'mocha' } }),
      'd/package.json': JSON.stringify({ scripts: { test: 'jest && vitest run' } }),
    };
    for (let i = 0; i < 160; i++) {
      const dir = 'abcd'[i % 4]!;
      const file = dir === 'c' ? `c/test/t${i}.js` : `${dir}/src/m${i % 3}/f${i}.test.js`;
      tree[file] = "it('x', () => {});\n".repeat(i % 4);
    }
    const root = makeTree(t, tree);
    const cache = createScanCache({ helper: true });
    t.after(() => cache.close());
    const asked: Asked = [];
    const ahead = await scan(root, { cache: { ...cache, helper: watched(cache.helper!, asked) } });
    const here = await scan(root);
    assert.deepEqual({ ...ahead, snapshot: null }, { ...here, snapshot: null });
    assert.equal(here.tests.length, 160);
    assert.ok(here.notes.some((n) => /vitest also runs 40 files/.test(n)), here.notes.join('\n'));
    const counted = asked.filter((r) => r.counter === 'js-cases').flatMap((r) => r.files);
    const claimed = here.tests.map((test) => test.file);
    assert.deepEqual(counted.sort(), claimed.sort(), 'each claimed file counted there once');
  });
});
