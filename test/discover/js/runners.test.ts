import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

/** Runs JS discovery alone on a directory: `{ file: framework }` plus the notes. */
async function discover(root: string): Promise<{ files: Record<string, string>; cases: Record<string, number | undefined>; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverJs(ctx);
  return {
    files: Object.fromEntries(tests.map((t) => [t.file, t.framework])),
    cases: Object.fromEntries(tests.map((t) => [t.file, t.cases])),
    notes: ctx.notes,
  };
}

const all = (framework: string, files: string[]): Record<string, string> => Object.fromEntries(files.map((f) => [f, framework]));

const EXPECTED: Record<string, Record<string, string>> = {
  'js-jest-default': all('jest', ['.hidden/k.test.js', 'lib/__mocks__/o.test.js', 'src/__tests__/b.js', 'src/__tests__/fixtures/data.js',
    'src/a.test.js', 'src/c.test.mjs', 'src/testtest.js']),
  'js-jest-regex': all('jest', ['src/a.spec.js', 'tests/x.js']),
  'js-jest-config': all('jest', ['src/a.test.ts', 'tests/b.spec.js']),
  'js-jest-projects': all('jest', ['packages/a/x.check.js', 'packages/b/b.test.js']),
  'js-cra': all('jest', ['src/App.test.js', 'src/__tests__/u.js']),
  'js-vitest-default': all('vitest', ['.hidden/d.test.js', 'dist/c.test.js', 'src/a.test.ts', 'src/b.spec.tsx']),
  'js-vitest-config': all('vitest', ['src/a.test.ts', 'src/t.test-d.ts', 'tests/helper.ts']),
  'js-vitest-workspace': all('vitest', ['packages/core/src/a.test.ts', 'packages/ui/src/Button.spec.tsx']),
  'js-mocha-default': all('mocha', ['test/a.js', 'test/c.mjs']),
  'js-mocha-rc': all('mocha', ['test/unit/a.js', 'test/unit/deep/b.ts']),
  'js-node-test': all('node-test', ['foo/test/i.js', 'src/a.test.js', 'src/b-test.cjs', 'src/c_test.mjs', 'src/f.test.ts', 'src/test-d.js',
    'src/test.js', 'test/a.mjs', 'test/sub/helper.js']),
  'js-playwright': all('playwright', ['e2e/Login.SPEC.ts', 'e2e/home.spec.ts']),
  'js-cypress': all('cypress', ['cypress/e2e/login.cy.ts', 'cypress/e2e/nested/x.cy.js']),
  'js-ava': all('ava', ['src/x.spec.mjs', 'test.js', 'test/a.js']),
  'js-jasmine': all('jasmine', ['spec/aSpec.js', 'spec/unit/b.spec.mjs']),
  'js-jest-shared-config': all('jest', ['src/a.spec.js', 'src/b.spec.ts', 'test/e.test.js', 'test/slow/g.test.js']),
  'js-playwright-computed': all('playwright', ['tests/e2e/cart.flow.ts', 'tests/e2e/local-only/debug.e2e.ts', 'tests/e2e/login.e2e.ts']),
  'js-vitest-merge': all('vitest', ['src/a.test.ts', 'src/b.test.tsx', 'tests/x.spec.ts']),
  'js-script-chain': all('jest', ['server/a.test.js']),
  'js-run-s-glob': all('node-test', ['src/util.test.js', 'test/index.js']),
  'js-pnpm-filter': { 'packages/cli/test/run.test.js': 'node-test', 'packages/core/src/sum.test.ts': 'vitest' },
  'js-no-root-test': all('jest', ['packages/a/a.test.js']),
  'js-lerna-scope': all('mocha', ['packages/one/test/one.spec.js']),
  'js-tap': all('tap', ['dist/built.test.js', 'lib/test.js', 'src/b.spec.ts', 'src/c.test.mjs', 'test/a.test.js', 'test/helpers/util.js']),
  'js-uvu': all('uvu', ['tests/index.js', 'tests/parse/basic.js', 'tests/setup.mjs']),
  'js-borp': all('borp', ['test/a.test.js', 'test/deep/b.test.js']),
  'js-angular-karma': all('karma', ['src/app/app.component.spec.ts', 'src/app/util/format.spec.ts']),
  'js-jest-preset-package': all('jest', ['src/a.spec.js', 'src/b.spec.ts', 'tests/d.spec.js']),
  'js-vitest-shared-config': all('vitest', ['src/a.check.ts', 'src/b.check.js']),
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
  test('node 20 (from .nvmrc) searches recursively and includes dot files', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }), '.nvmrc': 'v20.11.0\n',
      'test/x.js': '', '.hidden.test.js': '', 'src/a.test.ts': '', 'src/b-test.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('node-test', ['.hidden.test.js', 'src/b-test.js', 'test/x.js']));
  });
  test('bun reads `[test] root` from bunfig.toml, not a `root` of another table', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'bun test' } }),
      'bunfig.toml': '[install]\nroot = "elsewhere"\n\n[test] # bun test options\nroot = "./src" # only here\npreload = ["./setup.ts"]\n',
      'src/a.test.ts': '', 'src/deep/b_spec.tsx': '', 'elsewhere/c.test.ts': '', 'd.test.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('bun', ['src/a.test.ts', 'src/deep/b_spec.tsx']));
  });
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
