// The Mocha rule: src/discover/js/runners/mocha.ts.
// Fixtures in test/fixtures/: js-mocha-default, js-mocha-rc.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-mocha-default': all('mocha', ['test/a.js', 'test/c.mjs']),
  'js-mocha-rc': all('mocha', ['test/unit/a.js', 'test/unit/deep/b.ts']),
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
  test('.mocharc.yml and pnpm-workspace.yaml are read with the shared YAML reader', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ private: true }),
      'pnpm-workspace.yaml': 'packages: ["apps/*"] # flow form\ncatalog:\n  mocha: ^11.0.0\n',
      'apps/api/package.json': JSON.stringify({ scripts: { test: 'mocha' } }),
      'apps/api/.mocharc.yml': 'spec: [spec/**/*.spec.js, "it/*.js"]\nrecursive: true\n',
      'apps/api/spec/x/a.spec.js': '', 'apps/api/it/b.js': '', 'apps/api/test/c.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('mocha', ['apps/api/it/b.js', 'apps/api/spec/x/a.spec.js']));
  });
});
