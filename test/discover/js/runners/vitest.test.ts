// The Vitest rule: src/discover/js/runners/vitest.ts.
// Fixtures in test/fixtures/: js-vitest-argv, js-vitest-config, js-vitest-default, js-vitest-merge,
// js-vitest-shared-config, js-vitest-workspace.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-vitest-default': all('vitest', ['.hidden/d.test.js', 'dist/c.test.js', 'src/a.test.ts', 'src/b.spec.tsx']),
  'js-vitest-config': all('vitest', ['src/a.test.ts', 'src/t.test-d.ts', 'tests/helper.ts']),
  'js-vitest-workspace': all('vitest', ['packages/core/src/a.test.ts', 'packages/ui/src/Button.spec.tsx']),
  'js-vitest-merge': all('vitest', ['src/a.test.ts', 'src/b.test.tsx', 'tests/x.spec.ts']),
  'js-vitest-shared-config': all('vitest', ['src/a.check.ts', 'src/b.check.js']),
};

fixtureSuite(EXPECTED);

suite('JS discovery on shapes from real repositories', () => {
  test('a Vitest config reads process.argv as the runner\'s command line (typecheck on unless benchmarking)', async () => {
    const { files, notes } = await discover(fixture('js-vitest-argv'));
    assert.deepEqual(files, all('vitest', ['test/add.test.ts', 'test/types.test-d.ts']));
    assert.ok(!notes.some((n) => n.includes('computed')), notes.join('\n'));
  });
  test('Vitest include/exclude read bare groups too', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'vitest.config.ts': "export default { test: { include: ['src/**/*.(unit|int).ts'], exclude: ['**/(fixtures|node_modules)/**'] } };\n",
      'src/a.unit.ts': '', 'src/b.int.ts': '', 'src/c.test.ts': '', 'src/fixtures/d.unit.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('vitest', ['src/a.unit.ts', 'src/b.int.ts']));
  });
});

suite('Vitest include, exclude and includeSource together', () => {
  test('an excluded file is left out whether include or includeSource takes it; the default include sees names only', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'vitest.config.ts': "export default { test: { includeSource: ['src/**/*.ts', 'dist/**/*.js'] } };\n",
      'src/a.test.ts': '', 'src/inline.ts': 'if (import.meta.vitest) {}\n', 'src/plain.ts': '',
      'dist/b.test.js': '', 'dist/inline.js': 'if (import.meta.vitest) {}\n', 'testing/c.ts': '', 'spec/d.spec.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('vitest', ['spec/d.spec.js', 'src/a.test.ts', 'src/inline.ts']));
    const plain = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'src/a.test.ts': '', 'src/test.ts': '', 'test/b.ts': '', 'dist/c.spec.ts': '', 'src/d.spec-d.ts': '',
    });
    assert.deepEqual((await discover(plain)).files, all('vitest', ['src/a.test.ts']));
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
