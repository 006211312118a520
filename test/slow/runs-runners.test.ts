// Test runs with the real runners: pytest, unittest, Go, cargo, RSpec, minitest and PHPUnit when installed
// (CI installs them with apt), Jest, Vitest, Mocha, Jasmine, tap, AVA and Playwright from the folder
// PROJDEX_CI_RUNNERS names (.ci/run installs them there once). A runner missing here skips its test with
// the reason.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';
import { processesMentioning, waitRun } from '../helpers/runs.ts';

const RUNNERS = process.env.PROJDEX_CI_RUNNERS;

function missing(program: string, args: string[]): string | false {
  try {
    execFileSync(program, args, { stdio: 'ignore', timeout: 60_000 });
    return false;
  } catch {
    return `${program} is not installed here (CI installs it)`;
  }
}

function jsRunner(name: string): string | false {
  if (!RUNNERS) return `${name}: PROJDEX_CI_RUNNERS is not set (.ci/run installs Jest and Vitest into a folder and sets it)`;
  return existsSync(join(RUNNERS, 'node_modules', '.bin', name)) ? false : `${name} is not installed in ${RUNNERS}`;
}

/** Registers `root`, runs its tests, and answers the run and the test rows. */
async function runAll(t: test.TestContext, root: string): Promise<{ run: any; tests: any[]; url: string }> {
  const { url } = await serve(t);
  const { body: project } = await call(`${url}/api/projects`, 'POST', { name: 'fx', path: root });
  const started = await call(`${url}/api/projects/${project.id}/runs`, 'POST');
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const run = await waitRun(url, started.body.id, 300_000);
  const tests = (await call(`${url}/api/projects/${project.id}/tests`)).body;
  assert.deepEqual(processesMentioning(root), [], 'no process of the run is left');
  return { run, tests, url };
}

const statuses = (rows: any[]): Array<[string, string]> => rows.map((r) => [r.file_path, r.status]);

