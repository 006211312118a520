import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { all, discover, json } from '../../helpers/discover.ts';
import { fixture, makeTree } from '../../helpers/index.ts';

// Test commands that hand the work to files (shell scripts, Makefiles), nx targets from project.json,
// and what a package whose command cannot be followed says (src/discover/js/scripts/, nx/). The Web Test
// Runner and tape rules' tests are in runners/wtr.test.ts and runners/tape.test.ts.

/** Fixtures of this family with their exact expected lists. */
export const EXPECTED_COMMANDS: Record<string, Record<string, string>> = {
  'js-make-test': all('mocha', ['test/integration/api.js', 'test/unit/add.js']),
  'js-shell-script': all('jest', ['src/index.spec.js', 'src/util/trim.test.js']),
  'js-nx-project-json': {
    'apps/api/src/app/app.spec.ts': 'jest', 'libs/ui/src/lib/button.spec.ts': 'vitest', 'libs/util/src/lib/format.spec.ts': 'jest',
    'tools/scripts/test/release.test.js': 'node-test',
  },
  'js-wireit': all('node-test', ['lib/test/add_test.js', 'packages/shared/test/shared.test.mjs', 'packages/shared/test/smoke.mjs']),
};

suite('discoverJs on command fixtures', () => {
  for (const [name, expected] of Object.entries(EXPECTED_COMMANDS)) {
    test(`${name}: exact file list and frameworks`, async () => {
      assert.deepEqual((await discover(fixture(name))).files, expected);
    });
  }
  test('js-make-test: the run names the Makefile it followed', async () => {
    const { runs } = await discover(fixture('js-make-test'));
    assert.deepEqual(runs.map((r) => [r.runner, r.command, r.notes]), [['mocha', 'make test', ['followed Makefile']]]);
  });
  test('js-shell-script: the CI branch is not taken, the cd is noted, the script file is named', async () => {
    const { runs, notes } = await discover(fixture('js-shell-script'));
    assert.deepEqual(runs.map((r) => [r.runner, r.command]), [['jest', 'bash scripts/test.sh']]);
    assert.ok(runs[0]!.notes.includes('followed scripts/test.sh'));
    assert.ok(notes.some((n) => /`if \[ -n \$\{CI:-\} \]` is false/.test(n)), notes.join('\n'));
  });
});

suite('task runners a script or CI calls: just and go-task', () => {
  test('a test script delegating to a justfile recipe runs what the recipe runs', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ name: 'j', scripts: { test: 'just test-internal' }, devDependencies: { vitest: '^3.0.0' } }),
      justfile: '# Normal targets\nclean:\n    rm -rf dist\n\ntest-internal: clean\n    pnpm vitest run\n',
      'src/a.test.ts': '', 'src/b.ts': '',
    });
    const { files, runs } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.ts': 'vitest' });
    assert.deepEqual(runs.map((r) => [r.runner, r.command, r.notes.includes('followed justfile')]), [['vitest', 'just test-internal', true]]);
  });
  test('a Taskfile task calling another task is followed', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ name: 'k', scripts: { test: 'task test:all' }, devDependencies: { jest: '^29.0.0' } }),
      'Taskfile.yml': "version: '3'\ntasks:\n  test:all:\n    cmds:\n      - task: test:unit\n  test:unit:\n    cmds:\n      - npx jest --ci\n",
      'src/a.test.js': '',
    });
    const { files, runs } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.js': 'jest' });
    assert.deepEqual(runs.map((r) => [r.runner, r.command]), [['jest', 'task test:all']]);
  });
  test('a recipe the justfile does not have lists nothing, and says so', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ name: 'm', scripts: { test: 'just check' }, devDependencies: { jest: '^29.0.0' } }),
      justfile: 'test:\n    npx jest\n', 'src/a.test.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, {});
    assert.ok(notes.some((n) => n.includes('`just check`: no recipe of that name was found in its justfile')), notes.join('\n'));
  });
  test('with no test script, a CI step calling `just test` is followed', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ name: 'c', devDependencies: { mocha: '^10.0.0' } }),
      '.github/workflows/ci.yml': 'jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm ci\n      - run: just test\n',
      justfile: 'test:\n    npx mocha "test/**/*.spec.js"\n',
      'test/unit/a.spec.js': '', 'test/b.js': '',
    });
    const { files } = await discover(root);
    assert.deepEqual(files, { 'test/unit/a.spec.js': 'mocha' });
  });
});

