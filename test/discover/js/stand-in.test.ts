import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { makeTree } from '../../helpers/index.ts';

async function discover(root: string) {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverJs(ctx);
  return { files: Object.fromEntries(tests.map((t) => [t.file, t.framework])), notes: ctx.notes, runs: ctx.runs };
}
const json = (v: unknown): string => JSON.stringify(v);
const PLACEHOLDER = 'echo "Error: no test specified" && exit 1';

suite('stand-ins for a missing test script: CI test steps, then test:* scripts', () => {
  test('npm\'s placeholder with a GitHub workflow running a test:* script: CI is followed, installs and lints are not', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: PLACEHOLDER, 'test:unit': 'jest --selectProjects unit', 'test:e2e': 'playwright test', lint: 'eslint .' },
        devDependencies: { jest: '^29.7.0', '@playwright/test': '^1.50.0' } }),
      'jest.config.json': json({ projects: [{ displayName: 'unit', testMatch: ['<rootDir>/src/**/*.test.ts'] }] }),
      '.github/workflows/ci.yml': [
        'name: CI', 'on: [push]', 'jobs:', '  test:', '    runs-on: ubuntu-latest', '    steps:',
        '      - uses: actions/checkout@v4', '      - run: npm ci', '      - run: npm run lint',
        '      - name: Unit tests', '        run: |', '          npm run build --if-present', '          npm run test:unit -- --ci', '',
      ].join('\n'),
      'src/a.test.ts': '', 'e2e/b.spec.ts': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.ts': 'jest' });
    assert.equal(notes[0], 'package.json: its test script is npm\'s placeholder (`echo "Error: no test specified" && exit 1`), which runs no tests; '
      + 'followed the test steps CI runs (.github/workflows/ci.yml), the record of what the project runs: `npm run test:unit -- --ci`');
    assert.equal(runs[0]!.command, 'npm run test:unit -- --ci');
  });

  test('no test script: a workflow step in a working-directory, GitLab script lists and CircleCI run maps are read', async (t) => {
    const gh = makeTree(t, {
      'package.json': json({ private: true, devDependencies: { vitest: '^3.2.0' } }),
      '.github/workflows/test.yaml': 'jobs:\n  unit:\n    defaults:\n      run:\n        working-directory: ./web\n    steps:\n      - run: npx vitest run --dir src\n',
      'web/package.json': json({ name: 'web' }), 'web/src/a.test.ts': '', 'web/other/b.test.ts': '', 'c.test.ts': '',
    });
    const a = await discover(gh);
    // The step runs in web/, which is no workspace package of the root: Vitest's root is that directory.
    assert.deepEqual(a.files, { 'web/src/a.test.ts': 'vitest' });
    const gitlab = makeTree(t, {
      'package.json': json({ devDependencies: { mocha: '^10.0.0', jest: '^29.0.0' } }),
      '.gitlab-ci.yml': 'stages: [test]\nunit:\n  stage: test\n  script:\n    - yarn install --frozen-lockfile\n    - yarn mocha "test/**/*.spec.js"\n',
      'test/unit/a.spec.js': '', 'test/b.js': '', 'src/c.test.js': '',
    });
    assert.deepEqual((await discover(gitlab)).files, { 'test/unit/a.spec.js': 'mocha' });
    const circle = makeTree(t, {
      'package.json': json({ scripts: { 'test:ci': 'mocha --recursive test' }, devDependencies: { mocha: '^10.0.0' } }),
      '.circleci/config.yml': 'version: 2.1\njobs:\n  build:\n    steps:\n      - checkout\n      - run:\n          name: Tests\n          command: npm run test:ci\n',
      'test/a.js': '', 'test/deep/b.js': '',
    });
    const c = await discover(circle);
    assert.deepEqual(c.files, { 'test/a.js': 'mocha', 'test/deep/b.js': 'mocha' });
    assert.match(c.notes[0]!, /has no test script; followed the test steps CI runs \(\.circleci\/config\.yml\)/);
  });

  test('without CI, the test:* and test-* scripts stand in; a CI line that runs the placeholder itself is not a test step', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: PLACEHOLDER, 'test:node': 'node --test test/*.test.js', 'test-browser': 'vitest run --dir browser', build: 'tsc' } }),
      '.github/workflows/ci.yml': 'jobs:\n  a:\n    steps:\n      - run: npm test\n      - run: npm run build\n',
      'test/a.test.js': '', 'browser/b.test.ts': '', 'src/c.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'browser/b.test.ts': 'vitest', 'test/a.test.js': 'node-test' });
    assert.equal(notes[0], 'package.json: its test script is npm\'s placeholder (`echo "Error: no test specified" && exit 1`), which runs no tests; '
      + 'followed its `test-browser`, `test:node` scripts instead');
  });

  test('neither CI steps nor test:* scripts: the defaults of the configured runner, and the placeholder is named as such', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: PLACEHOLDER }, devDependencies: { vitest: '^3.0.0' } }),
      '.github/workflows/ci.yml': 'jobs:\n  a:\n    steps:\n      - run: npm ci\n      - run: npx eslint .\n',
      'a.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'a.test.ts': 'vitest' });
    assert.deepEqual(notes, ['package.json: its test script is npm\'s placeholder (`echo "Error: no test specified" && exit 1`), which runs no tests; '
      + 'assumed the defaults of vitest']);
  });

  test('a workspace root without a test script: CI\'s root Vitest projects come before the members\' own scripts; '
    + 'members whose files the root lists are not named as unreached; an expression-chosen script is widened or said', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ private: true, workspaces: ['packages/*', 'examples/*'], devDependencies: { vitest: '^4.1.0' },
        scripts: { 'test-unit': 'vitest --project unit --no-watch', 'test-e2e-chromium': 'playwright test --project=chromium' } }),
      'vitest.config.mts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: [\n"
        + "  { extends: true, test: { name: 'unit', include: ['packages/**/__tests__/unit/**/*.test.ts'] } },\n"
        + "  { extends: true, test: { name: 'browser', include: ['packages/**/__tests__/browser/**/*.test.ts'] } },\n] } });\n",
      '.github/workflows/tests.yml': 'jobs:\n  unit:\n    steps:\n      - run: pnpm run test-unit\n'
        + '  e2e:\n    steps:\n      - run: pnpm run test-e2e-${{ inputs.browser }}\n      - run: pnpm run test-${{ matrix.suite }}-nightly\n',
      'packages/core/package.json': json({ name: 'core' }),
      'packages/core/src/__tests__/unit/a.test.ts': '', 'packages/core/src/__tests__/browser/b.test.ts': '',
      'packages/other/package.json': json({ name: 'other' }), 'packages/other/src/c.ts': '',
      'examples/demo/package.json': json({ name: 'demo', scripts: { test: 'playwright test' } }), 'examples/demo/tests/d.spec.ts': '',
    });
    const { files, notes } = await discover(root);
    // The matrix runs every browser: `test-e2e-*` names the package's e2e scripts (Playwright over the root).
    // Without a config Playwright's testDir is the root: it runs every *.spec|test file the unit project left.
    assert.deepEqual(files, { 'examples/demo/tests/d.spec.ts': 'playwright', 'packages/core/src/__tests__/browser/b.test.ts': 'playwright',
      'packages/core/src/__tests__/unit/a.test.ts': 'vitest' });
    assert.match(notes[0]!, /^package\.json has no test script; followed the test steps CI runs \(\.github\/workflows\/tests\.yml\)/);
    assert.ok(notes.includes('package.json: CI names `pnpm run test-e2e-${{ inputs.browser }}` through a workflow expression; '
      + 'every script of the package it can name was followed'), notes.join('\n'));
    assert.ok(notes.includes('package.json: CI also runs `pnpm run test-${{ matrix.suite }}-nightly`, whose script a workflow expression chooses; not followed'), notes.join('\n'));
    assert.equal(notes[notes.length - 1], 'not reached by the test command, so not listed: packages/other');
  });
});

