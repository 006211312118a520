import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discover, json } from '../../helpers/discover.ts';
import { makeTree } from '../../helpers/index.ts';

// Which packages the root test command reaches (src/discover/js/scripts/reach.ts, packages/), and the Jest
// presets wrappers bring. Each runner's own tests are in runners/<runner>.test.ts.

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

  test('pnpm --filter without the scope picks the one scoped package of that name; its --project selects a project', async (t) => {
    const unit = {
      'package.json': json({ private: true, scripts: { test: 'pnpm --filter test-unit test:threads' } }),
      'pnpm-workspace.yaml': 'packages:\n  - test/*\n',
      'test/unit/package.json': json({ name: '@acme/test-unit', scripts: { 'test:threads': 'vitest --project threads' } }),
      // A project made by a function declared below the export (hoisted), extending the config itself.
      'test/unit/vite.config.ts': [
        "import { defineConfig } from 'vitest/config';",
        "export default defineConfig({ test: { exclude: ['**/fixtures/**'], projects: [project('threads'), project('forks')] } });",
        "function project(pool: string) { return { extends: './vite.config.ts', test: { name: { label: pool }, pool } }; }",
      ].join('\n'),
      'test/unit/test/a.test.ts': '', 'test/unit/test/fixtures/b.test.ts': '',
    };
    const picked = await discover(makeTree(t, unit));
    assert.deepEqual(picked.files, { 'test/unit/test/a.test.ts': 'vitest' });
    assert.deepEqual(picked.notes, []);
    // Two packages named test-unit without their scope: pnpm picks neither.
    const both = await discover(makeTree(t, { ...unit,
      'test/other/package.json': json({ name: '@other/test-unit', scripts: { test: 'vitest' } }), 'test/other/c.test.ts': '' }));
    assert.deepEqual(both.files, {});
    assert.ok(both.notes.includes('package.json: `pnpm --filter test:threads` reaches no workspace package (selected by `test-unit`)'), both.notes.join('\n'));
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