suite('commands projdex cannot follow', () => {
  test('a script running only unknown commands lists nothing, even with a runner installed, and says which', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ name: 'ci-only', scripts: { test: './ci.sh' }, devDependencies: { jest: '^29.0.0' } }),
      'ci.sh': '#!/usr/bin/env bash\nset -e\n./tools/run-suite --all\n', 'tools/run-suite': '#!/usr/bin/env python3\nimport sys\n',
      'src/a.test.js': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, {});
    assert.deepEqual(notes, [
      'package.json: `./tools/run-suite --all`: tools/run-suite runs under `/usr/bin/env python3`, not a shell',
      'package.json: `npm test` runs `./tools/run-suite --all`, which projdex cannot follow: no tests listed for ci-only, though it may have some',
    ]);
    assert.deepEqual(runs, [{ package: '', command: './ci.sh', runner: null, config: null,
      notes: ['`./tools/run-suite --all`: tools/run-suite runs under `/usr/bin/env python3`, not a shell', 'followed ci.sh', notes[1]] }]);
  });
  test('a node script that starts nothing readable is named; a missing Makefile target is named', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'make check && ./scripts/test.js' }, devDependencies: { mocha: '^11.0.0' } }),
      'Makefile': 'test:\n\tmocha\n', 'scripts/test.js': '#!/usr/bin/env node\nrequire("child_process")', 'test/a.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, {});
    assert.deepEqual(notes, [
      'package.json: `make check`: Makefile has no `check` target',
      'package.json: `node ./scripts/test.js`: scripts/test.js starts no command projdex can read',
      'package.json: `npm test` runs `make check`, `node ./scripts/test.js`, which projdex cannot follow: no tests listed for the project, though it may have some',
    ]);
  });
  test('a script that runs no runner at all lists nothing; no test script at all still assumes the defaults', async (t) => {
    const lintOnly = makeTree(t, { 'package.json': json({ scripts: { test: 'tsc && eslint .' }, devDependencies: { vitest: '^3.0.0' } }), 'a.test.ts': '' });
    const a = await discover(lintOnly);
    assert.deepEqual(a.files, {});
    assert.deepEqual(a.notes, ['package.json: `npm test` runs no test runner projdex knows (`tsc && eslint .`): no tests listed for the project']);
    const none = makeTree(t, { 'package.json': json({ devDependencies: { vitest: '^3.0.0' } }), 'a.test.ts': '' });
    const b = await discover(none);
    assert.deepEqual(b.files, { 'a.test.ts': 'vitest' });
    assert.deepEqual(b.notes, ['package.json has no test script; assumed the defaults of vitest']);
  });
  test('scripts calling scripts are followed to a bounded depth; make -C, sh -c and $(MAKE) too', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'sh -c "make -C tools unit"' } }),
      'tools/Makefile': 'unit:\n\t$(MAKE) inner\ninner:\n\tsh ../scripts/a.sh "test/x/**/*.test.js"\n',
      'scripts/a.sh': 'node --test "$1"', 'tools/test/x/b.test.js': '', 'test/x/a.test.js': '', 'test/y/c.test.js': '',
      'deep/package.json': json({ scripts: { test: './s1.sh' } }),
    });
    const { files } = await discover(root);
    // The recipe runs in tools/: node --test reads its globs from there.
    assert.deepEqual(files, { 'tools/test/x/b.test.js': 'node-test' });
    const loop = makeTree(t, { 'package.json': json({ scripts: { test: './a.sh' } }), 'a.sh': './a.sh', 'x.test.js': '' });
    const l = await discover(loop);
    assert.deepEqual(l.files, {});
    assert.ok(l.notes.some((n) => /nested deeper than projdex follows/.test(n)), l.notes.join('\n'));
  });
});