suite('test runs with real runners', { concurrency: 1 }, () => {
  test('pytest: per file through --junitxml', { skip: missing('pytest', ['--version']) }, async (t) => {
    const root = makeTree(t, {
      'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'tests/test_pass.py': 'def test_a():\n    assert 1 + 1 == 2\n',
      'tests/test_fail.py': 'def test_b():\n    assert 1 + 1 == 3, "wrong sum"\n\ndef test_c():\n    pass\n',
      'tests/test_skip.py': 'import pytest\n\n@pytest.mark.skip(reason="later")\ndef test_s():\n    pass\n',
    });
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['tests/test_fail.py', 'failed'], ['tests/test_pass.py', 'passed'], ['tests/test_skip.py', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /wrong sum/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('go: per file through -json', { skip: missing('go', ['version']) }, async (t) => {
    const root = makeTree(t, {
      'go.mod': 'module example.com/fx\n\ngo 1.19\n',
      'sum.go': 'package fx\n\nfunc Sum(a, b int) int { return a + b }\n',
      'pass_test.go': 'package fx\n\nimport "testing"\n\nfunc TestPass(t *testing.T) {\n\tif Sum(1, 1) != 2 {\n\t\tt.Fatal("bad")\n\t}\n}\n',
      'fail_test.go': 'package fx\n\nimport "testing"\n\nfunc TestFail(t *testing.T) {\n\tt.Fatal("wrong sum")\n}\n\nfunc TestFine(t *testing.T) {}\n',
      'skip_test.go': 'package fx\n\nimport "testing"\n\nfunc TestSkip(t *testing.T) {\n\tt.Skip("later")\n}\n',
    });
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['fail_test.go', 'failed'], ['pass_test.go', 'passed'], ['skip_test.go', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /wrong sum/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('jest: per file through --json --outputFile', { skip: jsRunner('jest') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'jest' }, devDependencies: { jest: '30' } }),
      '__tests__/pass.test.js': "test('ok', () => { expect(1 + 1).toBe(2); });\n",
      '__tests__/fail.test.js': "test('adds', () => { expect(1 + 1).toBe(3); });\ntest('fine', () => {});\n",
      '__tests__/skip.test.js': "test.skip('later', () => {});\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['__tests__/fail.test.js', 'failed'], ['__tests__/pass.test.js', 'passed'], ['__tests__/skip.test.js', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /Expected: 3/);
    assert.doesNotMatch(run.files[0].failures[0].message, /\x1b\[/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('vitest: per file through the json reporter', { skip: jsRunner('vitest') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', type: 'module', scripts: { test: 'vitest run' }, devDependencies: { vitest: '4' } }),
      'test/pass.test.js': "import { test, expect } from 'vitest';\ntest('ok', () => { expect(1 + 1).toBe(2); });\n",
      'test/fail.test.js': "import { test, expect } from 'vitest';\ntest('adds', () => { expect(1 + 1).toBe(3); });\ntest('fine', () => {});\n",
      'test/skip.test.js': "import { test } from 'vitest';\ntest.skip('later', () => {});\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['test/fail.test.js', 'failed'], ['test/pass.test.js', 'passed'], ['test/skip.test.js', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /expected 2 to be 3/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('mocha: per file through the json reporter\'s output file, replacing the command\'s own reporter', { skip: jsRunner('mocha') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'mocha --reporter spec' }, devDependencies: { mocha: '11' } }),
      'test/pass.spec.js': "const assert = require('node:assert');\nit('ok', () => { assert.equal(1 + 1, 2); });\n",
      'test/fail.spec.js': "const assert = require('node:assert');\nit('adds', () => { assert.equal(1 + 1, 3); });\nit('fine', () => {});\n",
      'test/skip.spec.js': "it.skip('later', () => {});\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.exit_code, 1, 'mocha exits with the number of failures');
    assert.deepEqual(statuses(run.files), [['test/fail.spec.js', 'failed'], ['test/pass.spec.js', 'passed'], ['test/skip.spec.js', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /2 == 3|2 !== 3/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('playwright: per file through the json reporter (browser-less tests)', { skip: jsRunner('playwright') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'playwright test' }, devDependencies: { '@playwright/test': '1' } }),
      'playwright.config.js': "module.exports = { testDir: 'e2e', reporter: 'html' };\n",
      'e2e/pass.spec.js': "const { test, expect } = require('@playwright/test');\ntest('ok', () => { expect(1 + 1).toBe(2); });\n",
      'e2e/fail.spec.js': "const { test, expect } = require('@playwright/test');\ntest('adds', () => { expect(1 + 1).toBe(3); });\ntest('fine', () => {});\n",
      'e2e/skip.spec.js': "const { test } = require('@playwright/test');\ntest.skip('later', () => {});\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['e2e/fail.spec.js', 'failed'], ['e2e/pass.spec.js', 'passed'], ['e2e/skip.spec.js', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /Expected: 3/);
    assert.doesNotMatch(run.files[0].failures[0].message, /\x1b\[/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('cargo: per file from the human output, unit tests placed on their module files', { skip: missing('cargo', ['--version']) }, async (t) => {
    const root = makeTree(t, CARGO_PROJECT);
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.exit_code, 101);
    assert.deepEqual(statuses(run.files), [
      ['src/util/mod.rs', 'failed'], ['tests/fail.rs', 'failed'], ['src/lib.rs', 'passed'], ['src/skipped.rs', 'skipped'],
      ['tests/multi/inner.rs', 'passed'], ['tests/pass.rs', 'passed']].sort(byPath));
    const util = run.files.find((f: any) => f.file_path === 'src/util/mod.rs');
    assert.deepEqual(util.failures.map((f: any) => f.name), ['util::tests::doubles']);
    assert.match(util.failures[0].message, /wrong double/);
    assert.deepEqual(run.steps[0].notes, [], 'every test was placed (the doc test on src/lib.rs)');
    // The integration target's root declares no test itself: it keeps no status.
    assert.deepEqual(statuses(tests), [...statuses(run.files), ['tests/multi/main.rs', null]].sort(byPath));
  });

  test('cargo: an integration test file runs alone as its target; a unit file runs the whole command', { skip: missing('cargo', ['--version']) }, async (t) => {
    const root = makeTree(t, CARGO_PROJECT);
    const { url } = await serve(t);
    const { body: project } = await call(`${url}/api/projects`, 'POST', { name: 'fx', path: root });
    assert.equal((await call(`${url}/api/projects/${project.id}/scan`, 'POST')).status, 200);
    const alone = await call(`${url}/api/projects/${project.id}/runs`, 'POST', { files: ['tests/pass.rs'] });
    assert.equal(alone.status, 202, JSON.stringify(alone.body));
    const one = await waitRun(url, alone.body.id, 300_000);
    assert.equal(one.status, 'passed', one.output);
    assert.deepEqual(statuses(one.files), [['tests/pass.rs', 'passed']]);
    assert.match(one.steps[0].command, /--test pass$/);
    const unit = await call(`${url}/api/projects/${project.id}/runs`, 'POST', { files: ['src/skipped.rs'] });
    const whole = await waitRun(url, unit.body.id, 300_000);
    assert.equal(whole.status, 'failed');
    assert.match(whole.steps[0].notes.join('\n'), /whole command ran/);
    assert.equal(whole.files.length, 6);
  });

  test('cargo missing: the step cannot start, so the run is an error with a note (one pipe or not)', async (t) => {
    const root = makeTree(t, CARGO_PROJECT);
    const { url } = await serve(t, { runs: { env: { PATH: '/nonexistent' } } });
    const { body: project } = await call(`${url}/api/projects`, 'POST', { name: 'fx', path: root });
    const run = await waitRun(url, (await call(`${url}/api/projects/${project.id}/runs`, 'POST')).body.id);
    assert.equal(run.status, 'error');
    assert.deepEqual(run.steps[0].notes, ['could not start: cargo is not installed (not found on PATH)']);
  });

  test('rspec: per file through --format json --out, the terminal keeping the project\'s formatter', { skip: missing('rspec', ['--version']) }, async (t) => {
    const root = makeTree(t, {
      '.rspec': '--format documentation\n',
      'spec/pass_spec.rb': "RSpec.describe 'pass' do\n  it('adds') { expect(1 + 1).to eq(2) }\nend\n",
      'spec/fail_spec.rb': "RSpec.describe 'fail' do\n  it('adds wrong') { expect(1 + 1).to eq(3) }\n  it('fine') { expect(1).to eq(1) }\nend\n",
      'spec/skip_spec.rb': "RSpec.describe 'skip' do\n  it('later') { skip 'not yet' }\n  xit('pending one') { }\nend\n",
    });
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.steps[0].command.split(' --format json')[0], 'rspec --format documentation');
    assert.deepEqual(statuses(run.files), [['spec/fail_spec.rb', 'failed'], ['spec/pass_spec.rb', 'passed'], ['spec/skip_spec.rb', 'skipped']]);
    assert.deepEqual(run.files[0].failures.map((f: any) => f.name), ['fail adds wrong']);
    assert.match(run.files[0].failures[0].message, /expected: 3/);
    assert.match(run.output, /adds wrong \(FAILED - 1\)/, 'the documentation formatter still prints');
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('phpunit: per file through --log-junit; an error counts as failed, incomplete as skipped', { skip: missing('phpunit', ['--version']) }, async (t) => {
    const test_ = (cls: string, body: string): string => `<?php\nuse PHPUnit\\Framework\\TestCase;\nfinal class ${cls} extends TestCase {\n${body}}\n`;
    const root = makeTree(t, {
      'phpunit.xml': '<?xml version="1.0"?>\n<phpunit>\n  <testsuites><testsuite name="all"><directory>tests</directory></testsuite></testsuites>\n</phpunit>\n',
      'tests/PassTest.php': test_('PassTest', '  public function testAdds(): void { $this->assertSame(2, 1 + 1); }\n'),
      'tests/FailTest.php': test_('FailTest', '  public function testWrong(): void { $this->assertSame(3, 1 + 1, "wrong sum"); }\n'
        + '  public function testFine(): void { $this->assertTrue(true); }\n'),
      'tests/ErrorTest.php': test_('ErrorTest', '  /** @dataProvider sums */\n  public function testData(int $a): void { if ($a > 1) throw new RuntimeException("boom"); $this->assertSame(1, $a); }\n'
        + '  public static function sums(): array { return ["one" => [1], "two" => [2]]; }\n'),
      'tests/SkipTest.php': test_('SkipTest', '  public function testLater(): void { $this->markTestSkipped("not yet"); }\n'
        + '  public function testHalf(): void { $this->markTestIncomplete("half"); }\n'),
    });
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.exit_code, 2, 'PHPUnit exits 2 when a test errored');
    assert.deepEqual(statuses(run.files), [['tests/ErrorTest.php', 'failed'], ['tests/FailTest.php', 'failed'],
      ['tests/PassTest.php', 'passed'], ['tests/SkipTest.php', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /RuntimeException: boom/);
    assert.match(run.files[1].failures[0].message, /wrong sum/);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('unittest: per file through unittest\'s own results (a sitecustomize on PYTHONPATH)', { skip: missing('python3', ['--version']) }, async (t) => {
    const root = makeTree(t, {
      'Makefile': 'test:\n\tpython3 -m unittest discover -s tests -v\n',
      'tests/test_pass.py': 'import unittest\n\nclass Pass(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(1 + 1, 2)\n',
      'tests/test_fail.py': "import unittest\n\nclass Fail(unittest.TestCase):\n    def test_wrong(self):\n        self.assertEqual(1 + 1, 3, 'wrong sum')\n\n"
        + '    def test_fine(self):\n        pass\n\n    def test_cases(self):\n        for i in range(2):\n            with self.subTest(i=i):\n'
        + '                self.assertEqual(i, 0)\n',
      'tests/test_skip.py': "import unittest\n\nclass Skip(unittest.TestCase):\n    @unittest.skip('not yet')\n    def test_later(self):\n        pass\n",
      'tests/test_broken.py': 'import no_such_module_here\n',
    });
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['tests/test_broken.py', 'failed'], ['tests/test_fail.py', 'failed'],
      ['tests/test_pass.py', 'passed'], ['tests/test_skip.py', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /No module named 'no_such_module_here'/);
    assert.deepEqual(run.files[1].failures.map((f: any) => f.name).sort(),
      ['test_fail.Fail.test_cases (i=1)', 'test_fail.Fail.test_wrong']);
    assert.match(run.files[1].failures.find((f: any) => f.name.endsWith('test_wrong')).message, /wrong sum/);
    assert.match(run.output, /test_adds \(test_pass\.Pass\.test_adds\) \.\.\. ok/, 'the command\'s own -v output is kept');
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('unittest: one file given to `python3 -m unittest`', { skip: missing('python3', ['--version']) }, async (t) => {
    const root = makeTree(t, {
      'Makefile': 'test:\n\tpython3 -m unittest -v\n',
      'tests/__init__.py': '',
      'tests/test_pass.py': 'import unittest\n\nclass Pass(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(1 + 1, 2)\n',
      'tests/test_fail.py': 'import unittest\n\nclass Fail(unittest.TestCase):\n    def test_wrong(self):\n        self.assertEqual(1 + 1, 3)\n',
    });
    const { run, url } = await runAll(t, root);
    assert.deepEqual(statuses(run.files), [['tests/test_fail.py', 'failed'], ['tests/test_pass.py', 'passed']], run.output);
    const started = await call(`${url}/api/projects/${run.project_id}/runs`, 'POST', { files: ['tests/test_pass.py'] });
    const one = await waitRun(url, started.body.id, 300_000);
    assert.equal(one.status, 'passed', one.output);
    assert.equal(one.steps[0].command, 'python3 -m unittest -v tests/test_pass.py');
    assert.deepEqual(statuses(one.files), [['tests/test_pass.py', 'passed']]);
  });

  test('minitest: per file through a minitest plugin on RUBYOPT, under `rake test`', { skip: missing('rake', ['--version']) }, async (t) => {
    const klass = (name: string, body: string): string => `require 'minitest/autorun'\n\nclass ${name} < Minitest::Test\n${body}end\n`;
    const root = makeTree(t, {
      'Rakefile': "require 'rake/testtask'\n\nRake::TestTask.new(:test) do |t|\n  t.pattern = 'test/**/*_test.rb'\nend\n",
      'test/pass_test.rb': klass('PassTest', '  def test_adds\n    assert_equal 2, 1 + 1\n  end\n'),
      'test/fail_test.rb': klass('FailTest', "  def test_wrong\n    assert_equal 3, 1 + 1, 'wrong sum'\n  end\n\n  def test_fine\n    assert true\n  end\n\n"
        + "  def test_raises\n    raise ArgumentError, 'boom'\n  end\n"),
      'test/skip_test.rb': klass('SkipTest', "  def test_later\n    skip 'not yet'\n  end\n"),
    });
    const { run, tests, url } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.steps[0].command, 'rake test');
    assert.deepEqual(statuses(run.files), [['test/fail_test.rb', 'failed'], ['test/pass_test.rb', 'passed'], ['test/skip_test.rb', 'skipped']]);
    assert.deepEqual(run.files[0].failures.map((f: any) => f.name).sort(), ['FailTest#test_raises', 'FailTest#test_wrong']);
    assert.match(run.files[0].failures.find((f: any) => f.name === 'FailTest#test_raises').message, /ArgumentError: boom/);
    assert.deepEqual(statuses(tests), statuses(run.files));
    // One file: Rake's test task runs only the file `TEST=` names.
    const started = await call(`${url}/api/projects/${run.project_id}/runs`, 'POST', { files: ['test/pass_test.rb'] });
    const one = await waitRun(url, started.body.id, 300_000);
    assert.equal(one.status, 'passed', one.output);
    assert.equal(one.steps[0].command, 'rake test TEST=test/pass_test.rb');
    assert.deepEqual(statuses(one.files), [['test/pass_test.rb', 'passed']]);
  });

  test('jasmine: per file through a reporter module that keeps Jasmine\'s console output', { skip: jsRunner('jasmine') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'jasmine' }, devDependencies: { jasmine: '5' } }),
      'spec/support/jasmine.json': JSON.stringify({ spec_dir: 'spec', spec_files: ['**/*[sS]pec.?(m)js'] }),
      'spec/pass.spec.js': "describe('pass', () => { it('adds', () => { expect(1 + 1).toBe(2); }); });\n",
      'spec/fail.spec.js': "describe('fail', () => { it('adds wrong', () => { expect(1 + 1).toBe(3); }); it('fine', () => {}); });\n",
      'spec/skip.spec.js': "describe('skip', () => { xit('later', () => {}); });\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.equal(run.exit_code, 3, 'Jasmine exits 3 when a spec failed');
    assert.deepEqual(statuses(run.files), [['spec/fail.spec.js', 'failed'], ['spec/pass.spec.js', 'passed'], ['spec/skip.spec.js', 'skipped']]);
    assert.match(run.files[0].failures[0].message, /Expected 2 to be 3/);
    assert.match(run.output, /4 specs, 1 failure, 1 pending spec/, 'Jasmine\'s own summary is printed');
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('tap: per file through --output-file (raw TAP beside the terminal report)', { skip: jsRunner('tap') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', type: 'module', scripts: { test: 'tap' }, devDependencies: { tap: '21' } }),
      'test/pass.test.js': "import t from 'tap';\nt.test('adds', (t) => { t.equal(1 + 1, 2); t.end(); });\n",
      'test/fail.test.js': "import t from 'tap';\nt.test('adds wrong', (t) => { t.equal(1 + 1, 3, 'wrong sum'); t.end(); });\n"
        + "t.test('fine', (t) => { t.ok(true); t.end(); });\n",
      'test/skip.test.js': "import t from 'tap';\nt.test('later', { skip: 'not yet' }, (t) => { t.end(); });\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { run, tests } = await runAll(t, root);
    assert.equal(run.status, 'failed', run.output);
    assert.deepEqual(statuses(run.files), [['test/fail.test.js', 'failed'], ['test/pass.test.js', 'passed'], ['test/skip.test.js', 'skipped']]);
    assert.deepEqual(run.files[0].failures, [{ name: 'adds wrong', message: 'wrong sum' }]);
    assert.deepEqual(statuses(tests), statuses(run.files));
  });

  test('ava: no report is read, but a run of one file gives AVA only that file', { skip: jsRunner('ava') }, async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', type: 'module', scripts: { test: 'ava' }, devDependencies: { ava: '6' } }),
      'test/pass.test.js': "import test from 'ava';\ntest('adds', (t) => { t.is(1 + 1, 2); });\n",
      'test/fail.test.js': "import test from 'ava';\ntest('adds wrong', (t) => { t.is(1 + 1, 3); });\n",
    });
    symlinkSync(join(RUNNERS!, 'node_modules'), join(root, 'node_modules'));
    const { url } = await serve(t);
    const { body: project } = await call(`${url}/api/projects`, 'POST', { name: 'fx', path: root });
    assert.equal((await call(`${url}/api/projects/${project.id}/scan`, 'POST')).status, 200);
    const started = await call(`${url}/api/projects/${project.id}/runs`, 'POST', { files: ['test/pass.test.js'] });
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const run = await waitRun(url, started.body.id, 300_000);
    assert.equal(run.status, 'passed', run.output);
    assert.equal(run.steps[0].command, 'ava test/pass.test.js');
    assert.deepEqual(run.files, []);
    assert.match(run.steps[0].notes.join('\n'), /projdex reads no report of ava.*\n.*only the files asked for were given to ava/);
    assert.doesNotMatch(run.output, /adds wrong/, 'the other file did not run');
    const whole = await waitRun(url, (await call(`${url}/api/projects/${project.id}/runs`, 'POST')).body.id, 300_000);
    assert.equal(whole.status, 'failed', 'the whole command runs the failing file too');
    assert.deepEqual(processesMentioning(root), []);
  });

  test('npm test\'s hooks: pretest runs first (a failure stops the step), posttest after a pass only', async (t) => {
    const check = "import test from 'node:test';\nimport { existsSync } from 'node:fs';\n"
      + "test('built', () => { if (!existsSync('built.txt')) throw new Error('not built'); });\n";
    const project = (scripts: Record<string, string>, extra: Record<string, string> = {}) => makeTree(t, {
      'package.json': JSON.stringify({ name: 'fx', scripts: { test: 'node --test', ...scripts } }), 'test/built.test.mjs': check, ...extra,
    });
    const built = { pretest: "node -e \"require('fs').writeFileSync('built.txt', 'x')\"", posttest: "node -e \"require('fs').writeFileSync('post.txt', 'x')\"" };
    const ok = project(built);
    const { run } = await runAll(t, ok);
    assert.equal(run.status, 'passed', run.output);
    assert.deepEqual(statuses(run.files), [['test/built.test.mjs', 'passed']]);
    assert.ok(existsSync(join(ok, 'post.txt')), 'posttest ran');
    assert.deepEqual(run.steps[0].notes, ['the package\'s `pretest` script ran first, as `npm test` runs it',
      'the package\'s `posttest` script ran after the tests passed, as `npm test` runs it']);
    assert.match(run.output, /^\$ node -e .*\(pretest\)\n/m);

    const broken = await runAll(t, project({ pretest: 'exit 3', posttest: built.posttest }));
    assert.equal(broken.run.status, 'failed');
    assert.equal(broken.run.exit_code, 3);
    assert.deepEqual(broken.run.files, []);
    assert.deepEqual(broken.run.steps[0].notes, ['the package\'s `pretest` script failed (exit code 3): the tests did not run']);
    assert.deepEqual(statuses(broken.tests), [['test/built.test.mjs', null]], 'the file keeps its previous status');

    const failing = project({ posttest: built.posttest });
    const noPost = await runAll(t, failing);
    assert.equal(noPost.run.status, 'failed');
    assert.ok(!existsSync(join(failing, 'post.txt')), 'posttest does not run after a failure');

    const ignored = await runAll(t, project(built, { '.npmrc': 'ignore-scripts=true\n' }));
    assert.equal(ignored.run.status, 'failed', 'the build did not run');
    assert.match(ignored.run.steps[0].notes.join('\n'), /`pretest` and `posttest` scripts were not run: `\.npmrc` sets `ignore-scripts=true`/);
  });
});

const byPath = (a: unknown[], b: unknown[]): number => String(a[0]).localeCompare(String(b[0]));

/** A crate with a failing unit module, an ignored test, a doc test and three integration targets. */
const CARGO_PROJECT: Record<string, string> = {
  'Cargo.toml': '[package]\nname = "fx"\nversion = "0.1.0"\nedition = "2021"\n',
  'src/lib.rs': 'pub mod util;\nmod skipped;\n\n/// Adds.\n///\n/// ```\n/// assert_eq!(fx::sum(1, 1), 2);\n/// ```\n'
    + 'pub fn sum(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn root_ok() { assert_eq!(super::sum(1, 1), 2); }\n}\n',
  'src/util/mod.rs': 'pub fn twice(a: i32) -> i32 { a * 2 }\n#[cfg(test)]\nmod tests {\n    #[test]\n'
    + '    fn doubles() { assert_eq!(super::twice(2), 5, "wrong double"); }\n    #[test]\n    fn fine() {}\n}\n',
  'src/skipped.rs': '#[cfg(test)]\nmod tests {\n    #[test]\n    #[ignore]\n    fn later() {}\n}\n',
  'tests/pass.rs': '#[test]\nfn adds() { assert_eq!(fx::sum(2, 2), 4); }\n',
  'tests/fail.rs': '#[test]\nfn wrong() { assert_eq!(fx::sum(2, 2), 5, "wrong sum"); }\n#[test]\nfn right() {}\n',
  'tests/multi/main.rs': 'mod inner;\n',
  'tests/multi/inner.rs': '#[test]\nfn inner_ok() {}\n',
};
