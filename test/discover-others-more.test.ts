import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverOthers } from '../src/discover/others/index.ts';
import { createContext } from '../src/scan/context.ts';
import { walk } from '../src/scan/walk.ts';
import { fixture, makeTree } from './helpers.ts';

async function discover(root: string): Promise<{ tests: Array<{ file: string; framework: string; cases?: number }>; notes: string[] }> {
  const ctx = createContext(root, await walk(root));
  const tests = [...await discoverOthers(ctx)].sort((a, b) => (a.file < b.file ? -1 : 1));
  return { tests, notes: ctx.notes };
}

suite('discoverOthers() ruby', () => {
  test('rspec with .rspec --pattern list and --exclude-pattern; hidden dirs and files outside spec/ skipped', async () => {
    assert.deepEqual((await discover(fixture('ruby-rspec'))).tests, [
      { file: 'spec/models/order_check.rb', framework: 'rspec', cases: 2 },
      { file: 'spec/models/user_spec.rb', framework: 'rspec', cases: 2 },
      { file: 'spec/requests/api/v1/items_spec.rb', framework: 'rspec', cases: 3 },
    ]);
  });

  test('rails minitest: test/**/*_test.rb minus system and fixtures', async () => {
    assert.deepEqual((await discover(fixture('ruby-rails'))).tests, [
      { file: 'test/controllers/orders_controller_test.rb', framework: 'minitest', cases: 1 },
      { file: 'test/models/user_test.rb', framework: 'minitest', cases: 2 },
    ]);
  });

  test('Rake::TestTask test_files FileList literals', async () => {
    assert.deepEqual((await discover(fixture('ruby-rake'))).tests.map((t) => t.file), [
      'test/integration/cli_test.rb', 'test/unit/deep/lexer_test.rb', 'test/unit/parser_test.rb',
    ]);
  });

  test('Rake::TestTask without pattern means test/test*.rb; spec/ alone needs an rspec marker', async (t) => {
    const root = makeTree(t, {
      'Rakefile': 'Rake::TestTask.new do |t|\n  t.libs << "test"\nend\n',
      'test/test_a.rb': 'def test_x; end\n', 'test/b_test.rb': '', 'test/sub/test_c.rb': '',
      'spec/x_spec.rb': 'it "a" do end\n',
    });
    assert.deepEqual((await discover(root)).tests.map((x) => x.file), ['test/test_a.rb']);
  });
});

suite('discoverOthers() phpunit', () => {
  test('phpunit.xml.dist suites: directory suffixes, file, exclude; vendor configs ignored', async () => {
    assert.deepEqual((await discover(fixture('php-phpunit'))).tests, [
      { file: 'tests/Integration/ApiCheck.php', framework: 'phpunit', cases: 1 },
      { file: 'tests/Integration/cli.phpt', framework: 'phpunit', cases: 1 },
      { file: 'tests/Smoke.php', framework: 'phpunit', cases: 1 },
      { file: 'tests/Unit/InvoiceTest.php', framework: 'phpunit', cases: 3 },
      { file: 'tests/Unit/Money/CurrencyTest.php', framework: 'phpunit', cases: 1 },
    ]);
  });

  test('phpunit.xml wins over the .dist file; no config gives a note and nothing', async (t) => {
    const root = makeTree(t, {
      'phpunit.xml': '<phpunit><testsuites><testsuite name="a"><directory>a</directory></testsuite></testsuites></phpunit>',
      'phpunit.xml.dist': '<phpunit><testsuites><testsuite name="b"><directory>b</directory></testsuite></testsuites></phpunit>',
      'a/OneTest.php': '<?php', 'b/TwoTest.php': '<?php',
    });
    assert.deepEqual((await discover(root)).tests.map((x) => x.file), ['a/OneTest.php']);
    const bare = makeTree(t, { 'composer.json': '{"require-dev":{"phpunit/phpunit":"^11"}}', 'tests/ATest.php': '<?php' });
    const result = await discover(bare);
    assert.deepEqual(result.tests, []);
    assert.match(result.notes[0] ?? '', /PHPUnit runs nothing/);
  });
});

suite('discoverOthers() junit', () => {
  test('maven multi-module: surefire defaults, custom includes/excludes and testSourceDirectory', async () => {
    assert.deepEqual((await discover(fixture('jvm-maven'))).tests, [
      { file: 'core/src/test/java/com/acme/core/LegacyTestCase.java', framework: 'junit', cases: 2 },
      { file: 'core/src/test/java/com/acme/core/MoneyTest.java', framework: 'junit', cases: 2 },
      { file: 'core/src/test/java/com/acme/core/RoundingTests.java', framework: 'junit', cases: 1 },
      { file: 'core/src/test/java/com/acme/core/TestParsing.java', framework: 'junit', cases: 1 },
      { file: 'web/src/it/java/com/acme/web/RoutesSpec.java', framework: 'junit', cases: 3 },
    ]);
  });

  test('gradle: annotated or TestCase classes in src/test/{java,kotlin,groovy}, abstract and androidTest skipped', async () => {
    assert.deepEqual((await discover(fixture('jvm-gradle'))).tests, [
      { file: 'app/src/test/kotlin/com/acme/AppTest.kt', framework: 'junit', cases: 2 },
      { file: 'app/src/test/kotlin/com/acme/StockChecks.kt', framework: 'junit', cases: 1 },
      { file: 'lib/src/test/groovy/com/acme/lib/OldSuite.groovy', framework: 'junit', cases: 1 },
      { file: 'lib/src/test/java/com/acme/lib/ListTest.java', framework: 'junit', cases: 1 },
    ]);
  });
});

suite('discoverOthers() exunit', () => {
  test('umbrella apps with default and literal test_paths/test_pattern; deps and umbrella root skipped', async () => {
    assert.deepEqual((await discover(fixture('elixir-umbrella'))).tests, [
      { file: 'apps/core/test/core/cart_test.exs', framework: 'exunit', cases: 1 },
      { file: 'apps/core/test/core_test.exs', framework: 'exunit', cases: 3 },
      { file: 'apps/web/test/integration/api_check.exs', framework: 'exunit', cases: 1 },
      { file: 'apps/web/test/unit/router_check.exs', framework: 'exunit', cases: 1 },
    ]);
  });

  test('a computed test_paths falls back to test/ with a note', async (t) => {
    const root = makeTree(t, {
      'mix.exs': 'def project, do: [app: :a, test_paths: test_paths(Mix.env())]\n',
      'test/a_test.exs': 'test "x" do\nend\n', 'other/b_test.exs': '',
    });
    const result = await discover(root);
    assert.deepEqual(result.tests, [{ file: 'test/a_test.exs', framework: 'exunit', cases: 1 }]);
    assert.match(result.notes[0] ?? '', /computed/);
  });
});
