// Package membership (src/discover/js/packages/packages.ts): which files and directories each package owns.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { findPackages } from '../../../src/discover/js/packages/packages.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { makeTree } from '../../helpers/index.ts';

suite('findPackages(): members', () => {
  test('nested members, a file at a package root, a name that only starts like a package, node_modules', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ workspaces: ['packages/*', 'packages/a/sub'] }),
      'packages/a/package.json': '{}', 'packages/a/index.js': '', 'packages/a/src/x.js': '', 'packages/a/src/w.js': '',
      'packages/a/sub/package.json': '{}', 'packages/a/sub/deep/y.js': '',
      'packages/ab/package.json': '{}', 'packages/ab/z.js': '',
      'packages/a-not/package.json': '{}',
      'packages/a/node_modules/dep/index.js': '', 'loose.js': '',
    });
    const tree = await walk(root);
    // From the walk's directory runs, and from the paths alone (a tree built by hand has no runs).
    const byHand = { files: [...tree.files].reverse(), dirs: tree.dirs, truncated: null };
    for (const ctx of [createContext(root, tree), createContext(root, byHand)]) {
      assert.equal(ctx.dirRuns?.() !== undefined, ctx.files === tree.files);
      const pkgs = await findPackages(ctx);
      const byDir = new Map(pkgs.map((p) => [p.dir, p]));
      assert.deepEqual(pkgs.map((p) => p.dir), ['packages/a/sub', 'packages/a', 'packages/a-not', 'packages/ab', '']);
      // In the order of the tree's files.
      const inOrder = (dir: string) => ctx.files.filter((f) => f.startsWith(`${dir}/`)).map((f) => f.slice(dir.length + 1));
      for (const dir of ['packages/a', 'packages/a/sub', 'packages/ab']) assert.deepEqual(byDir.get(dir)!.files, inOrder(dir));
      const files = (dir: string) => [...byDir.get(dir)!.files].sort();
      const dirs = (dir: string) => [...byDir.get(dir)!.dirs].sort();
      assert.deepEqual(files('packages/a'), ['index.js', 'package.json', 'src/w.js', 'src/x.js', 'sub/deep/y.js', 'sub/package.json']);
      assert.deepEqual(dirs('packages/a'), ['src', 'sub', 'sub/deep']);
      assert.deepEqual(files('packages/a/sub'), ['deep/y.js', 'package.json']);
      assert.deepEqual(dirs('packages/a/sub'), ['deep']);
      assert.deepEqual(files('packages/ab'), ['package.json', 'z.js']);
      assert.deepEqual(files('packages/a-not'), ['package.json']);
      assert.deepEqual(dirs('packages/a-not'), []);
      assert.deepEqual(files(''), [...ctx.files].sort());
    }
  });
});
