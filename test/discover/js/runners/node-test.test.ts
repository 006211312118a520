// The `node --test` rule: src/discover/js/runners/node-test.ts.
// Fixtures in test/fixtures/: js-node-test.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-node-test': all('node-test', ['foo/test/i.js', 'src/a.test.js', 'src/b-test.cjs', 'src/c_test.mjs', 'src/f.test.ts', 'src/test-d.js',
    'src/test.js', 'test/a.mjs', 'test/sub/helper.js']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
  test('node 20 (from .nvmrc) searches recursively and includes dot files', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), '.nvmrc': 'v20.11.0\n',
      'test/x.js': '', '.hidden.test.js': '', 'src/a.test.ts': '', 'src/b-test.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('node-test', ['.hidden.test.js', 'src/b-test.js', 'test/x.js']));
  });
});
