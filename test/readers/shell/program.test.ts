import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { readProgram } from '../../../src/readers/shell/program.ts';
import { planScript } from '../../../src/discover/js/scripts/script.ts';

const argvs = (script: string, fileTest?: (op: string, p: string) => boolean | undefined): string[] =>
  readProgram(script, { fileTest }).commands.map((c) => (c.cwd ? `(${c.cwd}) ` : '') + c.argv.join(' '));

suite('shell program reader', () => {
  test('lists, pipes, redirections, groups and subshells', () => {
    assert.deepEqual(argvs('cross-env A=1 jest 2>&1 | tee out.log && echo done > /dev/null; (cd packages/a && npm test) || { mocha; }'),
      ['cross-env A=1 jest', 'tee out.log', 'echo done', '(packages/a) npm test', 'mocha']);
  });
  test('if takes the branch that runs with the variables unset, and says so', () => {
    const p = readProgram('if [ -n "$CI" ]; then jest --ci; else jest --watch=false; fi');
    assert.deepEqual(p.commands.map((c) => c.argv), [['jest', '--watch=false']]);
    assert.deepEqual(p.notes, ['`if [ -n $CI ]` is false with the variables unset']);
    assert.deepEqual(argvs('if [ $COVERAGE ]; then npm run coveralls; else npm run unit; fi'), ['npm run unit']);
    // `[ -e $TRAVIS ]` is `[ -e ]` once the unset variable disappears: true.
    assert.deepEqual(argvs('if [ -e $TRAVIS ]; then npm run all; else npm run main; fi'), ['npm run all']);
    assert.deepEqual(argvs('if [ "$NODE_ENV" = "production" ]; then echo skip; elif test -z "$SKIP"; then ava; fi'), ['ava']);
  });
  test('file tests use the tree when given one; undecidable conditions follow every branch with a note', () => {
    assert.deepEqual(argvs('if [ -f frontend/package.json ]; then npm --prefix frontend test; else echo none; fi', (op, p) => op === '-f' && p === 'frontend/package.json'),
      ['npm --prefix frontend test']);
    const p = readProgram('if command -v deno; then deno test; else node --test; fi');
    assert.deepEqual(p.commands.map((c) => c.argv.join(' ')), ['deno test', 'node --test']);
    assert.match(p.notes[0]!, /could not decide/);
  });
  test('case takes the arm the unset word matches; loops are read once; variables expand', () => {
    assert.deepEqual(argvs('case "$TEST_ENV" in ci|CI) jest --ci ;; *) vitest run ;; esac'), ['vitest run']);
    assert.deepEqual(argvs('for f in a b; do node --test $f; done'), ['node --test']);
    assert.deepEqual(argvs('DIR=spec; export X=1; mocha ${DIR} ${EXTRA:-test/} $(git diff --name-only) # comment'), ['export X=1', 'mocha spec test/']);
  });
  test('a single-quoted or escaped $VAR is not expanded; a double-quoted one is', () => {
    assert.deepEqual(argvs(`D=spec; mocha '$D/*.js' "$D" \\$D x'$D'y`), ['mocha $D/*.js spec $D x$Dy']);
    assert.deepEqual(argvs(`P='$HOME/x'; node --test "$P"`), ['node --test $HOME/x']);
    assert.deepEqual(argvs(`if [ '$CI' = '' ]; then jest; else vitest; fi`), ['vitest']);
    assert.deepEqual(argvs(`case '$X' in '$X') tap ;; *) uvu ;; esac`), ['tap']);
  });
  test('positional parameters of a script file; a cd projdex cannot resolve stays put, with a note', () => {
    const p = readProgram('set -euo pipefail\ncd "$(dirname "$0")/.."\nnpx jest --ci "$@" $2', { args: ['--selectProjects', 'api'] });
    assert.deepEqual(p.commands.map((c) => [c.cwd, ...c.argv]), [['', 'set', '-euo', 'pipefail'], ['', 'npx', 'jest', '--ci', '--selectProjects', 'api', 'api']]);
    assert.match(p.notes[0]!, /^`cd .*` goes where projdex cannot tell/);
    assert.deepEqual(argvs('D=web; cd $D && vite; cd "$ROOT" && jest'), ['(web) vite', '(web) jest']);
    assert.deepEqual(readProgram('cd; jest').notes, ['`cd ` goes where projdex cannot tell; assumed it stays in the same directory']);
  });
  test('budgets: size, words and nesting', () => {
    assert.match(readProgram('x'.repeat(70_000)).notes[0]!, /longer than/);
    assert.match(readProgram('a '.repeat(30_000)).notes[0]!, /more words/);
    const deep = readProgram('('.repeat(100) + 'jest' + ')'.repeat(100));
    assert.deepEqual(deep.commands, []);
    assert.match(deep.notes.join(), /nests deeper/);
  });
});

suite('test script plans', () => {
  test('npm run X -- args appends the args to X; pre/post scripts run; npm keeps its own flags', async () => {
    const p = await planScript({ pretest: 'tsc', test: 'npm run unit --if-present -- --ci src', unit: 'jest', posttest: 'c8 report' });
    assert.deepEqual(p.invocations.map((i) => [i.runner, ...i.args]), [['jest', '--ci', 'src']]);
  });
  test('pnpm run /regex/, run-s globs, wrappers, node bins and tsx --test', async () => {
    const p = await planScript({
      test: 'pnpm run "/^test:/" && run-p check:*', 'test:a': 'dotenv -e .env.test -- vitest run', 'test:b': 'nyc --reporter lcov mocha',
      'check:x': 'node node_modules/jest/bin/jest.js --ci', 'check:y': 'tsx --test test/*.ts', 'check:z': 'node --import tsx --test',
    });
    assert.deepEqual(p.invocations.map((i) => [i.runner, ...i.args]), [
      ['vitest', 'run'], ['mocha'], ['jest', '--ci'], ['node-test', 'test/*.ts'], ['node-test'],
    ]);
  });
  test('workspace hand-offs', async () => {
    const d = async (test: string) => (await planScript({ test })).delegations.map((x) => [x.tool, x.scripts.join(','), x.filters?.join(',') ?? '*']);
    assert.deepEqual(await d("pnpm -r --filter './packages/*' test"), [['pnpm --recursive', 'test', './packages/*']]);
    assert.deepEqual(await d('npm test --workspaces --if-present'), [['npm --recursive', 'test', '*']]);
    assert.deepEqual(await d('npm run test -w @a/b'), [['npm --filter', 'test', '@a/b']]);
    assert.deepEqual(await d('yarn workspaces foreach -Apt --include "@x/*" run test'), [['yarn workspaces', 'test', '@x/*']]);
    assert.deepEqual(await d('lerna run test --scope "@ls/*" --stream'), [['lerna', 'test', '@ls/*']]);
    assert.deepEqual(await d('turbo run test lint --filter=web'), [['turbo', 'test,lint', 'web']]);
    assert.deepEqual(await d('nx run-many -t test --projects=api,web'), [['nx run-many', 'test', 'api,web']]);
    assert.deepEqual(await d('nx run api:test'), [['nx run', 'test', 'api']]);
  });
  test('commands projdex cannot follow are listed, tools that run no tests are not', async () => {
    const p = await planScript({ test: 'eslint . && ./scripts/test.sh && make test && tsc' });
    assert.deepEqual(p.unknown, ['./scripts/test.sh', 'make test']);
    assert.deepEqual(p.invocations, []);
    assert.equal((await planScript({ test: 'echo "Error: no test specified" && exit 1' })).missing, true);
  });
});
