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

suite('discoverOthers() rake task files', () => {
  test('test tasks in tasks/*.rake loaded by the Rakefile; CI names the tasks; each task keeps its own exclusions', async (t) => {
    const root = makeTree(t, {
      'Gemfile': "source 'https://rubygems.org'\ngem 'minitest'\n",
      'Rakefile': "require 'bundler/gem_tasks'\nDir.glob('tasks/*.rake').each { |r| import r }\n\ntask default: %i[test rubocop]\n",
      'tasks/test.rake': [
        "require 'rake/testtask'", '', 'Rake::TestTask.new(:test) do |t|', "  t.libs << 'test'",
        "  t.test_files = FileList['test/**/*_test.rb'].exclude('test/jobs/**/*')", 'end', '',
        'namespace :test do', "  Rake::TestTask.new('jobs' => 'env:jobs') do |t|", '    if ENV["SKIP"]', '      exit 0', '    end',
        "    t.test_files = FileList['test/jobs/cases/*_test.rb']", '  end',
        "  Rake::TestTask.new('slow') do |t|", "    t.pattern = 'slow/**/*_test.rb'", '  end', 'end', '',
      ].join('\n'),
      '.github/workflows/ci.yml': 'jobs:\n  t:\n    steps:\n      - run: bundle exec rake\n      - run: bundle exec rake test:jobs\n',
      'test/test_helper.rb': '', 'test/models/user_test.rb': 'def test_a; end\n', 'test/jobs/cases/queue_test.rb': '',
      'test/jobs/helper_test.rb': '', 'slow/big_test.rb': '',
    });
    // slow/ is the `test:slow` task, which neither CI nor the default task runs.
    assert.deepEqual((await discover(root)).tests.map((x) => x.file), [
      'test/jobs/cases/queue_test.rb', 'test/models/user_test.rb',
    ]);
  });

  test('RSpec::Core::RakeTask patterns reached from the default task, RSpec files named *_test.rb', async (t) => {
    const root = makeTree(t, {
      'Gemfile': "gem 'rspec'\n",
      '.rspec': '--require spec_helper\n',
      'Rakefile': [
        "require 'rspec/core/rake_task'", "Dir['tasks/**/*.rake'].each { |f| load f }", '',
        'task default: %w[all_specs]', 'task all_specs: %w[spec:unit spec:checks]', '',
        'namespace :spec do', '  RSpec::Core::RakeTask.new("unit") do |t|', '    t.pattern = "spec/{*_spec.rb,lib/**/*_spec.rb}"', '  end', 'end', '',
      ].join('\n'),
      'tasks/checks.rake': "namespace :spec do\n  RSpec::Core::RakeTask.new(:checks) do |t|\n    t.pattern = 'checks/**/*_test.rb'\n  end\nend\n",
      'spec/spec_helper.rb': '', 'spec/top_spec.rb': 'it "a" do end\n', 'spec/lib/deep/x_spec.rb': '',
      'spec/acceptance/flow_spec.rb': '', 'checks/api_test.rb': 'it "b" do end\n',
    });
    const { tests, notes } = await discover(root);
    assert.deepEqual(tests.map((x) => `${x.file} ${x.framework}`), [
      'checks/api_test.rb rspec', 'spec/lib/deep/x_spec.rb rspec', 'spec/top_spec.rb rspec',
    ]);
    assert.deepEqual(notes.filter((n) => n.startsWith('RSpec')), [
      "RSpec: patterns taken from the RSpec::Core::RakeTask tasks `spec:unit`, `spec:checks` that the project's rake run reaches",
    ]);
  });

  test('RSpec rake tasks named in a loop over a word list, picked by a CI matrix; a commented-out definition defines nothing', async (t) => {
    const root = makeTree(t, {
      'Gemfile': "gem 'rspec'\n", '.rspec': '--color\n',
      'Rakefile': [
        "require 'rspec/core/rake_task'", '',
        '%w[chrome firefox].each do |driver|', '  RSpec::Core::RakeTask.new(:"spec_#{driver}") do |t|',
        '    t.pattern = "./spec/{browser_spec_#{driver}.rb}"', '  end', 'end', '',
        '# RSpec::Core::RakeTask.new(:spec_rack, [] => :lint) do |t|', 'RSpec::Core::RakeTask.new(:spec_rack) do |t|',
        "  t.pattern = './spec{,/*/**}/*{_spec.rb}'", 'end', 'task smoke: %i[lint spec_rack]', '',
      ].join('\n'),
      '.github/workflows/ci.yml': 'jobs:\n  t:\n    strategy:\n      matrix:\n        task: ["smoke", "spec_chrome"]\n    steps:\n      - run: bundle exec rake ${{ matrix.task }}\n',
      'spec/browser_spec_chrome.rb': '', 'spec/browser_spec_firefox.rb': '', 'spec/unit/node_spec.rb': '', 'spec/unit/deep/x_spec.rb': '',
    });
    const { tests, notes } = await discover(root);
    // spec_firefox is defined but nothing runs it (checked against Ruby's Dir glob for the spec_rack pattern).
    assert.deepEqual(tests.map((x) => x.file), ['spec/browser_spec_chrome.rb', 'spec/unit/deep/x_spec.rb', 'spec/unit/node_spec.rb']);
    assert.deepEqual(notes.filter((n) => n.startsWith('RSpec')), [
      "RSpec: patterns taken from the RSpec::Core::RakeTask tasks `spec_chrome`, `spec_rack` that the project's rake run reaches",
    ]);
  });
});

