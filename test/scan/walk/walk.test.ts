import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { call, makeTree, serve, writeTree } from '../../helpers/index.ts';

// /health during a scan is tested in scan-http.test.ts (a scan held open, and the event-loop delay).

const sorted = (list: readonly string[]): string[] => [...list].sort();

suite('walk()', () => {
  test('lists regular files and directories, pruning installs, VCS, virtualenvs and cache dirs', async (t) => {
    const root = makeTree(t, {
      'a.js': '', 'src/b.test.js': '', '.hidden/c.js': '',
      'node_modules/x/x.test.js': '', 'pkg/node_modules/y.test.js': '', '.git/HEAD': '', '.hg/x': '',
      '.venv/pyvenv.cfg': '', '.venv/lib/test_x.py': '', 'env2/pyvenv.cfg': '',
      'target/CACHEDIR.TAG': '', 'target/debug/x.rs': '', '__pycache__/a.pyc': '',
    });
    const tree = await walk(root);
    assert.deepEqual(sorted(tree.files), ['.hidden/c.js', 'a.js', 'src/b.test.js']);
    assert.deepEqual(sorted(tree.dirs), ['', '.hidden', 'pkg', 'src']);
    assert.equal(tree.truncated, null);
  });

  test('stamps every listed directory before listing it; stampsUpTo drops them past a bound, the tree unchanged', async (t) => {
    const root = makeTree(t, { 'a.js': '', 'x/b.js': '', 'x/y/c.js': '', 'z/d.js': '' });
    const full = await walk(root);
    assert.equal(full.record.stamps.length, full.record.dirs.length * 4);
    assert.ok([...full.record.stamps].every((n) => Number.isFinite(n) || Number.isNaN(n)));
    assert.ok(full.record.stamps.some((n) => Number.isFinite(n) && n > 0)); // the inodes at least
    const bounded = await walk(root, { stampsUpTo: 3 });
    assert.equal(bounded.record.stamps.length, 0);
    assert.deepEqual(sorted(bounded.files), sorted(full.files));
    assert.deepEqual(Array.from(bounded.record.fileCounts).reduce((a, b) => a + b, 0), full.files.length);
    // Per-directory numbers as typed arrays (a plain array of numbers costs 4-5x the bytes).
    assert.ok(full.record.flags instanceof Uint8Array && full.record.fileCounts instanceof Uint32Array);
    const roomy = await walk(root, { stampsUpTo: 8 });
    assert.equal(roomy.record.stamps.length, roomy.record.dirs.length * 4);
  });

  test('never follows symlinks: a loop, a link to / and a link out of the project', { timeout: 20_000 }, async (t) => {
    const outside = makeTree(t, { 'secret.test.js': '' });
    const root = makeTree(t, { 'src/a.test.js': '' });
    symlinkSync(root, join(root, 'src', 'loop'));
    symlinkSync('/', join(root, 'rootlink'));
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync(join(outside, 'secret.test.js'), join(root, 'linked.test.js'));
    const tree = await walk(root);
    assert.deepEqual(sorted(tree.files), ['src/a.test.js']);
    assert.deepEqual(sorted(tree.dirs), ['', 'src']);
  });

  test('skips FIFOs, and a FIFO named like a config file does not hang a read', async (t) => {
    const root = makeTree(t, { 'a.test.js': '' });
    execFileSync('mkfifo', [join(root, 'package.json')]);
    const tree = await walk(root);
    assert.deepEqual(tree.files, ['a.test.js']);
    // Even if a rule asks for it, read() only opens files the walk recorded as regular files.
    const ctx = createContext(root, { ...tree, files: [...tree.files, 'package.json'] });
    assert.equal(await ctx.read('package.json'), undefined);
  });

  test('read() refuses files the walk did not see, symlinks and files over the cap', async (t) => {
    const root = makeTree(t, { 'big.json': 'x'.repeat(2000), 'ok.json': '{"a": 1, // c\n}' });
    symlinkSync('/etc/passwd', join(root, 'link.json'));
    const tree = await walk(root);
    const ctx = createContext(root, { ...tree, files: [...tree.files, 'link.json', '../outside'] }, { maxFileBytes: 1000 });
    assert.equal(await ctx.read('big.json'), undefined);
    assert.equal(await ctx.read('link.json'), undefined);
    assert.equal(await ctx.read('../outside'), undefined);
    assert.equal(await ctx.read('missing.json'), undefined);
    assert.deepEqual(await ctx.readJson('ok.json'), { a: 1 });
  });

  test('read() keeps a text for the rest of the scan; readOnce() does not, but uses a kept one', async (t) => {
    const root = makeTree(t, { 'a.txt': 'one', 'b.txt': 'one' });
    const ctx = createContext(root, await walk(root));
    assert.equal(await ctx.read('a.txt'), 'one');
    assert.equal(await ctx.readOnce('b.txt'), 'one');
    writeTree(root, { 'a.txt': 'two', 'b.txt': 'two' });
    assert.equal(await ctx.read('a.txt'), 'one');
    assert.equal(await ctx.readOnce('a.txt'), 'one');
    assert.equal(await ctx.readOnce('b.txt'), 'two');
    assert.equal(await ctx.readOnce('../escape'), undefined);
  });

  test('stops at the depth, entry and time caps and says which', async (t) => {
    const deep = Array.from({ length: 6 }, (_, i) => `d${i}`).join('/');
    const root = makeTree(t, { [`${deep}/x.test.js`]: '', 'top.test.js': '' });
    const depth = await walk(root, { maxDepth: 3 });
    assert.match(depth.truncated ?? '', /depth limit of 3/);
    assert.deepEqual(sorted(depth.files), ['top.test.js']);

    const many = makeTree(t, Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}.js`, ''])));
    const entries = await walk(many, { maxEntries: 10 });
    assert.match(entries.truncated ?? '', /entry limit of 10/);
    // The cap counts entries: exactly ten of the fifty files, each a real one, none twice.
    assert.equal(entries.files.length, 10);
    assert.equal(new Set(entries.files).size, 10);
    for (const file of entries.files) assert.match(file, /^f([0-9]|[1-4][0-9])\.js$/);

    let clock = 0;
    const timed = await walk(root, { timeoutMs: 5, now: () => (clock += 10) });
    assert.match(timed.truncated ?? '', /time limit of 5 ms/);
    // The clock is past the deadline before the first directory is read: nothing is listed.
    assert.deepEqual([timed.files, timed.dirs], [[], ['']]);

    const controller = new AbortController();
    controller.abort();
    assert.equal((await walk(root, { signal: controller.signal })).truncated, 'scan aborted');
  });

  test('holds no descriptor after a walk, whole or cut short by a cap while subdirectories wait', { skip: !existsSync('/proc/self/fd') }, async (t) => {
    // Directories wait to be opened through their listed parent, which stays open meanwhile (Linux).
    const tree: Record<string, string> = {};
    for (let a = 0; a < 6; a++) for (let b = 0; b < 6; b++) for (let c = 0; c < 4; c++) tree[`a${a}/b${b}/c${c}/x.test.js`] = '';
    const root = makeTree(t, tree);
    const open = (): number => readdirSync('/proc/self/fd').length;
    const before = open();
    let ticks = 0;
    const cuts = [{}, { maxEntries: 40 }, { maxPathChars: 300 }, { maxDepth: 2 }, { timeoutMs: 5, now: () => (ticks += 1) }];
    for (const cut of cuts) {
      const walked = await walk(root, cut);
      assert.ok(walked.files.length > 0 || walked.truncated !== null);
      assert.equal(open(), before, `no descriptor left after ${JSON.stringify(cut)}`);
    }
    assert.equal((await walk(root)).files.length, 144);
    // A caller's callback that throws fails the walk, in its first slice or a later one, and lets go too.
    for (const after of [1, 40]) {
      let seen = 0;
      const exclude = (): boolean => { if (++seen === after) throw new Error('no'); return false; };
      await assert.rejects(walk(root, { exclude, sliceMs: 0 }), /no/);
      assert.equal(open(), before, `no descriptor left after a throw at directory ${after}`);
    }
  });

  test('an unreadable directory is skipped and counted, the rest is walked', { skip: process.getuid?.() === 0 ? 'root reads every directory' : false }, async (t) => {
    const root = makeTree(t, { 'locked/a.test.js': '', 'open/b.test.js': '' });
    chmodSync(join(root, 'locked'), 0);
    t.after(() => chmodSync(join(root, 'locked'), 0o755));
    const tree = await walk(root);
    assert.deepEqual(tree.files, ['open/b.test.js']);
    assert.equal(tree.errors, 1);
  });

  test('an unreadable directory (simulated through the fs option) is skipped and counted', async (t) => {
    const root = makeTree(t, { 'locked/a.test.js': '', 'open/b.test.js': '' });
    const { promises } = await import('node:fs');
    const fs = {
      readdir: (path: string, options: { withFileTypes: true }) =>
        path.endsWith('/locked/') ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })) : promises.readdir(path, options),
    };
    const tree = await walk(root, { fs });
    assert.deepEqual(tree.files, ['open/b.test.js']);
    assert.equal(tree.errors, 1);
  });
});

suite('scan over HTTP on hostile trees', () => {
  test('a symlink loop and a link to / are not followed; the scan lists only files inside', { timeout: 20_000 }, async (t) => {
    const root = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', 'src/a.test.ts': '' });
    symlinkSync(root, join(root, 'src', 'self'));
    symlinkSync('/', join(root, 'slash'));
    mkdirSync(join(root, 'empty'));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 200);
    assert.equal(res.body.truncated, null);
    // Exactly the one file inside: nothing reached through src/self (a loop) or slash (/).
    assert.deepEqual(res.body.tests.map((x: { file_path: string }) => x.file_path), ['src/a.test.ts']);
    assert.equal(res.body.testsFound, 1);
  });
});
