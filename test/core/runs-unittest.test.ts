// Python unittest results as projdex's sitecustomize hook writes them (lines captured from a real run of
// Python 3.11.7 over passing, failing, subtest, skipped and unimportable modules; paths shortened).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import { unittest } from '../../src/core/runs/reporters/unittest.ts';
import { makeTree } from '../helpers/index.ts';

const LINES = [
  {
    file: "/usr/lib/python3.11/unittest/loader.py",
    module: "test_broken",
    name: "unittest.loader._FailedTest.test_broken",
    status: "failed",
    message:
      "ImportError: Failed to import test module: test_broken\nTraceback (most recent ca"
      + "ll last):\n  File \"/usr/lib/python3.11/unittest/loader.py\", line 419, in _find_te"
      + "st_path\n    module = self._get_module_from_name(name)\n             ^^^^^^^^^^^^^"
      + "^^^^^^^^^^^^^^^^^^^\n  File \"/usr/lib/python3.11/unittest/loader.py\", line 362, i"
      + "n _get_module_from_name\n    __import__(name)\n  File \"/p/tests/test_broken.py\", l"
      + "ine 1, in <module>\n    import no_such_module_here\nModuleNotFoundError: No module"
      + " named 'no_such_module_here'",
    ms: 0.11549400005606003,
  },
  {
    file: "/p/tests/test_fail.py",
    module: null,
    name: "test_fail.Fail.test_cases (i=1)",
    status: "failed",
    message: "AssertionError: 1 != 0",
    ms: null,
  },
  {
    file: "/p/tests/test_fail.py",
    module: null,
    name: "test_fail.Fail.test_fine",
    status: "passed",
    message: null,
    ms: 0.027010999474441633,
  },
  {
    file: "/p/tests/test_fail.py",
    module: null,
    name: "test_fail.Fail.test_wrong",
    status: "failed",
    message: "AssertionError: 2 != 3 : wrong sum",
    ms: 0.04383599844004493,
  },
  {
    file: "/p/tests/test_pass.py",
    module: null,
    name: "test_pass.Pass.test_adds",
    status: "passed",
    message: null,
    ms: 0.02793400017253589,
  },
  {
    file: "/p/tests/test_skip.py",
    module: null,
    name: "test_skip.Skip.test_later",
    status: "skipped",
    message: "not yet",
    ms: 0.01516799966339022,
  }
];

suite('runs: unittest results', () => {
  test('each line on its class\'s file; a module that failed to import on the known file its name ends with', async (t) => {
    const known = ['/p/tests/test_broken.py', '/p/tests/test_fail.py', '/p/tests/test_pass.py', '/p/tests/test_skip.py'];
    const ctx = { cwd: '/p', reportDir: makeTree(t), known, words: ['python3', '-m', 'unittest'] };
    writeFileSync(`${ctx.reportDir}/unittest.jsonl`, [...LINES.map((l) => JSON.stringify(l)), '{"cut', '"text"', ''].join('\n'));
    const outcomes = await unittest.read!(ctx);
    assert.deepEqual(outcomes.map((o) => [o.file, o.name, o.status]), [
      ['/p/tests/test_broken.py', 'unittest.loader._FailedTest.test_broken', 'failed'],
      ['/p/tests/test_fail.py', 'test_fail.Fail.test_cases (i=1)', 'failed'], ['/p/tests/test_fail.py', 'test_fail.Fail.test_fine', 'passed'],
      ['/p/tests/test_fail.py', 'test_fail.Fail.test_wrong', 'failed'], ['/p/tests/test_pass.py', 'test_pass.Pass.test_adds', 'passed'],
      ['/p/tests/test_skip.py', 'test_skip.Skip.test_later', 'skipped']]);
    assert.match(outcomes[0]!.message!, /No module named 'no_such_module_here'/);
    assert.equal(outcomes[3]!.message, 'AssertionError: 2 != 3 : wrong sum');
    // Two known files end with the module's name: it is not guessed.
    const twice = await unittest.read!({ ...ctx, known: [...known, '/p/other/tests/test_broken.py'] });
    assert.equal(twice.some((o) => o.name.includes('_FailedTest')), false);
    await assert.rejects(unittest.read!({ ...ctx, reportDir: makeTree(t) }), /unittest reported no result/);
  });

  test('the hook goes first on PYTHONPATH, before the step\'s own', async (t) => {
    const ctx = { cwd: '/p', reportDir: makeTree(t), known: [], words: [], env: { PYTHONPATH: '/p/src' } };
    await unittest.prepare!(ctx);
    assert.deepEqual(unittest.env!(ctx), { PJX_UNITTEST_REPORT: `${ctx.reportDir}/unittest.jsonl`, PYTHONPATH: `${ctx.reportDir}/pythonpath:/p/src` });
    assert.equal(unittest.accepts(['coverage', 'run', '-m', 'unittest']), true);
    assert.equal(unittest.accepts(['tox']), false);
  });

  test('single files go to `python -m unittest [options]`; discovery or named modules run whole', () => {
    const file = ['/p/tests/test_a.py'];
    assert.equal(unittest.wholeFor!(file, ['python3', '-m', 'unittest', '-v', '-k', 'fast']), undefined);
    assert.equal(unittest.wholeFor!(file, ['coverage', 'run', '-m', 'unittest']), undefined);
    assert.deepEqual(unittest.args({ cwd: '/p', reportDir: '/r', known: [], words: [], files: file }), ['tests/test_a.py']);
    for (const words of [['python', '-m', 'unittest', 'discover', '-s', 'tests'], ['python', '-m', 'unittest', 'tests.test_b'], ['python', 'runtests.py']]) {
      assert.match(unittest.wholeFor!(file, words)!, /whole command ran/, words.join(' '));
    }
  });
});
