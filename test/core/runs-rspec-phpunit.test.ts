// RSpec's JSON and PHPUnit's JUnit XML read per test, on reports in the shapes rspec-core 3.12 and PHPUnit
// 9.6.7 wrote here (backtraces shortened), plus broken ones.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import { phpunit } from '../../src/core/runs/reporters/phpunit.ts';
import type { ReportContext } from '../../src/core/runs/reporters/reporter.ts';
import { rspec } from '../../src/core/runs/reporters/rspec.ts';
import { makeTree } from '../helpers/index.ts';

function context(t: test.TestContext, extra: Partial<ReportContext> = {}): ReportContext {
  return { cwd: '/p', reportDir: makeTree(t), known: [], words: [], ...extra };
}
const brief = (outcomes: Array<{ file: string; name: string; status: string; ms: number | null; message?: string }>) =>
  outcomes.map((o) => [o.file, o.name, o.status, ...(o.message === undefined ? [] : [o.message])]);

const RSPEC_REPORT = {
  version: '3.12.0',
  examples: [
    { id: './spec/fail_spec.rb[1:1]', description: 'adds wrong', full_description: 'fail adds wrong', status: 'failed', file_path: './spec/fail_spec.rb',
      line_number: 2, run_time: 0.117900614, pending_message: null, exception: { class: 'RSpec::Expectations::ExpectationNotMetError',
        message: '\nexpected: 3\n     got: 2\n\n(compared using ==)\n', backtrace: ["/p/spec/fail_spec.rb:2:in `block (2 levels) in <top (required)>'"] } },
    { id: './spec/fail_spec.rb[1:2]', description: 'fine', full_description: 'fail fine', status: 'passed', file_path: './spec/fail_spec.rb',
      line_number: 3, run_time: 0.000108771, pending_message: null },
    { id: './spec/skip_spec.rb[1:1]', description: 'later', full_description: 'skip later', status: 'pending', file_path: './spec/skip_spec.rb',
      line_number: 2, run_time: 7.389e-05, pending_message: 'not yet' },
  ],
  summary: { duration: 0.119442543, example_count: 3, failure_count: 1, pending_count: 1, errors_outside_of_examples_count: 0 },
  summary_line: '3 examples, 1 failure, 1 pending',
};

const RSPEC_LOAD_ERROR = {
  version: '3.12.0',
  messages: ["\nAn error occurred while loading ./spec/broken_spec.rb.\nFailure/Error: __send__(method, file)\n\nSyntaxError:\n  "
    + "/p/spec/broken_spec.rb:3: syntax error, unexpected `end'\n# /usr/bin/rspec:4:in `<main>'\n"],
  examples: [],
  summary: { duration: 9.6614e-05, example_count: 0, failure_count: 0, pending_count: 0, errors_outside_of_examples_count: 1 },
  summary_line: '0 examples, 0 failures, 1 error occurred outside of examples',
};

const PHPUNIT_REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="" tests="5" assertions="3" errors="1" warnings="0" failures="1" skipped="1" time="0.002552">
    <testsuite name="all" tests="5" assertions="3" errors="1" warnings="0" failures="1" skipped="1" time="0.002552">
      <testsuite name="ErrorTest" file="/p/tests/ErrorTest.php" tests="2" assertions="1" errors="1" warnings="0" failures="0" skipped="0" time="0.002126">
        <testsuite name="ErrorTest::testData" tests="2" assertions="1" errors="1" warnings="0" failures="0" skipped="0" time="0.002126">
          <testcase name="testData with data set &quot;one&quot;" class="ErrorTest" classname="ErrorTest" file="/p/tests/ErrorTest.php" line="5" assertions="1" time="0.001842"/>
          <testcase name="testData with data set &quot;two&quot;" class="ErrorTest" classname="ErrorTest" file="/p/tests/ErrorTest.php" line="5" assertions="0" time="0.000284">
            <error type="RuntimeException">ErrorTest::testData with data set "two" (2)
RuntimeException: boom

/p/tests/ErrorTest.php:5</error>
          </testcase>
        </testsuite>
      </testsuite>
      <testsuite name="FailTest" file="/p/tests/FailTest.php" tests="1" assertions="1" errors="0" warnings="0" failures="1" skipped="0" time="0.000237">
        <testcase name="testWrong" class="FailTest" classname="FailTest" file="/p/tests/FailTest.php" line="4" assertions="1" time="0.000170">
          <failure type="PHPUnit\\Framework\\ExpectationFailedException">FailTest::testWrong
wrong sum
Failed asserting that 2 is identical to 3.

/p/tests/FailTest.php:4</failure>
        </testcase>
      </testsuite>
      <testsuite name="SkipTest" file="/p/tests/SkipTest.php" tests="1" assertions="0" errors="0" warnings="0" failures="0" skipped="1" time="0.000168">
        <testcase name="testLater" class="SkipTest" classname="SkipTest" file="/p/tests/SkipTest.php" line="4" assertions="0" time="0.000086">
          <skipped/>
        </testcase>
      </testsuite>
    </testsuite>
  </testsuite>
