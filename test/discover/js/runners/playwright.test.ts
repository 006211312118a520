// The Playwright rule: src/discover/js/runners/playwright.ts.
// Fixtures in test/fixtures/: js-playwright, js-playwright-computed, js-playwright-ignore (checked against
// `playwright test --list` 1.65: `testIgnore` as a RegExp and as an array of globs and RegExps, and a
// project's own `testIgnore` replacing the top-level one).
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';
import { makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-playwright': all('playwright', ['e2e/Login.SPEC.ts', 'e2e/home.spec.ts']),
  'js-playwright-ignore': all('playwright', ['e2e/a.spec.ts', 'e2e/b.test.js', 'e2e/c.mobile.ts', 'e2e/x.SPEC.ts']),
  'js-playwright-computed': all('playwright', ['tests/e2e/cart.flow.ts', 'tests/e2e/local-only/debug.e2e.ts', 'tests/e2e/login.e2e.ts']),
};

fixtureSuite(EXPECTED);

suite('JS discovery on shapes from real repositories', () => {
  test('a Playwright config reads process.argv too (a flag of the test script picks testDir)', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'playwright test --headed' }, devDependencies: { '@playwright/test': '^1.50.0' } }),
      'playwright.config.ts': "export default { testDir: process.argv.includes('--headed') ? './e2e/visual' : './e2e' };\n",
      'e2e/a.spec.ts': '', 'e2e/visual/b.spec.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('playwright', ['e2e/visual/b.spec.ts']));
  });
});
