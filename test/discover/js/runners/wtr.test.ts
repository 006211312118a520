// The Web Test Runner rule: src/discover/js/runners/wtr.ts.
// Fixtures in test/fixtures/: js-wtr-groups.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, json } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED_COMMANDS: Record<string, Record<string, string>> = {
  'js-wtr-groups': all('web-test-runner', ['src/button.axe.js', 'src/button.test.js', 'src/forms/input.test.js', 'test/visual/home.visual.js']),
};

suite('discoverJs on command fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED_COMMANDS)) {
    test(`${name}: exact file list and frameworks`, async () => {
      assert.deepEqual((await discover(fixture(name))).files, expected);
    });
  }
});

suite('web-test-runner', () => {
  const config = [
    "const files = (kind) => [`src/**/*.${kind}.js`];",
    'export default {',
    "  files: [...files('test'), '!src/skip/**'],",
    "  groups: [{ name: 'a11y', files: 'src/**/*.axe.js' }, { name: 'all' }, 'packages/*/wtr-group.mjs'],",
    '};',
  ].join('\n');
  const tree = { 'src/a.test.js': '', 'src/skip/b.test.js': '', 'src/c.axe.js': '', 'test/d.test.js': '', 'alt/e.spec.js': '', '.x/f.test.js': '' };
  const files = async (t: Parameters<typeof makeTree>[0], script: string, extra: Record<string, string> = {}) =>
    discover(makeTree(t, { 'package.json': json({ scripts: { test: script } }), 'wtr.config.mjs': config, ...tree, ...extra }));
  test('CLI files replace the config\'s; groups still run; --group focuses one group or the default', async (t) => {
    assert.deepEqual(Object.keys((await files(t, 'wtr')).files), ['src/a.test.js', 'src/c.axe.js']);
    assert.deepEqual(Object.keys((await files(t, 'web-test-runner "test/**/*.test.js" --node-resolve')).files), ['src/c.axe.js', 'test/d.test.js']);
    assert.deepEqual(Object.keys((await files(t, 'wtr --group a11y')).files), ['src/c.axe.js']);
    assert.deepEqual(Object.keys((await files(t, 'wtr --group default --files "alt/**/*.spec.js"')).files), ['alt/e.spec.js']);
    assert.deepEqual(Object.keys((await files(t, 'wtr --group all')).files), ['src/a.test.js']);
    const missing = await files(t, 'wtr --group nope');
    assert.deepEqual(missing.files, {});
    assert.ok(missing.notes.includes('wtr.config.mjs: no group named nope was found; nothing listed for `--group nope`'), missing.notes.join('\n'));
  });
  test('--config names another file; group config globs and a config with no files are noted', async (t) => {
    const other = await files(t, 'wtr --config ci/wtr.ci.mjs --playwright --browsers chromium firefox', { 'ci/wtr.ci.mjs': "export default { files: 'alt/*.spec.js' };" });
    assert.deepEqual(other.files, { 'alt/e.spec.js': 'web-test-runner' });
    const plain = await files(t, 'wtr');
    assert.ok(plain.notes.includes('wtr.config.mjs: group config files (packages/*/wtr-group.mjs) are not read; their files are not listed'), plain.notes.join('\n'));
    const none = await discover(makeTree(t, { 'package.json': json({ scripts: { test: 'wtr' } }), 'a.test.js': '' }));
    assert.deepEqual(none.files, {});
    assert.deepEqual(none.notes, ['package.json: web-test-runner is given no files (no `files` in a config, none on its command line); nothing listed']);
  });
});
