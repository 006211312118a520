// The report readers on reports in the shapes the real runners wrote (test/slow/runs-runners.test.ts runs
// the runners themselves), and on broken ones: a reader answers a sentence or skips, never throws a crash.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import { go } from '../../src/core/runs/reporters/go.ts';
import { jest, vitest } from '../../src/core/runs/reporters/jest-json.ts';
import { mocha } from '../../src/core/runs/reporters/mocha.ts';
import { nodeTest } from '../../src/core/runs/reporters/node-test.ts';
import { playwright } from '../../src/core/runs/reporters/playwright.ts';
import { pytest } from '../../src/core/runs/reporters/pytest.ts';
import type { ReportContext } from '../../src/core/runs/reporters/reporter.ts';
import { fileResults } from '../../src/core/runs/results.ts';
import { makeTree } from '../helpers/index.ts';

function context(t: test.TestContext, extra: Partial<ReportContext> = {}): ReportContext {
  return { cwd: '/p', reportDir: makeTree(t), known: [], words: [], ...extra };
}
const brief = (outcomes: Array<{ file: string; name: string; status: string; message?: string }>) =>
  outcomes.map((o) => [o.file, o.name, o.status, ...(o.message === undefined ? [] : [o.message])]);

suite('runs: report readers', () => {
  test('node --test: the reporter module\'s JSON lines; todo and skip count as skipped; junk lines are skipped', async (t) => {
    const ctx = context(t);
    const lines = [
      { ev: 'pass', file: '/p/test/a.test.mjs', name: 'ok', nesting: 0, skip: false, todo: false, ms: 1.5, error: null },
      { ev: 'fail', file: '/p/test/a.test.mjs', name: 'adds', nesting: 0, skip: false, todo: false, ms: 2, error: '1 !== 2' },
      { ev: 'fail', file: '/p/test/b.test.mjs', name: 'some day', nesting: 0, skip: false, todo: true, ms: 0, error: 'x' },
      { ev: 'pass', file: null, name: 'no file' },
    ].map((l) => JSON.stringify(l));
    writeFileSync(`${ctx.reportDir}/node-test.jsonl`, [...lines, '{not json', ''].join('\n'));
    assert.deepEqual(brief(await nodeTest.read!(ctx)), [
      ['/p/test/a.test.mjs', 'ok', 'passed'], ['/p/test/a.test.mjs', 'adds', 'failed', '1 !== 2'], ['/p/test/b.test.mjs', 'some day', 'skipped']]);
    await assert.rejects(nodeTest.read!(context(t)), /node --test wrote no report/);
    assert.deepEqual(nodeTest.args({ ...ctx, words: ['node', '--test', '--test-reporter', 'tap'] }).slice(0, 2),
      ['--test-reporter-destination=stdout', `--test-reporter=${ctx.reportDir}/pjx-reporter.mjs`]);
    assert.match(nodeTest.refuse!({ argv: [], last: ['node', '--test', '--test-reporter=a', '--test-reporter=b', '--test-reporter-destination=stdout'] })!, /destinations/);
  });

  test('Jest and Vitest: a file per testResults entry, a file that failed to load, ANSI stripped', async (t) => {
    const ctx = context(t);
    writeFileSync(`${ctx.reportDir}/report.json`, JSON.stringify({ testResults: [
      { name: '/p/a.test.js', status: 'failed', assertionResults: [
        { fullName: 'adds', status: 'failed', duration: 3, failureMessages: ['\u001b[31mExpected: 3\u001b[39m\nReceived: 2'] },
        { fullName: 'later', status: 'pending', duration: null },
        { fullName: 'fine', status: 'passed', duration: 1 }] },
      { name: '/p/b.test.js', status: 'failed', message: 'Test suite failed to run', assertionResults: [] },
      { status: 'passed' },
    ] }));
    const expected = [['/p/a.test.js', 'adds', 'failed', 'Expected: 3\nReceived: 2'], ['/p/a.test.js', 'later', 'skipped'],
      ['/p/a.test.js', 'fine', 'passed'], ['/p/b.test.js', '(file)', 'failed', 'Test suite failed to run']];
    assert.deepEqual(brief(await jest.read!(ctx)), expected);
    assert.deepEqual(brief(await vitest.read!(ctx)), expected);
    writeFileSync(`${ctx.reportDir}/report.json`, '{"testResults": [');
    await assert.rejects(jest.read!(ctx), /Jest's report is not JSON/);
    assert.deepEqual(jest.args({ ...ctx, files: ['/p/a.test.js'] }).slice(-2), ['--runTestsByPath', '/p/a.test.js']);
  });

  test('Mocha: the list holding a test is its status', async (t) => {
    const ctx = context(t);
    writeFileSync(`${ctx.reportDir}/mocha.json`, JSON.stringify({
      passes: [{ fullTitle: 'ok', file: '/p/test/a.spec.js', duration: 1 }],
      failures: [{ fullTitle: 'adds', file: '/p/test/a.spec.js', duration: 2, err: { message: 'expected 2 to equal 3' } }, { fullTitle: 'no file' }],
      pending: [{ fullTitle: 'later', file: '/p/test/b.spec.js' }],
    }));
    assert.deepEqual(brief(await mocha.read!(ctx)), [['/p/test/a.spec.js', 'ok', 'passed'],
      ['/p/test/a.spec.js', 'adds', 'failed', 'expected 2 to equal 3'], ['/p/test/b.spec.js', 'later', 'skipped']]);
    assert.match(mocha.refuse!({ argv: [], last: ['mocha', '--watch'] })!, /watch/);
    assert.equal(mocha.refuse!({ argv: [], last: ['mocha', '--reporter', 'spec'] }), undefined);
  });

  test('Playwright: specs in nested suites, relative to the report\'s rootDir', async (t) => {
    const ctx = context(t);
    writeFileSync(`${ctx.reportDir}/playwright.json`, JSON.stringify({ config: { rootDir: '/p/e2e' }, suites: [
      { title: 'a.spec.js', file: 'a.spec.js', specs: [{ title: 'ok', file: 'a.spec.js', tests: [{ status: 'expected', results: [{ status: 'passed', duration: 5 }] }] }],
        suites: [{ title: 'group', file: 'a.spec.js', specs: [{ title: 'bad', file: 'a.spec.js',
          tests: [{ status: 'unexpected', results: [{ status: 'failed', duration: 2, error: { message: 'boom' } }] }] }] }] },
      { title: 'b.spec.js', file: 'b.spec.js', specs: [{ title: 'later', file: 'b.spec.js', tests: [{ status: 'skipped', results: [{ status: 'skipped' }] }] },
        { title: 'retried', file: 'b.spec.js', tests: [{ status: 'flaky', results: [{ status: 'failed' }, { status: 'passed' }] }] }] },
    ] }));
    assert.deepEqual(brief(await playwright.read!(ctx)), [['/p/e2e/a.spec.js', 'ok', 'passed'], ['/p/e2e/a.spec.js', 'bad', 'failed', 'boom'],
      ['/p/e2e/b.spec.js', 'later', 'skipped'], ['/p/e2e/b.spec.js', 'retried', 'passed']]);
    assert.deepEqual(playwright.env!(ctx), { PLAYWRIGHT_JSON_OUTPUT_FILE: `${ctx.reportDir}/playwright.json` });
  });

  test('pytest: xunit1 testcases by their file, failures and errors failed, skipped kept', async (t) => {
    const ctx = context(t, { known: ['/p/tests/test_a.py', '/p/sub/tests/test_b.py'] });
    writeFileSync(`${ctx.reportDir}/pytest.xml`, `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_a" name="test_ok" file="tests/test_a.py" line="0" time="0.001" />
<testcase classname="tests.test_a" name="test_bad" file="tests/test_a.py" line="3" time="0.002"><failure message="AssertionError: nope&#10;assert 1 == 2">long text</failure></testcase>
<testcase classname="tests.test_b" name="test_err" file="tests/test_b.py" line="1" time="0"><error message="fixture boom" /></testcase>
<testcase classname="x" name="test_skip" file="tests/test_a.py" line="5" time="0"><skipped message="later" /></testcase>
<testcase classname="x" name="no_file" time="0" />
</testsuite></testsuites>`);
    assert.deepEqual(brief(await pytest.read!(ctx)), [
      ['/p/tests/test_a.py', 'tests.test_a::test_ok', 'passed'], ['/p/tests/test_a.py', 'tests.test_a::test_bad', 'failed', 'AssertionError: nope\nassert 1 == 2'],
      ['/p/sub/tests/test_b.py', 'tests.test_b::test_err', 'failed', 'fixture boom'], ['/p/tests/test_a.py', 'x::test_skip', 'skipped']]);
  });

  test('go: top-level tests mapped to the file declaring them; a package failing to build fails its files', (t) => {
    const root = makeTree(t, {
      'go.mod': 'module example.com/m\n',
      'a_test.go': 'package m\n\nfunc TestA(t *testing.T) {}\nfunc TestB(t *testing.T) {}\n',
      'sub/b_test.go': 'package sub\n\nfunc TestC(t *testing.T) {}\n',
    });
    const reader = go.stdout!({ cwd: root, reportDir: '/nowhere', known: [`${root}/a_test.go`, `${root}/sub/b_test.go`], words: [] });
    const events = [
      { Action: 'run', Package: 'example.com/m', Test: 'TestA' },
      { Action: 'output', Package: 'example.com/m', Test: 'TestA', Output: '    a_test.go:3: wrong sum\n' },
      { Action: 'fail', Package: 'example.com/m', Test: 'TestA', Elapsed: 0.01 },
      { Action: 'pass', Package: 'example.com/m', Test: 'TestA/case', Elapsed: 0 },
      { Action: 'skip', Package: 'example.com/m', Test: 'TestB', Elapsed: 0 },
      { Action: 'output', Package: 'example.com/m/sub', Output: 'sub/b_test.go:3:1: undefined: x\n' },
      { Action: 'fail', Package: 'example.com/m/sub', Elapsed: 0 },
    ];
    const shown = [...events.map((e) => reader.line(JSON.stringify(e))), reader.line('FAIL example.com/m/sub [build failed]')];
    assert.deepEqual(shown.filter((s) => s !== undefined), ['    a_test.go:3: wrong sum', 'sub/b_test.go:3:1: undefined: x', 'FAIL example.com/m/sub [build failed]']);
    assert.deepEqual(brief(reader.outcomes()), [
      [`${root}/a_test.go`, 'TestA', 'failed', '    a_test.go:3: wrong sum\n'], [`${root}/a_test.go`, 'TestB', 'skipped'],
      [`${root}/sub/b_test.go`, '(package)', 'failed', 'sub/b_test.go:3:1: undefined: x\n']]);
  });

  test('per-file results: failed beats passed beats skipped; files outside the project are left out', () => {
    const results = fileResults('/p', [
      { file: '/p/a.js', name: 'x', status: 'passed', ms: 1.4 }, { file: '/p/a.js', name: 'y', status: 'failed', ms: 2, message: 'm' },
      { file: '/p/b.js', name: 'z', status: 'skipped', ms: null }, { file: '/p/b.js', name: 'w', status: 'passed', ms: null },
      { file: '/p/c.js', name: 'v', status: 'skipped', ms: null }, { file: '/elsewhere/d.js', name: 'u', status: 'failed', ms: 1 },
    ]);
    assert.deepEqual(results, [
      { file_path: 'a.js', status: 'failed', duration_ms: 3, failures: [{ name: 'y', message: 'm' }] },
      { file_path: 'b.js', status: 'passed', duration_ms: null, failures: [] },
      { file_path: 'c.js', status: 'skipped', duration_ms: null, failures: [] },
    ]);
  });
});