</testsuites>
`;

suite('runs: RSpec and PHPUnit reports', () => {
  test('RSpec: examples by file_path; pending is skipped; a file that fails to load is failed', async (t) => {
    const ctx = context(t);
    writeFileSync(`${ctx.reportDir}/rspec.json`, JSON.stringify(RSPEC_REPORT));
    const outcomes = await rspec.read!(ctx);
    assert.deepEqual(brief(outcomes), [
      ['/p/spec/fail_spec.rb', 'fail adds wrong', 'failed', 'RSpec::Expectations::ExpectationNotMetError: expected: 3\n     got: 2\n\n(compared using ==)'],
      ['/p/spec/fail_spec.rb', 'fail fine', 'passed'], ['/p/spec/skip_spec.rb', 'skip later', 'skipped']]);
    assert.equal(Math.round(outcomes[0]!.ms!), 118);
    writeFileSync(`${ctx.reportDir}/rspec.json`, JSON.stringify(RSPEC_LOAD_ERROR));
    const [broken, ...rest] = await rspec.read!(ctx);
    assert.deepEqual([broken!.file, broken!.status, rest.length], ['/p/spec/broken_spec.rb', 'failed', 0]);
    assert.match(broken!.message!, /syntax error/);
    writeFileSync(`${ctx.reportDir}/rspec.json`, '{"examples": [');
    await assert.rejects(rspec.read!(ctx), /not JSON/);
    await assert.rejects(rspec.read!(context(t)), /RSpec wrote no report/);
  });

  test('RSpec: the terminal keeps the command\'s formatter, else the one .rspec names, else progress', (t) => {
    const withOptions = makeTree(t, { '.rspec': '--require spec_helper\n--format documentation\n--format html --out r.html\n' });
    const plain = makeTree(t);
    const tail = (ctx: ReportContext) => ['--format', 'json', '--out', `${ctx.reportDir}/rspec.json`];
    let ctx = context(t, { cwd: withOptions, words: ['rspec'] });
    assert.deepEqual(rspec.args(ctx), ['--format', 'documentation', ...tail(ctx)]);
    ctx = context(t, { cwd: withOptions, words: ['bundle', 'exec', 'rspec', '-f', 'd'], files: ['/p/spec/a_spec.rb'] });
    assert.deepEqual(rspec.args(ctx), [...tail(ctx), '/p/spec/a_spec.rb']);
    ctx = context(t, { cwd: plain, words: ['rspec'] });
    assert.deepEqual(rspec.args(ctx), ['--format', 'progress', ...tail(ctx)]);
    assert.equal(rspec.accepts(['bundle', 'exec', 'rspec']), true);
    assert.equal(rspec.accepts(['rake', 'spec']), false);
    assert.equal(rspec.commandIn!(makeTree(t, { 'Gemfile.lock': '' })), 'bundle exec rspec');
    assert.equal(rspec.commandIn!(plain), 'rspec');
  });

  test('PHPUnit: testcases by file in nested suites; error and failure are failed; one file alone, several whole', async (t) => {
    const ctx = context(t);
    writeFileSync(`${ctx.reportDir}/phpunit.xml`, PHPUNIT_REPORT);
    assert.deepEqual(brief(await phpunit.read!(ctx)), [
      ['/p/tests/ErrorTest.php', 'ErrorTest::testData with data set "one"', 'passed'],
      ['/p/tests/ErrorTest.php', 'ErrorTest::testData with data set "two"', 'failed',
        'ErrorTest::testData with data set "two" (2)\nRuntimeException: boom\n\n/p/tests/ErrorTest.php:5'],
      ['/p/tests/FailTest.php', 'FailTest::testWrong', 'failed',
        'FailTest::testWrong\nwrong sum\nFailed asserting that 2 is identical to 3.\n\n/p/tests/FailTest.php:4'],
      ['/p/tests/SkipTest.php', 'SkipTest::testLater', 'skipped']]);
    writeFileSync(`${ctx.reportDir}/phpunit.xml`, '<testsuites><testsuite><testcase name="x"/>');
    assert.deepEqual(await phpunit.read!(ctx), [], 'a testcase without a file is left out');
    await assert.rejects(phpunit.read!(context(t)), /PHPUnit wrote no report/);
    assert.deepEqual(phpunit.args({ ...ctx, files: ['/p/tests/A.php'] }), ['--log-junit', `${ctx.reportDir}/phpunit.xml`, '--colors=never', '/p/tests/A.php']);
    assert.equal(phpunit.wholeFor!(['/p/tests/A.php'], []), undefined);
    assert.match(phpunit.wholeFor!(['/p/tests/A.php', '/p/tests/B.php'], [])!, /single test file/);
    assert.equal(phpunit.accepts(['php', 'vendor/bin/phpunit']), true);
    assert.match(phpunit.refuse!({ argv: [], last: ['phpunit', '--log-junit', 'x.xml'] })!, /own --log-junit/);
  });
});
