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

  test('a package with a nested one is not taken for a leaf, even when a look-alike sorts between them', async (t) => {
    // Code-unit order: apps/x, apps/x-y, apps/x/inner ('-' sorts before '/'); folders below a package with
    // no package under it share its owners, so apps/x must not count as one.
    const root = makeTree(t, {
      'package.json': JSON.stringify({ workspaces: ['apps/*', 'apps/x/inner', 'apps/x/inner/*'] }),
      'apps/x/package.json': '{}', 'apps/x/a/b/c.js': '', 'apps/x/inner/package.json': '{}',
      'apps/x/inner/d/e.js': '', 'apps/x/inner/leaf/package.json': '{}', 'apps/x/inner/leaf/f/g.js': '',
      'apps/x-y/package.json': '{}', 'apps/x-y/h/i.js': '', 'apps/xz/package.json': '{}', 'apps/xz/j.js': '',
      'apps/x/k/l.js': '', 'lib/m/n.js': '',
    });
    const tree = await walk(root);
    const byHand = { files: [...tree.files].reverse(), dirs: [...tree.dirs].reverse(), truncated: null };
    for (const ctx of [createContext(root, tree), createContext(root, byHand)]) {
      const pkgs = await findPackages(ctx);
      assert.equal(pkgs.length, 6);
      // Every package owns exactly the files and folders below it, however nested, in the tree's order.
      for (const pkg of pkgs.filter((p) => p.dir !== '')) {
        const below = `${pkg.dir}/`;
        assert.deepEqual(pkg.files, ctx.files.filter((f) => f.startsWith(below)).map((f) => f.slice(below.length)), pkg.dir);
        assert.deepEqual([...pkg.dirs], ctx.dirs.filter((d) => d.startsWith(below)).map((d) => d.slice(below.length)), pkg.dir);
      }
    }
  });
});