suite('discoverOthers() phpunit', () => {
  test('configs that CI and composer scripts reach count besides the root one: nested, matrix-named, outside their directory', async (t) => {
    const suiteXml = (dir: string): string => `<?xml version="1.0"?>\n<phpunit>\n  <testsuites>\n    <testsuite name="s">\n      <directory>${dir}</directory>\n    </testsuite>\n  </testsuites>\n</phpunit>\n`;
    const root = makeTree(t, {
      'composer.json': JSON.stringify({ 'require-dev': { 'phpunit/phpunit': '^10' }, scripts: { 'test:e2e': ['@putenv X=1', 'phpunit -c tests/e2e/phpunit.xml'] } }),
      'phpunit.xml.dist': suiteXml('tests/Unit'),
      'ci/phpunit/mysql.xml': suiteXml('../../tests/Functional'),
      'ci/phpunit/sqlite.xml': suiteXml('../../tests/Functional'),
      'packages/bridge/phpunit.xml.dist': suiteXml('tests'),
      'packages/unused/phpunit.xml.dist': suiteXml('tests'),
      'tests/e2e/phpunit.xml': suiteXml('.'),
      '.github/workflows/ci.yml': [
        'jobs:', '  db:', '    strategy:', '      matrix:', '        db: [mysql, pgsql]', '    steps:',
        '      - run: vendor/bin/phpunit -c ci/phpunit/${{ matrix.db }}.xml --coverage-clover=c.xml',
        '  bridge:', '    defaults:', '      run:', '        working-directory: packages/bridge', '    steps:', '      - run: ../../vendor/bin/phpunit',
      ].join('\n') + '\n',
      'tests/Unit/AddTest.php': '<?php\nfunction testA() {}\n', 'tests/Functional/DbTest.php': '', 'tests/e2e/FlowTest.php': '',
      'packages/bridge/tests/BridgeTest.php': '', 'packages/unused/tests/UnusedTest.php': '',
    });
    // packages/unused's config sits under the root one and nothing runs it; pgsql has no config file.
    assert.deepEqual((await discover(root)).tests.map((x) => x.file), [
      'packages/bridge/tests/BridgeTest.php', 'tests/Functional/DbTest.php', 'tests/Unit/AddTest.php', 'tests/e2e/FlowTest.php',
    ]);
  });

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
  test('maven multi-module: surefire defaults, custom includes/excludes, testSourceDirectory; abstract and test-less classes skipped', async () => {
    assert.deepEqual((await discover(fixture('jvm-maven'))).tests, [
      { file: 'core/src/test/java/com/acme/core/InheritedTest.java', framework: 'junit', cases: 1 },
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

suite('discoverOthers() dotnet and swift', () => {
  test('.NET: test projects by Test SDK reference or Directory.Build.props; bin/obj and app projects skipped', async (t) => {
    const root = makeTree(t, {
      'Shop.sln': '',
      'src/Shop/Shop.csproj': '<Project Sdk="Microsoft.NET.Sdk"></Project>',
      'src/Shop/Cart.cs': 'class Cart {}',
      'tests/Shop.Tests/Shop.Tests.csproj': '<Project Sdk="Microsoft.NET.Sdk"><ItemGroup><PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.9.0" /></ItemGroup></Project>',
      'tests/Shop.Tests/CartTests.cs': 'public class CartTests {\n  [Fact] public void Adds() {}\n  [Theory]\n  [InlineData(1)] public void Sums(int x) {}\n}\n',
      'tests/Shop.Tests/obj/Debug/AssemblyInfo.cs': '',
      'tests/Integration/Directory.Build.props': '<Project><PropertyGroup><IsTestProject>true</IsTestProject></PropertyGroup></Project>',
      'tests/Integration/Api/Api.fsproj': '<Project Sdk="Microsoft.NET.Sdk"></Project>',
      'tests/Integration/Api/ApiTests.fs': 'module ApiTests\n[<Test>]\nlet ``works`` () = ()\n',
    });
    assert.deepEqual((await discover(root)).tests, [
      { file: 'tests/Integration/Api/ApiTests.fs', framework: 'dotnet', cases: 1 },
      { file: 'tests/Shop.Tests/CartTests.cs', framework: 'dotnet', cases: 2 },
    ]);
  });

  test('SwiftPM: testTarget default and custom paths', async (t) => {
    const root = makeTree(t, {
      'Package.swift': 'let package = Package(\n  name: "Kit",\n  targets: [\n    .target(name: "Kit"),\n    .testTarget(name: "KitTests", dependencies: ["Kit"]),\n    .testTarget(name: "Other", dependencies: [.product(name: "X", package: "x")], path: "Checks/Other"),\n  ]\n)\n',
      'Sources/Kit/Kit.swift': 'func testLike() {}',
      'Tests/KitTests/KitTests.swift': 'import XCTest\nfinal class KitTests: XCTestCase {\n  func testA() {}\n  func testB() throws {}\n}\n',
      'Checks/Other/OtherTests.swift': 'import Testing\n@Test func works() {}\n',
      'Tests/Unlisted/U.swift': '',
    });
    assert.deepEqual((await discover(root)).tests, [
      { file: 'Checks/Other/OtherTests.swift', framework: 'swift', cases: 1 },
      { file: 'Tests/KitTests/KitTests.swift', framework: 'swift', cases: 2 },
    ]);
  });
});

suite('discoverOthers() ruby monorepo', () => {
  test('a Rails app and an rspec gem in subdirectories are each their own project', async (t) => {
    const root = makeTree(t, {
      'package.json': '{}',
      'backend/Gemfile': 'gem "rails"\n',
      'backend/test/models/a_test.rb': 'test "a" do\nend\n',
      'backend/test/system/b_test.rb': '',
      'gems/util/Gemfile': 'gem "rspec"\n',
      'gems/util/spec/util_spec.rb': 'it "x" do\nend\n',
      'vendor/bundle/ruby/x/Gemfile': 'gem "rspec"\n',
      'vendor/bundle/ruby/x/spec/v_spec.rb': '',
    });
    assert.deepEqual((await discover(root)).tests, [
      { file: 'backend/test/models/a_test.rb', framework: 'minitest', cases: 1 },
      { file: 'gems/util/spec/util_spec.rb', framework: 'rspec', cases: 1 },
    ]);
  });
});
