import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { compileGlobs, picomatchGroups } from '../../../src/rules/glob.ts';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

// Shapes found on real repositories where projdex's list differed from the runner's own (issue 9, part c).
// Each fixture is written in that shape (no project's files copied) and is also compared with the real
// runner by test/compare-runners.test.ts.

async function discover(root: string): Promise<{ files: Record<string, string>; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverJs(ctx);
  return { files: Object.fromEntries(tests.map((t) => [t.file, t.framework])), notes: ctx.notes };
}

const all = (framework: string, files: string[]): Record<string, string> => Object.fromEntries(files.map((f) => [f, framework]));

suite('JS discovery on shapes from real repositories', () => {
  test('borp with a noEmit tsconfig (type tests only) runs the plain JS default in place', async () => {
    const { files, notes } = await discover(fixture('js-borp-typecheck'));
    assert.deepEqual(files, all('borp', ['test/esm.test.mjs', 'test/sum.test.js']));
    assert.ok(!notes.some((n) => n.includes('borp compiles TypeScript')), notes.join('\n'));
  });
  test('borp with a tsconfig outDir lists the TypeScript sources, and an extends chain is noted', async (t) => {
    const pkg = (ts: object) => ({
      'package.json': JSON.stringify({ scripts: { test: 'borp' }, devDependencies: { borp: '^0.21.0' } }),
      'tsconfig.json': JSON.stringify(ts), 'test/a.test.ts': '', 'test/b.test.js': '',
    });
    const out = await discover(await makeTree(t, pkg({ compilerOptions: { outDir: 'dist' } })));
    assert.deepEqual(out.files, all('borp', ['test/a.test.ts', 'test/b.test.js']));
    const ext = await discover(await makeTree(t, pkg({ extends: './tsconfig.base.json' })));
    assert.deepEqual(ext.files, all('borp', ['test/a.test.ts', 'test/b.test.js']));
    assert.ok(ext.notes.some((n) => n.includes('`extends`, not followed')), ext.notes.join('\n'));
  });
  test('a Vitest config reads process.argv as the runner\'s command line (typecheck on unless benchmarking)', async () => {
    const { files, notes } = await discover(fixture('js-vitest-argv'));
    assert.deepEqual(files, all('vitest', ['test/add.test.ts', 'test/types.test-d.ts']));
    assert.ok(!notes.some((n) => n.includes('computed')), notes.join('\n'));
  });
  test('a Playwright config reads process.argv too (a flag of the test script picks testDir)', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'playwright test --headed' }, devDependencies: { '@playwright/test': '^1.50.0' } }),
      'playwright.config.ts': "export default { testDir: process.argv.includes('--headed') ? './e2e/visual' : './e2e' };\n",
      'e2e/a.spec.ts': '', 'e2e/visual/b.spec.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('playwright', ['e2e/visual/b.spec.ts']));
  });
  test('Jest reads a bare (a|b) in testMatch as a group, and inline projects take rootDir "." from where jest runs', async () => {
    const { files } = await discover(fixture('js-jest-groups'));
    assert.deepEqual(files, all('jest', ['src/__tests__/double.test.js', 'src/__tests__/form.spec.jsx', 'src/logic/double.node.test.js']));
  });
  test('Vitest include/exclude read bare groups too', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'vitest run' }, devDependencies: { vitest: '^3.2.0' } }),
      'vitest.config.ts': "export default { test: { include: ['src/**/*.(unit|int).ts'], exclude: ['**/(fixtures|node_modules)/**'] } };\n",
      'src/a.unit.ts': '', 'src/b.int.ts': '', 'src/c.test.ts': '', 'src/fixtures/d.unit.ts': '',
    });
    assert.deepEqual((await discover(root)).files, all('vitest', ['src/a.unit.ts', 'src/b.int.ts']));
  });
  test('picomatchGroups rewrites bare groups only', () => {
    assert.equal(picomatchGroups('**/*.(spec|test).ts?(x)'), '**/*.@(spec|test).ts?(x)');
    assert.equal(picomatchGroups('+([a-z]).(a|b)'), '+([a-z]).@(a|b)');
    assert.equal(picomatchGroups('[(]x\\(y'), '[(]x\\(y');
    assert.equal(picomatchGroups('!(a)*(b)@(c)'), '!(a)*(b)@(c)');
    const m = compileGlobs([picomatchGroups('src/**/*.(spec|test).js')]);
    assert.equal(m.match('src/x/a.spec.js'), true);
    assert.equal(m.match('src/x/a.(spec|test).js'), false);
  });
  test('tap 16 without files: its regex, minus fixtures, tap-snapshots and the configured test-ignore', async () => {
    const { files } = await discover(fixture('js-tap16'));
    assert.deepEqual(files, all('tap', ['lib/index.spec.js', 'test/index.js', 'test/snapshot.js']));
  });
  test('tap 16 test-regex from .taprc, a /re/ form, and a refused regex is noted', async (t) => {
    const root = await makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'tap' }, devDependencies: { tap: '^15.0.0' } }),
      '.taprc': 'test-regex: "/^checks\\/.*\\.js$/i"\ntest-ignore: "(a+)+$"\n', 'checks/a.js': '', 'checks/fixtures/b.js': '', 'test/c.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, all('tap', ['checks/a.js']));
    assert.ok(notes.some((n) => n.includes('`test-ignore` is not used')), notes.join('\n'));
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
