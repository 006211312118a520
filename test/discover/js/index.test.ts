import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover } from '../../helpers/discover.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

// discoverJs across runners (src/discover/js/index.ts): fixtures whose files come through scripts and
// workspace packages, case counts, what config evaluation notes, the fallback without a test script.
// Each runner's own tests, beside the list of its fixtures, are in runners/<runner>.test.ts.

const EXPECTED: Record<string, Record<string, string>> = {
  'js-script-chain': all('jest', ['server/a.test.js']),
  'js-run-s-glob': all('node-test', ['src/util.test.js', 'test/index.js']),
  'js-pnpm-filter': { 'packages/cli/test/run.test.js': 'node-test', 'packages/core/src/sum.test.ts': 'vitest' },
  'js-no-root-test': all('jest', ['packages/a/a.test.js']),
  'js-lerna-scope': all('mocha', ['packages/one/test/one.spec.js']),
  'js-monorepo-mixed': { 'apps/e2e/tests/flow.spec.ts': 'playwright', 'apps/web/src/a.test.tsx': 'vitest' },
};

suite('discoverJs on fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED)) {
    test(`${name}: exact file list and frameworks`, async () => {
      const { files } = await discover(fixture(name));
      assert.deepEqual(files, expected);
    });
  }
  test('case counts are static estimates that skip comments and describe blocks', async () => {
    const { cases } = await discover(fixture('js-jest-default'));
    assert.equal(cases['src/a.test.js'], 2);
    const pw = await discover(fixture('js-playwright'));
    assert.equal(pw.cases['e2e/home.spec.ts'], 1);
    const jas = await discover(fixture('js-jasmine'));
    assert.equal(jas.cases['spec/aSpec.js'], 2);
  });
  test('a literal config produces no notes beyond the environment it assumed', async () => {
    const { notes } = await discover(fixture('js-playwright'));
    assert.deepEqual(notes, ['playwright.config.ts: assumed process.env.CI is unset, as in a plain `npm test`']);
  });
  test('a condition on process.env takes the unset branch and says so', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' } }),
      'jest.config.js': 'module.exports = { testMatch: process.env.CI ? ["**/*.ci.js"] : ["**/*.test.js"] };',
      'src/a.test.js': '', 'src/b.ci.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.js': 'jest' });
    assert.deepEqual(notes, ['jest.config.js: assumed process.env.CI is unset, as in a plain `npm test`']);
  });
  test('a key that stays unknown falls back to the default and is noted', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' } }),
      'jest.config.js': 'const { patterns } = require("some-preset");\nmodule.exports = { testMatch: patterns };',
      'src/a.test.js': '', 'src/b.ci.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.js': 'jest' });
    assert.deepEqual(notes, ['jest.config.js: some-preset is not installed under node_modules; what it provides is unknown',
      'jest.config.js: `testMatch` is computed; used the default']);
  });
  test('without a test script, the depended-on runner is assumed and noted', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' }, devDependencies: { vitest: '^4.0.0', '@playwright/test': '^1.50.0' } }),
      'playwright.config.ts': "export default { testDir: 'e2e' };",
      'e2e/a.spec.ts': '', 'src/b.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'e2e/a.spec.ts': 'playwright', 'src/b.test.ts': 'vitest' });
    assert.equal(notes[0], 'package.json: its test script is npm\'s placeholder (`echo "Error: no test specified" && exit 1`), which runs no tests; assumed the defaults of playwright, vitest');
  });
  test('unquoted globs in a script are expanded by sh, which has no **', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test src/**/*.test.js && mocha "lib/**/*.spec.js"' } }),
      'src/a.test.js': '', 'src/x/b.test.js': '', 'src/x/y/c.test.js': '', 'lib/a.spec.js': '', 'lib/x/y/b.spec.js': '',
    });
    assert.deepEqual((await discover(root)).files, {
      'src/x/b.test.js': 'node-test', 'lib/a.spec.js': 'mocha', 'lib/x/y/b.spec.js': 'mocha',
    });
  });
});
