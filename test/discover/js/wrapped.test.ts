import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discover, json } from '../../helpers/discover.ts';
import { makeTree } from '../../helpers/index.ts';

// A test script projdex cannot follow, around a runner whose config is right there (src/discover/js/index.ts
// fallback, fallback.ts configuredRunners): the runner's own discovery, with a note saying so.

suite('a wrapper around a configured runner', () => {
  test('a wrapper binary from a git dependency, with ava.config.js beside it: AVA\'s discovery, noted', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'xo && acme-test' }, devDependencies: { 'acme-test': 'github:acme/acme-test#v2', xo: '^1.0.0' } }),
      'ava.config.js': "export default {\n  files: ['test/**', '!test/fixtures/**'],\n  timeout: '1m',\n};\n",
      'test/a.js': '', 'test/helpers/h.js': '', 'test/fixtures/f.js': '', 'test/_private.js': '', 'src/b.test.js': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, { 'test/a.js': 'ava' });
    const note = 'package.json: `npm test` runs `acme-test`, which projdex cannot follow; assumed it starts ava '
      + '(configured in ava.config.js) and listed what that runner finds on its own';
    assert.deepEqual(notes, [note]);
    assert.equal(runs[0]?.runner, 'ava');
    assert.ok(runs[0]?.notes.includes(note));
  });

  test('a task runner around Jest configured in package.json; with no config there, nothing is assumed', async (t) => {
    const jestKey = makeTree(t, {
      'package.json': json({ scripts: { test: 'gulp test' }, jest: { testMatch: ['**/spec/**/*.js'] } }),
      'gulpfile.js': "exports.test = () => {};\n",
      'spec/a.js': '', 'src/b.test.js': '',
    });
    const a = await discover(jestKey);
    assert.deepEqual(a.files, { 'spec/a.js': 'jest' });
    assert.match(a.notes[0] ?? '', /runs `gulp`, which projdex cannot follow; assumed it starts jest \(configured in package\.json `jest`\)/);
    const bare = makeTree(t, {
      'package.json': json({ scripts: { test: 'gulp test' }, devDependencies: { jest: '^30.0.0' } }),
      'src/b.test.js': '',
    });
    const b = await discover(bare);
    assert.deepEqual(b.files, {});
    assert.match(b.notes[0] ?? '', /which projdex cannot follow: no tests listed for the project, though it may have some/);
  });

  test('ts-mocha is Mocha without its own tsconfig flags; node --run runs a package script', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'node --run lint && node --run unit', lint: 'eslint .', unit: 'ts-mocha -p test/tsconfig.json --paths "test/**/*.spec.ts"' } }),
      'test/tsconfig.json': '{}', 'test/a.spec.ts': '', 'test/b.ts': '', 'src/c.spec.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'test/a.spec.ts': 'mocha' });
    assert.deepEqual(notes, []);
  });
});
