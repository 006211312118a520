// The Jest rules (jest, CRA's `react-scripts test`, `kcd-scripts test`): src/discover/js/runners/jest.ts.
// Fixtures in test/fixtures/: js-cra, js-jest-config, js-jest-default, js-jest-groups,
// js-jest-preset-package, js-jest-projects, js-jest-regex, js-jest-shared-config.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, fixtureSuite, json } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-jest-default': all('jest', ['.hidden/k.test.js', 'lib/__mocks__/o.test.js', 'src/__tests__/b.js', 'src/__tests__/fixtures/data.js',
    'src/a.test.js', 'src/c.test.mjs', 'src/testtest.js']),
  'js-jest-regex': all('jest', ['src/a.spec.js', 'tests/x.js']),
  'js-jest-config': all('jest', ['src/a.test.ts', 'tests/b.spec.js']),
  'js-jest-projects': all('jest', ['packages/a/x.check.js', 'packages/b/b.test.js']),
  'js-cra': all('jest', ['src/App.test.js', 'src/__tests__/u.js']),
  'js-jest-shared-config': all('jest', ['src/a.spec.js', 'src/b.spec.ts', 'test/e.test.js', 'test/slow/g.test.js']),
  'js-jest-preset-package': all('jest', ['src/a.spec.js', 'src/b.spec.ts', 'tests/d.spec.js']),
};

fixtureSuite(EXPECTED);

suite('JS discovery on shapes from real repositories', () => {
  test('Jest reads a bare (a|b) in testMatch as a group, and inline projects take rootDir "." from where jest runs', async () => {
    const { files } = await discover(fixture('js-jest-groups'));
    assert.deepEqual(files, all('jest', ['src/__tests__/double.test.js', 'src/__tests__/form.spec.jsx', 'src/logic/double.node.test.js']));
  });
  test('a Jest config reads process.argv as jest\'s command line', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest --ci' }, devDependencies: { jest: '^29.7.0' } }),
      'jest.config.js': "const ci = process.argv.includes('--ci');\nmodule.exports = { roots: ci ? ['<rootDir>/ci'] : ['<rootDir>/src'] };\n",
      'ci/a.test.js': '', 'src/b.test.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('jest', ['ci/a.test.js']));
  });
});

suite('Jest default testMatch and where the project lives', () => {
  test('a project inside a folder named __tests__: every file with a Jest extension matches the default testMatch', async (t) => {
    const outer = makeTree(t, {
      '__tests__/app/package.json': json({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' } }),
      '__tests__/app/src/plain.js': '', '__tests__/app/src/a.test.js': '', '__tests__/app/README.md': '',
    });
    assert.deepEqual((await discover(`${outer}/__tests__/app`)).files, all('jest', ['src/a.test.js', 'src/plain.js']));
  });
});

suite('wrapper CLIs and presets', () => {
  test('kcd-scripts test uses its built-in Jest config, or the project\'s own spread over it', async (t) => {
    const files = { 'src/__tests__/a.ts': '', 'src/b.test.ts': '', 'src/__tests__/helpers/h.js': '', 'test/__tests__/c.js': '' };
    const builtIn = makeTree(t, { 'package.json': json({ scripts: { test: 'kcd-scripts test' } }), ...files });
    assert.deepEqual((await discover(builtIn)).files, { 'src/__tests__/a.ts': 'jest' });
    const spread = makeTree(t, {
      'package.json': json({ scripts: { test: 'kcd-scripts test' } }), ...files,
      'jest.config.js': "const config = require('kcd-scripts/jest');\nmodule.exports = { ...config, roots: ['<rootDir>/src', '<rootDir>/test'] };",
    });
    assert.deepEqual((await discover(spread)).files, { 'src/__tests__/a.ts': 'jest', 'test/__tests__/c.js': 'jest' });
  });
});
