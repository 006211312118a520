// The tape rule: src/discover/js/runners/tape.ts.
// Fixtures in test/fixtures/: js-tape.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, json } from '../../../helpers/discover.ts';
import { fixture, makeTree } from '../../../helpers/index.ts';

const EXPECTED_COMMANDS: Record<string, Record<string, string>> = {
  'js-tape': all('tape', ['test/index.js', 'test/unit/deep/strings.js', 'test/unit/math.js']),
};

suite('discoverJs on command fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED_COMMANDS)) {
    test(`${name}: exact file list and frameworks`, async () => {
      assert.deepEqual((await discover(fixture(name))).files, expected);
    });
  }
});

suite('tape', () => {
  test('sh expands an unquoted glob first (no globstar), tape a quoted one; --ignore-pattern drops files', async (t) => {
    const plan = async (test: string) => (await discover(makeTree(t, {
      'package.json': json({ scripts: { test }, devDependencies: { tape: '^5.7.0' } }),
      'test/a.js': '', 'test/x/b.js': '', 'test/x/y/c.js': '', 'test/x/skip-d.js': '', 'test/dir/index.js': '',
    })));
    assert.deepEqual(Object.keys((await plan('tape test/**/*.js')).files), ['test/dir/index.js', 'test/x/b.js', 'test/x/skip-d.js']);
    assert.deepEqual(Object.keys((await plan('tape "test/**/*.js" --ignore-pattern "**/skip-*.js"')).files),
      ['test/a.js', 'test/dir/index.js', 'test/x/b.js', 'test/x/y/c.js']);
    assert.deepEqual(Object.keys((await plan('tape -r ./setup test/dir test/a')).files), ['test/a.js', 'test/dir/index.js']);
    const none = await plan('tape');
    assert.deepEqual(none.files, {});
    assert.deepEqual(none.notes, ['package.json: tape is run without files; it runs none']);
  });
});
