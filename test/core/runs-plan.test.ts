import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { argvOf, readCommand, showArgv } from '../../src/core/runs/command.ts';
import { stepEnv } from '../../src/core/runs/env.ts';
import { scriptHooks } from '../../src/core/runs/hooks.ts';
import { planRun } from '../../src/core/runs/plan.ts';
import { createTail } from '../../src/core/runs/tail.ts';
import { makeTree } from '../helpers/index.ts';

const run = (command: string | null, runner: string | null, pkg = '') => ({ package: pkg, command, runner, config: null, notes: [] });

suite('runs: reading a recorded command', () => {
  test('a plain invocation runs without a shell; npx and cross-env only locate or set', () => {
    assert.deepEqual(readCommand('jest --coverage'), { argv: ['jest', '--coverage'], last: ['jest', '--coverage'] });
    assert.deepEqual(readCommand('npx vitest run')?.argv, ['vitest', 'run']);
    assert.deepEqual(readCommand("node --test 'test/a b.mjs'")?.argv, ['node', '--test', 'test/a b.mjs']);
    assert.deepEqual(readCommand('cross-env TZ=UTC jest')?.last, ['jest']);
    assert.deepEqual(readCommand('poetry run pytest -q')?.last, ['pytest', '-q']);
    assert.deepEqual(readCommand('uv run python -m pytest')?.argv, ['uv', 'run', 'python', '-m', 'pytest']);
  });
  test('a command that needs a shell gets one, and appended words reach its last command unparsed', () => {
    const chain = readCommand('tsc -p . && jest')!;
    assert.equal(chain.argv, undefined);
    assert.deepEqual(chain.last, ['jest']);
    assert.deepEqual(argvOf(chain, ['--json', '$(rm -rf /)']), ['/bin/sh', '-c', 'tsc -p . && jest "$@"', 'sh', '--json', '$(rm -rf /)']);
    assert.equal(showArgv(argvOf(chain, ['--json'])), 'tsc -p . && jest --json');
    assert.deepEqual(readCommand('node --test | tee out.txt')!.last, []);
    assert.deepEqual(readCommand('NODE_ENV=test jest')!.last, ['jest']);
    assert.equal(readCommand("jest 'unclosed"), undefined);
  });
});

suite('runs: planning steps from the last scan', () => {
  const tests = [
    { file_path: 'test/a.test.mjs', framework: 'node-test' },
    { file_path: 'packages/ui/src/b.test.ts', framework: 'vitest' },
    { file_path: 'spec/c.spec.js', framework: 'ava' },
  ];
  test('one step per command, in its package, with a reporter where projdex reads one and a note where not', () => {
    const plan = planRun('/p', [run('node --test', 'node-test'), run('vitest run', 'vitest', 'packages/ui'), run('ava', 'ava')], tests);
    assert.ok('steps' in plan);
    assert.deepEqual(plan.steps.map((s) => [s.package, s.cwd, s.reporter?.runner ?? null]), [
      ['', '/p', 'node-test'], ['packages/ui', '/p/packages/ui', 'vitest'], ['', '/p', null]]);
    assert.match(plan.steps[2]!.notes[0]!, /^no per-file result: projdex reads no report of ava; so the exit code decides/);
    assert.deepEqual(plan.steps[1]!.known, ['/p/packages/ui/src/b.test.ts']);
  });
  test('files asked for pick the steps that run them; nothing runnable is a sentence', () => {
    const plan = planRun('/p', [run('node --test', 'node-test'), run('vitest run', 'vitest', 'packages/ui')], tests, { files: ['test/a.test.mjs'] });
    assert.ok('steps' in plan);
    assert.deepEqual(plan.steps.map((s) => s.files), [['/p/test/a.test.mjs']]);
    assert.deepEqual(planRun('/p', [], tests), { error: 'No runnable test command: the last scan found no test command (a `test` script, a runner config) in this project' });
    assert.match((planRun('/p', [run('vitest', 'vitest')], tests, { files: ['spec/c.spec.js'] }) as { error: string }).error, /None of the files/);
  });
  test('a runner without a recorded command uses its default (pytest), a command through a pipe runs as written', () => {
    const plan = planRun('/p', [run(null, 'pytest'), run('node --test | cat', 'node-test')], [{ file_path: 't/test_a.py', framework: 'pytest' }, tests[0]!]);
    assert.ok('steps' in plan);
    assert.deepEqual(plan.steps.map((s) => [s.runner, s.reporter?.runner ?? null]), [['pytest', 'pytest'], ['node-test', null]]);
    assert.match(plan.steps[1]!.notes[0]!, /does not start node-test as its last command/);
  });
  test('Go modules get `go test ./...` in their directory though the scan records no command for Go', (t) => {
    const root = makeTree(t, { 'svc/go.mod': 'module example.com/svc\n', 'svc/a_test.go': 'package svc\n' });
    const plan = planRun(root, [], [{ file_path: 'svc/a_test.go', framework: 'go' }]);
    assert.ok('steps' in plan);
    assert.deepEqual(plan.steps.map((s) => [s.package, s.reporter?.runner]), [['svc', 'go']]);
  });
  test('RSpec and PHPUnit get their default command where their config is; a recorded command covers its files', (t) => {
    const root = makeTree(t, {
      'api/Gemfile': "gem 'rspec'\n", 'api/Gemfile.lock': '', 'api/spec/a_spec.rb': '', 'cli/spec/spec_helper.rb': '', 'cli/spec/b_spec.rb': '',
      'web/phpunit.xml.dist': '<phpunit/>', 'web/tests/ATest.php': '', 'go/x_test.go': '',
    });
    const tests = [['api/spec/a_spec.rb', 'rspec'], ['cli/spec/b_spec.rb', 'rspec'], ['web/tests/ATest.php', 'phpunit'], ['go/x_test.go', 'go']]
      .map(([file_path, framework]) => ({ file_path: file_path!, framework: framework! }));
    const plan = planRun(root, [], tests);
    assert.ok('steps' in plan);
    assert.deepEqual(plan.steps.map((s) => [s.package, showArgv(s.base.argv!), s.reporter?.runner]),
      [['api', 'bundle exec rspec', 'rspec'], ['cli', 'rspec', 'rspec'], ['web', 'phpunit', 'phpunit']], 'a Go file without go.mod gets no step');
    const recorded = planRun(root, [{ package: 'api', command: 'bin/rspec --tag fast', runner: 'rspec', config: null, notes: [] }], tests.slice(0, 1));
    assert.ok('steps' in recorded);
    assert.deepEqual(recorded.steps.map((s) => showArgv(s.base.argv!)), ['bin/rspec --tag fast']);
  });
});

