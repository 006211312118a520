import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discover, json } from '../../helpers/discover.ts';
import { makeTree } from '../../helpers/index.ts';

// A runner started in another directory than its package's, each directory with its own config
// (src/discover/js/packages/run-dir.ts): read where that runner reads it from.

const PLACEHOLDER = 'echo "Error: no test specified" && exit 1';

suite('runners started in other directories', () => {
  test('CI runs Jest once per matrix directory, Playwright and Mocha after a cd: every config reached counts', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ private: true, scripts: { test: PLACEHOLDER }, devDependencies: { jest: '^30.0.0', mocha: '^11.0.0', '@playwright/test': '^1.55.0' } }),
      '.github/workflows/test.yml': [
        'jobs:', '  unit:', '    strategy:', '      matrix:', '        suite: [unit, integration]', '    steps:',
        '      - run: npm ci', '      - run: npx jest --ci', '        working-directory: ./test/${{ matrix.suite }}',
        '  e2e:', '    steps:', '      - run: |', '          cd e2e && npx playwright test', '          cd ../server && npx mocha',
      ].join('\n') + '\n',
      'test/unit/jest.config.js': "module.exports = { testMatch: ['**/*.unit.js'] };\n",
      'test/unit/a.unit.js': '', 'test/unit/skip.test.js': '',
      'test/integration/jest.config.js': "module.exports = { testEnvironment: 'node' };\n",
      'test/integration/b.test.js': '',
      'e2e/playwright.config.ts': "export default { testDir: './specs' };\n", 'e2e/specs/c.spec.ts': '', 'e2e/d.spec.ts': '',
      'server/.mocharc.yml': 'spec: test/**/*.js\n', 'server/test/e.js': '', 'server/other/f.js': '',
      'src/g.test.js': '',
    });
    const { files, runs } = await discover(root);
    assert.deepEqual(files, {
      'e2e/specs/c.spec.ts': 'playwright', 'server/test/e.js': 'mocha',
      'test/integration/b.test.js': 'jest', 'test/unit/a.unit.js': 'jest',
    });
    assert.deepEqual(runs.map((r) => [r.package, r.runner, r.config]).sort(), [
      ['e2e', 'playwright', 'e2e/playwright.config.ts'], ['server', 'mocha', 'server/.mocharc.yml'],
      ['test/integration', 'jest', 'test/integration/jest.config.js'], ['test/unit', 'jest', 'test/unit/jest.config.js'],
    ]);
  });

  test('a cd into a directory without a config of its own: Jest reads the package\'s, node --test globs from there', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'cd src && jest && cd ../tools && node --test' }, jest: { testMatch: ['**/*.check.js'] } }),
      'src/a.check.js': '', 'src/b.test.js': '', 'lib/c.check.js': '', 'tools/test/d.js': '', 'tools/e.test.js': '', 'test/f.js': '',
    });
    assert.deepEqual((await discover(root)).files, {
      'lib/c.check.js': 'jest', 'src/a.check.js': 'jest', 'tools/e.test.js': 'node-test', 'tools/test/d.js': 'node-test',
    });
  });

  test('CI runs npm test in each matrix directory, each a package.json no workspace lists', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ private: true, scripts: { lint: 'eslint .' } }),
      '.github/workflows/ci.yml': [
        'jobs:', '  test:', '    strategy:', '      matrix:', '        dir:', '          - "frontend"', '          - "backend"',
        '    steps:', '      - run: npm install', '        working-directory: ./${{ matrix.dir }}',
        '      - run: npm run test', '        working-directory: ./${{ matrix.dir }}',
      ].join('\n') + '\n',
      'frontend/package.json': json({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'frontend/src/a.test.ts': '', 'frontend/dist/b.test.js': '',
      'backend/package.json': json({ scripts: { test: 'jest' }, jest: { testMatch: ['**/test/**/*.js'] } }),
      'backend/test/c.js': '', 'backend/src/d.test.js': '',
      'e.test.js': '',
    });
    const { files, runs } = await discover(root);
    assert.deepEqual(files, { 'backend/test/c.js': 'jest', 'frontend/src/a.test.ts': 'vitest' });
    assert.deepEqual(runs.filter((r) => r.runner !== null).map((r) => [r.package, r.command, r.runner]).sort(), [
      ['backend', 'jest', 'jest'], ['frontend', 'vitest run', 'vitest'],
    ]);
  });
});
