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
      'packages/a/package.json': '{}', 'packages/a/index.js': '', 'packages/a/src/x.js': '',
      'packages/a/sub/package.json': '{}', 'packages/a/sub/deep/y.js': '',
      'packages/ab/package.json': '{}', 'packages/ab/z.js': '',
      'packages/a-not/package.json': '{}',
      'packages/a/node_modules/dep/index.js': '', 'loose.js': '',
    });
    const ctx = createContext(root, await walk(root));
    const pkgs = await findPackages(ctx);
    const byDir = new Map(pkgs.map((p) => [p.dir, p]));
    assert.deepEqual(pkgs.map((p) => p.dir), ['packages/a/sub', 'packages/a', 'packages/a-not', 'packages/ab', '']);
    const files = (dir: string) => [...byDir.get(dir)!.files].sort();
    const dirs = (dir: string) => [...byDir.get(dir)!.dirs].sort();
    assert.deepEqual(files('packages/a'), ['index.js', 'package.json', 'src/x.js', 'sub/deep/y.js', 'sub/package.json']);
    assert.deepEqual(dirs('packages/a'), ['src', 'sub', 'sub/deep']);
    assert.deepEqual(files('packages/a/sub'), ['deep/y.js', 'package.json']);
    assert.deepEqual(dirs('packages/a/sub'), ['deep']);
    assert.deepEqual(files('packages/ab'), ['package.json', 'z.js']);
    assert.deepEqual(files('packages/a-not'), ['package.json']);
    assert.deepEqual(dirs('packages/a-not'), []);
    assert.deepEqual(files(''), [...ctx.files].sort());
  });
});
