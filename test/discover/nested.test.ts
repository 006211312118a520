import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../../src/discover/others.ts';
import { createContext } from '../../src/scan/context.ts';
import { walk } from '../../src/scan/walk/walk.ts';
import { fixture, makeTree } from '../helpers/index.ts';

async function discover(root: string): Promise<{ tests: Array<{ file: string; framework: string; cases?: number }>; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
  return { tests, notes: ctx.notes };
}
const files = async (root: string): Promise<string[]> => (await discover(root)).tests.map((t) => t.file);
const SPEC = 'RSpec.describe "m" do\n  it "a" do\n  end\nend\n';
const PHP = '<?php\nfinal class XTest extends \\PHPUnit\\Framework\\TestCase\n{\n    public function testX(): void {}\n}\n';

// Expected lists checked with the real runners (rake 13 / rspec 3.12 / mix 1.14 / PHPUnit 9.6 / pytest 9)
// on the same trees, except Minitest::TestTask and test_load_filters, which those versions predate.
suite('nested fixture projects are data for the enclosing runner', () => {
  test('ExUnit: a mix.exs under test/fixtures is reached by the enclosing test_pattern (brace pattern too)', async () => {
    assert.deepEqual((await discover(fixture('elixir-nested'))).tests, [
      { file: 'test/fixtures/sample_proj/test/sample_proj_test.exs', framework: 'exunit', cases: 1 },
      { file: 'test/shelf_check.exs', framework: 'exunit', cases: 2 },
      { file: 'test/shelf_test.exs', framework: 'exunit', cases: 1 },
    ]);
  });

  test('RSpec: a .rspec/Gemfile under spec/fixtures does not start a project; the root glob reaches it', async (t) => {
    const root = makeTree(t, {
      '.rspec': '--require spec_helper\n--exclude-pattern "spec/slow/**/*_spec.rb"\n', 'spec/spec_helper.rb': '',
      'spec/models/m_spec.rb': SPEC, 'spec/slow/s_spec.rb': SPEC,
      'spec/fixtures/plugin/.rspec': '--format documentation\n', 'spec/fixtures/plugin/Gemfile': 'gem "rspec"\n',
      'spec/fixtures/plugin/spec/plugin_spec.rb': SPEC,
    });
    assert.deepEqual(await files(root), ['spec/fixtures/plugin/spec/plugin_spec.rb', 'spec/models/m_spec.rb']);
  });

  test('PHPUnit: a phpunit.xml under tests/_files is data; the root <directory> reaches its tests', async (t) => {
    const root = makeTree(t, {
      'phpunit.xml.dist': '<phpunit><testsuites><testsuite name="unit"><directory>tests</directory></testsuite></testsuites></phpunit>',
      'tests/Unit/CartTest.php': PHP,
      'tests/_files/project/phpunit.xml': '<phpunit><testsuites><testsuite name="f"><directory>src</directory></testsuite></testsuites></phpunit>',
      'tests/_files/project/tests/FixtureProjectTest.php': PHP,
      'packages/billing/phpunit.xml': '<phpunit><testsuites><testsuite name="b"><directory>tests</directory></testsuite></testsuites></phpunit>',
      'packages/billing/tests/InvoiceTest.php': PHP,
    });
    assert.deepEqual(await files(root), ['tests/Unit/CartTest.php', 'tests/_files/project/tests/FixtureProjectTest.php']);
  });

  test('pytest: a config inside tests/fixtures never becomes its own run', async (t) => {
    const root = makeTree(t, {
      'requirements-dev.txt': 'pytest\n', 'tests/test_a.py': 'def test_a(): pass\n',
      'tests/fixtures/proj/pytest.ini': '[pytest]\npython_files = nothing_*.py\n',
      'tests/fixtures/proj/test_p.py': 'def test_p(): pass\n',
    });
    assert.deepEqual(await files(root), ['tests/fixtures/proj/test_p.py', 'tests/test_a.py']);
  });
});

suite('Ruby and Elixir details', () => {
  test('Rake::TestTask default test/test*.rb loads test/test_helper.rb; a task the default does not name is not run', async () => {
    assert.deepEqual((await discover(fixture('ruby-rake-default'))).tests, [
      { file: 'test/test_helper.rb', framework: 'minitest', cases: 0 },
      { file: 'test/test_parser.rb', framework: 'minitest', cases: 2 },
    ]);
  });

  test('Minitest::TestTask.create: default globs include test_helper.rb; test_globs and FileList#exclude', async (t) => {
    const tree = { 'test/test_helper.rb': 'require "minitest/autorun"\n', 'test/unit/test_a.rb': 'def test_a; end\n', 'test/b_test.rb': 'def test_b; end\n', 'test/slow/c_test.rb': '' };
    const created = makeTree(t, { ...tree, 'Rakefile': 'require "minitest/test_task"\n\nMinitest::TestTask.create # named test, sensible defaults\n\ntask :default => :test\n' });
    assert.deepEqual(await files(created), ['test/b_test.rb', 'test/slow/c_test.rb', 'test/test_helper.rb', 'test/unit/test_a.rb']);
    const globs = makeTree(t, { ...tree, 'Rakefile': 'Minitest::TestTask.create(:test) do |t|\n  t.libs << "test"\n  t.test_globs = ["test/**/*_test.rb"]\nend\n' });
    assert.deepEqual(await files(globs), ['test/b_test.rb', 'test/slow/c_test.rb']);
    const excluded = makeTree(t, { ...tree, 'Rakefile': 'Rake::TestTask.new(:test) do |t|\n  t.test_files = FileList["test/**/*_test.rb"].exclude("test/slow/*")\nend\n' });
    assert.deepEqual(await files(excluded), ['test/b_test.rb']);
  });

  test('ExUnit test_load_filters: literal regexes and String.ends_with? captures; a computed one is noted', async (t) => {
    const root = makeTree(t, {
      'mix.exs': 'def project do\n  [app: :a, test_load_filters: [~r/_test\\.exs$/, &String.ends_with?(&1, "_prop.exs")]]\nend\n',
      'test/a_test.exs': 'test "a" do\nend\n', 'test/b_prop.exs': 'property "b" do\nend\n', 'test/c_check.exs': '',
    });
    assert.deepEqual(await files(root), ['test/a_test.exs', 'test/b_prop.exs']);
    const computed = makeTree(t, { 'mix.exs': 'def project, do: [app: :a, test_load_filters: filters()]\n', 'test/a_test.exs': '' });
    const result = await discover(computed);
    assert.deepEqual(result.tests.map((x) => x.file), ['test/a_test.exs']);
    assert.match(result.notes.join(), /test_load_filters is computed/);
  });
});
