// The Karma rule for `karma start`: src/discover/js/runners/karma.ts. Shapes read from real karma.conf.js
// files: a function handed `config` (or `karma`), `config.set({...})` with `basePath`, string patterns and
// `{ pattern, included: false }` objects, `exclude`, built bundles and libraries loaded beside the tests.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, json } from '../../../helpers/discover.ts';
import { makeTree } from '../../../helpers/index.ts';

suite('karma start', () => {
  test('files loaded from config.set: test patterns count, sources and excluded files do not, with a note', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'npm run build && karma start karma.conf.js --single-run' }, devDependencies: { karma: '^6.4.0' } }),
      'karma.conf.js': [
        "const path = require('path');",
        'module.exports = function (config) {',
        '  config.set({',
        "    basePath: '',",
        "    frameworks: ['jasmine'],",
        "    files: ['dist/lib.js', 'test/helpers.js', 'test/**/*.spec.js', { pattern: 'test/fixtures/**/*.js', included: false }],",
        "    exclude: ['test/legacy.spec.js'],",
        '    logLevel: config.LOG_INFO,',
        '  });',
        '};',
      ].join('\n'),
      'test/helpers.js': '', 'test/a.spec.js': '', 'test/unit/b.spec.js': '', 'test/legacy.spec.js': '',
      'test/fixtures/f.js': '', 'test/page.html': '', 'src/c.spec.js': '', 'src/index.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, all('karma', ['test/a.spec.js', 'test/unit/b.spec.js']));
    assert.deepEqual(notes, ['karma.conf.js: loaded files read as sources, libraries or setup, not tests: dist/lib.js, test/helpers.js']);
  });

  test('an arrow config under test/ with basePath .. and the default config name', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'karma start test/karma.conf.js' } }),
      'test/karma.conf.js': "module.exports = (karma) => {\n  karma.set({ basePath: '..', files: ['test/vendor/jquery.js', 'test/setup/*.js', 'test/spec/**/*.js'] });\n};\n",
      'test/spec/a.js': '', 'test/other.js': '', 'test/vendor/jquery.js': '', 'test/setup/env.js': '',
    });
    assert.deepEqual((await discover(root)).files, all('karma', ['test/spec/a.js']));
    const bare = makeTree(t, {
      'package.json': json({ scripts: { test: 'karma start --single-run' } }),
      'karma.conf.js': "module.exports = function (config) {\n  config.set({ files: [process.env.ENTRY] });\n};\n",
      'test/a.js': '',
    });
    const b = await discover(bare);
    assert.deepEqual(b.files, {});
    assert.ok(b.notes.includes('karma.conf.js: 1 `files` pattern is computed; what it loads is not listed'), b.notes.join('\n'));
  });
});
