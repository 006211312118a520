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

suite('reach: what the root test command runs', () => {
  test('turbo with a filter reaches only the named package; the rest are named in a note; runs say what was followed', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ private: true, workspaces: ['apps/*'], scripts: { test: 'turbo run test --filter=api' } }),
      'apps/api/package.json': json({ name: 'api', scripts: { test: 'vitest run --dir src' } }),
      'apps/api/vitest.config.ts': "import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { include: ['**/*.unit.ts'] } });",
      'apps/api/src/a.unit.ts': '', 'apps/api/test/b.unit.ts': '',
      'apps/web/package.json': json({ name: 'web', scripts: { test: 'jest' } }),
      'apps/web/a.test.js': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, { 'apps/api/src/a.unit.ts': 'vitest' });
    assert.deepEqual(notes, ['not reached by the test command, so not listed: apps/web']);
    assert.deepEqual(runs, [
      { package: 'apps/api', command: 'vitest run --dir src', runner: 'vitest', config: 'apps/api/vitest.config.ts', notes: [] },
      { package: '', command: 'turbo run test --filter=api', runner: null, config: null, notes: ['hands the script to workspace packages'] },
    ]);
  });

  test('nx run-many, yarn workspaces foreach and cd reach each package\'s own script', async (t) => {
    for (const script of ['nx run-many -t test', 'yarn workspaces foreach -A run test', 'cd packages/lib && npm test']) {
      const root = makeTree(t, {
        'package.json': json({ private: true, workspaces: ['packages/*'], scripts: { test: script } }),
        'packages/lib/package.json': json({ name: 'lib', scripts: { test: 'tsx --test test/*.test.ts' } }),
        'packages/lib/test/a.test.ts': '', 'packages/lib/test/b.ts': '',
      });
      assert.deepEqual((await discover(root)).files, { 'packages/lib/test/a.test.ts': 'node-test' }, script);
    }
  });

  test('a script that names no runner projdex knows is a note, and so is a package with no test files to follow', async (t) => {
    const unknown = makeTree(t, {
      'package.json': json({ scripts: { test: './scripts/run-tests.sh --all' } }),
      'src/a.test.js': '',
    });
    const a = await discover(unknown);
    assert.deepEqual(a.files, {});
    assert.deepEqual(a.notes, [
      'package.json: `./scripts/run-tests.sh --all`: scripts/run-tests.sh is not a file of the project',
      'package.json: `npm test` runs `./scripts/run-tests.sh --all`, which projdex cannot follow: no tests listed for the project, though it may have some',
    ]);
    assert.deepEqual(a.runs, [{ package: '', command: './scripts/run-tests.sh --all', runner: null, config: null,
      notes: ['`./scripts/run-tests.sh --all`: scripts/run-tests.sh is not a file of the project', a.notes[1]] }]);
    const mixed = makeTree(t, {
      'package.json': json({ scripts: { test: 'tstyche && node scripts/e2e.js && mocha' } }),
      'test/a.js': '',
    });
    const b = await discover(mixed);
    assert.deepEqual(b.files, { 'test/a.js': 'mocha' });
    assert.deepEqual(b.notes, ['package.json: `node scripts/e2e.js`: scripts/e2e.js is not a file of the project',
      'package.json: the test script also runs `tstyche`, `node scripts/e2e.js`, which projdex cannot follow; tests it runs are not listed']);
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

  test('vue-cli-service test:unit runs Jest with the Vue CLI preset', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { 'test:unit': 'vue-cli-service test:unit', test: 'npm run test:unit' } }),
      'jest.config.js': "module.exports = {\n  preset: '@vue/cli-plugin-unit-jest/presets/typescript-and-babel',\n};",
      'tests/unit/a.spec.ts': '', 'tests/unit/b.spec.js': '', 'src/c.spec.ts': '', 'src/__tests__/d.ts': '',
    });
    assert.deepEqual((await discover(root)).files, { 'src/__tests__/d.ts': 'jest', 'tests/unit/a.spec.ts': 'jest', 'tests/unit/b.spec.js': 'jest' });
  });

  test('an unknown Jest preset is noted', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'jest' } }), 'jest.config.js': "module.exports = { preset: 'jest-preset-acme' };", 'a.test.js': '',
    });
    assert.deepEqual((await discover(root)).notes,
      ['jest.config.js: preset jest-preset-acme is neither installed nor known to projdex; assumed it sets no testMatch/roots (Jest\'s defaults)']);
  });
});

suite('vitest projects that extend a config file', () => {
  test('extends: a local file is read and merged; a package is noted', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' } }),
      'vitest.shared.ts': "export default { test: { include: ['**/*.check.ts'] } };",
      'vitest.config.ts': [
        "import { defineConfig } from 'vitest/config';",
        'export default defineConfig({ test: { projects: [',
        "  { extends: './vitest.shared.ts', test: { name: 'unit', dir: 'unit' } },",
        "  { extends: '@acme/vitest-preset', test: { name: 'e2e', include: ['e2e/**/*.e2e.ts'] } },",
        '] } });',
      ].join('\n'),
      'unit/a.check.ts': '', 'unit/b.test.ts': '', 'e2e/c.e2e.ts': '', 'other/d.check.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'e2e/c.e2e.ts': 'vitest', 'unit/a.check.ts': 'vitest' });
    assert.deepEqual(notes, ['vitest.config.ts: a project extends @acme/vitest-preset, which does not exist (Vitest reads `extends` as a '
      + 'path from the config\'s directory, not as a package name); its keys are not applied']);
  });
});

suite('workspace lists and filters', () => {
  test('lerna.json packages without npm workspaces; npm -w with a directory', async (t) => {
    const lerna = makeTree(t, {
      'package.json': JSON.stringify({ private: true, scripts: { test: 'lerna run test' } }),
      'lerna.json': JSON.stringify({ packages: ['modules/*'], version: '1.0.0' }),
      'modules/a/package.json': JSON.stringify({ name: 'a', scripts: { test: 'mocha' } }), 'modules/a/test/x.js': '',
    });
    assert.deepEqual((await discover(lerna)).files, { 'modules/a/test/x.js': 'mocha' });
    const npmW = makeTree(t, {
      'package.json': JSON.stringify({ private: true, workspaces: ['packages/*'], scripts: { test: 'npm test -w packages/a' } }),
      'packages/a/package.json': JSON.stringify({ name: '@s/a', scripts: { test: 'node --test' } }), 'packages/a/test/x.js': '',
      'packages/b/package.json': JSON.stringify({ name: '@s/b', scripts: { test: 'node --test' } }), 'packages/b/test/y.js': '',
    });
    const r = await discover(npmW);
    assert.deepEqual(r.files, { 'packages/a/test/x.js': 'node-test' });
    assert.deepEqual(r.notes, ['not reached by the test command, so not listed: packages/b']);
  });
});
