// The `bun test` rule: src/discover/js/runners/bun.ts.
// No fixture: its tests write temp trees.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { makeTree } from '../../../helpers/index.ts';

suite('discoverJs on fixtures', () => {
  test('bun reads `[test] root` from bunfig.toml, not a `root` of another table', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'bun test' } }),
      'bunfig.toml': '[install]\nroot = "elsewhere"\n\n[test] # bun test options\nroot = "./src" # only here\npreload = ["./setup.ts"]\n',
      'src/a.test.ts': '', 'src/deep/b_spec.tsx': '', 'elsewhere/c.test.ts': '', 'd.test.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('bun', ['src/a.test.ts', 'src/deep/b_spec.tsx']));
  });
});