suite('nx targets from project.json and plugins', () => {
  const nxJson = json({ plugins: [{ plugin: '@nx/vite/plugin', options: { testTargetName: 'unit' } }, '@nx/playwright/plugin'],
    targetDefaults: { test: { executor: '@nx/jest:jest', options: { jestConfig: '{projectRoot}/jest.config.js' } } } });
  const tree = (script: string | undefined): Record<string, string> => ({
    'package.json': json({ name: 'ws', private: true, scripts: script === undefined ? {} : { test: script } }),
    'nx.json': nxJson,
    'libs/a/project.json': json({ name: 'a', targets: { test: {} } }), 'libs/a/jest.config.js': 'module.exports = {};', 'libs/a/src/x.spec.js': '',
    'libs/b/project.json': json({ name: 'b' }), 'libs/b/vitest.config.ts': 'export default {};', 'libs/b/src/y.test.ts': '',
    'apps/web-e2e/project.json': json({ name: 'web-e2e' }), 'apps/web-e2e/playwright.config.ts': "export default { testDir: './src' };",
    'apps/web-e2e/src/home.spec.ts': '',
    'apps/ng/project.json': json({ name: 'ng', targets: { test: { executor: '@angular-devkit/build-angular:karma', options: { include: ['src/**/*.spec.ts'] } } } }),
    'apps/ng/src/app.spec.ts': '', 'apps/ng/e2e/z.spec.ts': '',
    'tools/gen/project.json': json({ name: 'gen', targets: { test: { executor: '@acme/nx-mocha:test' } } }),
  });
  test('nx test <project>, nx run <project>:<target>, inferred targets by their option names', async (t) => {
    assert.deepEqual((await discover(makeTree(t, tree('nx test a')))).files, { 'libs/a/src/x.spec.js': 'jest' });
    assert.deepEqual((await discover(makeTree(t, tree('nx run b:unit')))).files, { 'libs/b/src/y.test.ts': 'vitest' });
    assert.deepEqual((await discover(makeTree(t, tree('nx run-many -t e2e')))).files, { 'apps/web-e2e/src/home.spec.ts': 'playwright' });
    assert.deepEqual((await discover(makeTree(t, tree('nx test ng')))).files, { 'apps/ng/src/app.spec.ts': 'karma' });
  });
  test('nx affected is read as every project; an executor projdex does not know is noted, not guessed', async (t) => {
    const { files, notes, runs } = await discover(makeTree(t, tree('nx affected -t test')));
    assert.deepEqual(files, { 'apps/ng/src/app.spec.ts': 'karma', 'libs/a/src/x.spec.js': 'jest' });
    assert.ok(notes.includes('package.json: `nx affected test` was read as every project (what changed since the base is not known)'), notes.join('\n'));
    assert.ok(notes.includes('tools/gen/project.json: `nx run gen:test (@acme/nx-mocha:test)` runs `the @acme/nx-mocha:test executor`, '
      + 'which projdex cannot follow: no tests listed for tools/gen, though it may have some'), notes.join('\n'));
    assert.ok(notes.some((n) => /Nx project b \(libs\/b\) has no `test` target/.test(n)), notes.join('\n'));
    assert.deepEqual(runs.find((r) => r.package === 'libs/a'), { package: 'libs/a', command: 'nx run a:test (@nx/jest:jest)', runner: 'jest', config: 'libs/a/jest.config.js', notes: [] });
  });
  test('nx run-many --exclude and tag: filters', async (t) => {
    const files = tree('nx run-many -t test --exclude ng');
    assert.deepEqual((await discover(makeTree(t, files))).files, { 'libs/a/src/x.spec.js': 'jest' });
    const tagged = tree('nx run-many -t test --projects=tag:scope:web');
    tagged['apps/ng/project.json'] = json({ ...JSON.parse(tagged['apps/ng/project.json']!), tags: ['scope:web', 'type:app'] });
    assert.deepEqual((await discover(makeTree(t, tagged))).files, { 'apps/ng/src/app.spec.ts': 'karma' });
  });
  test('nx test alone runs nx.json\'s defaultProject', async (t) => {
    const files = tree('nx test');
    files['nx.json'] = json({ ...JSON.parse(nxJson), defaultProject: 'ng' });
    assert.deepEqual((await discover(makeTree(t, files))).files, { 'apps/ng/src/app.spec.ts': 'karma' });
  });
  test('playwright, cypress and run-commands executors; package.json nx targets; a config outside the project', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ private: true, workspaces: ['packages/*'], scripts: { test: 'nx run-many -t e2e,test' } }),
      'nx.json': json({}),
      'e2e/project.json': json({ name: 'e2e', targets: { e2e: { executor: '@nx/playwright:playwright', options: { config: 'e2e/pw.config.ts' } } } }),
      'e2e/pw.config.ts': "export default { testDir: './specs' };", 'e2e/specs/a.spec.ts': '', 'e2e/other/b.spec.ts': '',
      'cy/project.json': json({ name: 'cy', targets: { e2e: { executor: '@nx/cypress:cypress', options: { cypressConfig: '{projectRoot}/cypress.config.ts' } } } }),
      'cy/cypress.config.ts': "export default { e2e: { specPattern: 'flows/**/*.cy.ts' } };", 'cy/flows/x.cy.ts': '',
      'tools/project.json': json({ name: 'tools', targets: { test: { executor: 'nx:run-commands', options: { commands: [{ command: 'node --test' }], cwd: 'tools/sub' } } } }),
      'tools/sub/t.test.js': '',
      'packages/p/package.json': json({ name: 'p', nx: { targets: { test: { executor: '@nx/jest:jest', options: { jestConfig: 'jest.shared.js' } } } } }),
      'packages/p/a.test.js': '', 'jest.shared.js': 'module.exports = {};',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'cy/flows/x.cy.ts': 'cypress', 'e2e/specs/a.spec.ts': 'playwright', 'packages/p/a.test.js': 'jest', 'tools/sub/t.test.js': 'node-test' });
    assert.ok(notes.includes('packages/p/package.json: `jestConfig` jest.shared.js is outside the project; its settings are not read'), notes.join('\n'));
    assert.ok(notes.includes('tools/project.json: `cwd` tools/sub is not a package projdex knows; read from tools'), notes.join('\n'));
  });
  test('an Nx workspace without a root test script runs each project\'s test target', async (t) => {
    const { files, notes } = await discover(makeTree(t, tree(undefined)));
    assert.deepEqual(files, { 'apps/ng/src/app.spec.ts': 'karma', 'libs/a/src/x.spec.js': 'jest' });
    assert.equal(notes[0], 'package.json has no test script; followed each Nx project\'s `test` target, as `nx run-many -t test` runs them');
  });
});

