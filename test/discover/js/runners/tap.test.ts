// The tap, uvu and borp rules: src/discover/js/runners/tap.ts.
// Fixtures in test/fixtures/: js-borp, js-borp-typecheck, js-tap, js-tap16, js-uvu.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, fixtureSuite } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED: Record<string, Record<string, string>> = {
  'js-tap': all('tap', ['dist/built.test.js', 'lib/test.js', 'src/b.spec.ts', 'src/c.test.mjs', 'test/a.test.js', 'test/helpers/util.js']),
  'js-uvu': all('uvu', ['tests/index.js', 'tests/parse/basic.js', 'tests/setup.mjs']),
  'js-borp': all('borp', ['test/a.test.js', 'test/deep/b.test.js']),
};

fixtureSuite(EXPECTED);

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
});