suite('runs: single files for runners projdex reads no report of', () => {
  test('a runner that takes files as arguments gets them; others run whole, each with a note', (t) => {
    const root = makeTree(t);
    const plan = (runner: string, command: string) => planRun(root, [{ package: '', command, runner, config: null, notes: [] }],
      [{ file_path: 'test/a_test.exs', framework: runner }], { files: ['test/a_test.exs'] });
    const mix = plan('exunit', 'mix test --trace');
    assert.ok('steps' in mix);
    assert.deepEqual(mix.steps[0]!.files, [`${root}/test/a_test.exs`]);
    assert.match(mix.steps[0]!.notes.join('\n'), /projdex reads no report of exunit.*\nonly the files asked for were given to exunit$/);
    for (const [runner, command] of [['tape', "tape 'test/**/*.js'"], ['exunit', 'make test']]) {
      const whole = plan(runner!, command!);
      assert.ok('steps' in whole);
      assert.equal(whole.steps[0]!.files, undefined, command);
      assert.match(whole.steps[0]!.notes.at(-1)!, /the whole command ran/);
    }
  });
});

suite('runs: npm test\'s pretest and posttest', () => {
  const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}) => JSON.stringify({ name: 'x', scripts, ...extra });
  test('run when the command is the package\'s test script, unless Yarn 2+ or ignore-scripts say otherwise', (t) => {
    const root = makeTree(t, {
      'package.json': pkg({ pretest: 'tsc -b', test: 'node --test', posttest: 'echo done' }),
      'berry/package.json': pkg({ pretest: 'tsc -b', test: 'jest' }, { packageManager: 'yarn@4.5.0' }),
      'classic/package.json': pkg({ pretest: 'tsc -b', test: 'jest' }, { packageManager: 'yarn@1.22.22' }),
      'yarnrc/package.json': pkg({ posttest: 'echo done', test: 'jest' }), 'yarnrc/.yarnrc.yml': 'nodeLinker: node-modules\n',
      'ws/.npmrc': 'ignore-scripts = true\n', 'ws/pkgs/a/package.json': pkg({ pretest: 'tsc -b', test: 'jest' }),
    });
    assert.deepEqual(scriptHooks(root, root, 'node --test'), { pre: 'tsc -b', post: 'echo done', notes: [] });
    assert.deepEqual(scriptHooks(root, root, 'node --test test/'), { notes: [] }, 'another command than the test script');
    assert.deepEqual(scriptHooks(root, `${root}/classic`, 'jest'), { pre: 'tsc -b', notes: [] });
    assert.deepEqual(scriptHooks(root, `${root}/berry`, 'jest').notes, ['the `pretest` script was not run: Yarn 2 and later run no pre/post scripts']);
    assert.deepEqual(scriptHooks(root, `${root}/yarnrc`, 'jest').notes, ['the `posttest` script was not run: Yarn 2 and later run no pre/post scripts']);
    assert.deepEqual(scriptHooks(root, `${root}/ws/pkgs/a`, 'jest').notes,
      ['the `pretest` script was not run: `.npmrc` sets `ignore-scripts=true`, with which npm skips them']);
    assert.deepEqual(scriptHooks(root, `${root}/none`, 'jest'), { notes: [] });
  });
});

suite('runs: environment and output', () => {
  test('projdex\'s variables and the token are removed; CI, NO_COLOR and the bins are set', () => {
    const env = stepEnv({ PATH: '/usr/bin', PROJDEX_TOKEN: 'tok-123456', MY_COPY: 'x tok-123456', NODE_TEST_CONTEXT: 'child', HOME: '/h' },
      { secrets: ['tok-123456'], binDirs: ['/p/node_modules/.bin'] });
    assert.deepEqual(env, { PATH: '/p/node_modules/.bin:/usr/bin', HOME: '/h', CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', TERM: 'dumb',
      PLAYWRIGHT_HTML_OPEN: 'never', GIT_TERMINAL_PROMPT: '0', PYTHONDONTWRITEBYTECODE: '1', CARGO_TERM_COLOR: 'never' });
  });
  test('the tail keeps the last bytes, from a line start', () => {
    const tail = createTail(100);
    for (let i = 0; i < 50; i++) tail.push(Buffer.from(`line ${i}\n`));
    const text = tail.text();
    assert.ok(Buffer.byteLength(text) <= 100);
    assert.match(text, /^line \d+\n/);
    assert.match(text, /line 49\n$/);
    const big = createTail(10);
    big.push(Buffer.from('a'.repeat(30)));
    assert.equal(big.text(), 'a'.repeat(10));
  });
});