suite('other common script shapes', () => {
  test('wireit without an entry, concurrently value flags and npm: shorthands, TAP reporters, cross-env-shell, npx -p', async (t) => {
    const plan = async (scripts: Record<string, string>, extra: Record<string, unknown> = {}) =>
      (await discover(makeTree(t, { 'package.json': json({ scripts, ...extra }), 'test/a.test.js': '', 'spec/b.spec.js': '' })));
    const missing = await plan({ test: 'wireit' });
    assert.deepEqual(missing.files, {});
    assert.equal(missing.notes[0], 'package.json: the `test` script runs wireit, but package.json `wireit` has no `test` entry');
    const conc = await plan({ test: 'concurrently --kill-others-on-fail -n a,b -c blue,green "npm:unit" "yarn:spec"', unit: 'node --test', spec: 'mocha spec' });
    assert.deepEqual(conc.files, { 'spec/b.spec.js': 'mocha', 'test/a.test.js': 'node-test' });
    assert.deepEqual(conc.notes, []);
    const piped = await plan({ test: "cross-env-shell NODE_ENV=test 'node --test | tap-spec && echo done'" });
    assert.deepEqual(piped.files, { 'test/a.test.js': 'node-test' });
    assert.deepEqual(piped.notes, []);
    const npx = await plan({ test: 'npx -p @playwright/test -y node --test && node -e "require(\'./x\')"' });
    assert.deepEqual(npx.files, { 'test/a.test.js': 'node-test' });
    assert.deepEqual(npx.notes, ['package.json: the test script also runs `node -e`, which projdex cannot follow; tests it runs are not listed']);
  });
});

suite('a file two runners run', () => {
  test('stays one row, under the first runner, and a note names the other (mocha and web-test-runner)', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'npm run test-node && npm run test-chrome', 'test-node': 'mocha', 'test-chrome': 'web-test-runner' } }),
      '.mocharc.cjs': "module.exports = { spec: 'test/*.js' };\n",
      'web-test-runner.config.js': "export default { files: 'test/*.js', nodeResolve: true };\n",
      'test/assert.js': '', 'test/expect.js': '',
    });
    const { files, notes, runs } = await discover(root);
    assert.deepEqual(files, { 'test/assert.js': 'mocha', 'test/expect.js': 'mocha' });
    const note = 'package.json: web-test-runner also runs 2 files listed under mocha (one row per file), e.g. test/assert.js';
    assert.ok(notes.includes(note), notes.join('\n'));
    assert.ok(runs.find((r) => r.runner === 'web-test-runner')?.notes.includes(note), JSON.stringify(runs));
  });
});

suite('script files and wrappers', () => {
  test('a script file named like a builtin (./scripts/test) is followed; its functions, locals and unset arrays are not commands', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: './scripts/test' }, devDependencies: { jest: '^29.7.0' } }),
      'scripts/test': '#!/usr/bin/env bash\nset -e\nfunction has_flag() {\n  local f\n  return 1\n}\njest_args=()\n'
        + 'jest_args+=(--ci)\ntrap cleanup EXIT\nshift\n./node_modules/.bin/jest "${jest_args[@]}"\n',
      'src/a.test.ts': '', 'src/b.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.ts': 'jest' });
    assert.ok(!notes.some((n) => /cannot follow/.test(n)), notes.join('\n'));
  });
  test('istanbul cover runs the command after its options, with the words after `--`', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'istanbul cover --report lcovonly _mocha -- test.js test.node.js' }, devDependencies: { mocha: '^5.2.0' } }),
      'test.js': '', 'test.node.js': '', 'test/other.js': '',
    });
    assert.deepEqual((await discover(root)).files, { 'test.js': 'mocha', 'test.node.js': 'mocha' });
  });
});

