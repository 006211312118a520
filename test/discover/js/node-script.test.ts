import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { discoverJs } from '../../../src/discover/js/index.ts';
import { nodeScriptCommands } from '../../../src/discover/js/scripts/node-script.ts';
import { createContext } from '../../../src/scan/context.ts';
import { walk } from '../../../src/scan/walk/walk.ts';
import { makeTree } from '../../helpers/index.ts';

async function discover(root: string) {
  const ctx = createContext(root, await walk(root));
  const tests = await discoverJs(ctx);
  return { files: Object.fromEntries(tests.map((t) => [t.file, t.framework])), notes: ctx.notes };
}
const json = (v: unknown): string => JSON.stringify(v);

suite('node scripts that start the runner themselves', () => {
  test('child_process, cross-spawn, execa and shelljs calls give their literal command lines; computed ones are counted', () => {
    const text = [
      "const { execSync, spawnSync } = require('node:child_process');",
      "const spawn = require('cross-spawn');",
      "const shell = require('shelljs');",
      "import { execa } from 'execa';",
      "const ARGS = ['--ci', '--runInBand'];",
      "if (/x/.exec('jest')) shell.exec('mocha --require @babel/register');",
      "execSync('npx jest --testPathPattern=tests/unit', { stdio: 'inherit' });",
      "spawn.sync('jest', ARGS, { stdio: 'inherit' });",
      "spawn.sync('jest', ['-c', getJestConfigPath()]);",
      "spawnSync('mocha', ['test/**/*.spec.{js,ts}', \"it's\"]);",
      "await execa('vitest', ['run', ...process.argv.slice(2)]);",
      'execSync(`playwright test ${project}`);',
    ].join('\n');
    assert.deepEqual(nodeScriptCommands(text), {
      lines: [
        'mocha --require @babel/register',
        'npx jest --testPathPattern=tests/unit',
        "jest '--ci' '--runInBand'",
        "mocha 'test/**/*.spec.{js,ts}' 'it'\\''s'",
        "vitest 'run'",
      ],
      computed: 2,
      forwards: false,
    });
  });

  test('`node scripts/test.js` is followed to the runner it spawns; a quoted brace glob reaches the runner as written', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'node scripts/test.js' }, devDependencies: { mocha: '^10.0.0' } }),
      'scripts/test.js': "const { spawnSync } = require('child_process');\n"
        + "const r = spawnSync('mocha', ['--recursive', 'test/**/*.{spec,test}.js'], { stdio: 'inherit' });\nprocess.exit(r.status);\n",
      'test/unit/a.spec.js': '', 'test/b.test.js': '', 'test/helper.js': '', 'src/c.spec.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'test/b.test.js': 'mocha', 'test/unit/a.spec.js': 'mocha' });
    assert.deepEqual(notes, []);
  });

  test('a script file run directly, with tsx, whose calls are partly computed: a note says only the literal ones were read', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'tsx ./scripts/run-tests.ts' }, devDependencies: { vitest: '^3.2.0' } }),
      'scripts/run-tests.ts': "import { execSync } from 'node:child_process';\nexecSync('vitest run --dir src');\n"
        + "for (const p of pkgs) execSync(`vitest run --root ${p}`);\n",
      'src/a.test.ts': '', 'e2e/b.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'src/a.test.ts': 'vitest' });
    assert.deepEqual(notes, ['package.json: scripts/run-tests.ts: 1 command is computed; projdex read only the literal ones']);
  });

  test('a wrapper script that spawns the command it is given runs that command, as npm\'s shell handed it over', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'node bin/env-fix.js mocha test/unit/*.js --exit' }, devDependencies: { mocha: '^10.0.0' } }),
      'bin/env-fix.js': "import { spawn } from 'child_process';\nconst args = process.argv.slice(2);\n"
        + "const child = spawn('cross-env', needsFix ? ['NODE_OPTIONS=--x', ...args] : args, { shell: true, stdio: 'inherit' });\n",
      'test/unit/a.js': '', 'test/unit/deep/b.js': '', 'test/c.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'test/unit/a.js': 'mocha' });
    assert.deepEqual(notes, ['package.json: bin/env-fix.js was read as running the command it is given (`mocha test/unit/*.js --exit`)']);
  });

  test('bnt (better-node-test) runs *.test|spec.js|ts anywhere but .git and node_modules, or the files it is given', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'pnpm run /^test:/', 'test:coverage': "bnt --coverage 100 --coverage-exclude 'test/*'", 'test:one': 'bnt -t fast test/b.test.ts' } }),
      'test/a.test.js': '', 'test/b.test.ts': '', '.hidden/c.spec.ts': '', 'test/d.test.mjs': '', 'test/helper.js': '',
    });
    assert.deepEqual((await discover(root)).files, { '.hidden/c.spec.ts': 'node-test', 'test/a.test.js': 'node-test', 'test/b.test.ts': 'node-test' });
  });

  test('a runner call that matches nothing says so, naming a path that is not in the tree (a build output)', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { pretest: 'npm run build', build: 'tsc', test: 'node --test dist-node/test/*.js' } }),
      'src/test/a.test.ts': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, {});
    assert.deepEqual(notes, ['package.json: node-test dist-node/test/*.js matches no file: dist-node is not in the tree (it may be built before the run)']);
  });
});

suite('node Makefile.js TARGET (shelljs/make)', () => {
  test('the target\'s exec commands and the targets it calls are computed in the file\'s scope and followed', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'node Makefile.js test' }, devDependencies: { mocha: '^11.0.0' } }),
      'Makefile.js': [
        'require("shelljs/make");', 'const path = require("node:path");',
        'const NODE_MODULES = "./node_modules/",', '  MOCHA = `${NODE_MODULES}mocha/bin/_mocha `,',
        '  TEST_FILES = \'"tests/{lib,bin}/**/*.js"\',', '  TIMEOUT = parseInt(process.env.T, 10) || 10000;',
        'function binFile(command) { return path.join("node_modules", ".bin", command); }',
        'target.lint = function () { exec("eslint ."); };',
        'target.mocha = () => {', '  const r = exec(`${binFile("c8")} -- ${MOCHA} -t ${TIMEOUT} ${TEST_FILES}`);',
        '  exec(`${binFile("c8")} check-coverage --lines 99`);', '};',
        'target.test = function () {', '  target.lint();', '  target.mocha();', '};',
        'target.e2e = function () { exec("playwright test"); };', '',
      ].join('\n'),
      'tests/lib/a.js': '', 'tests/bin/deep/b.js': '', 'tests/fixtures/c.js': '', 'e2e/d.spec.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, { 'tests/bin/deep/b.js': 'mocha', 'tests/lib/a.js': 'mocha' });
    assert.deepEqual(notes, ['package.json: Makefile.js: `TIMEOUT` is computed; read as one unknown word']);
  });

  test('hostile target names and unbalanced bodies name no target and never throw', async (t) => {
    const root = makeTree(t, {
      'package.json': json({ scripts: { test: 'node Makefile.js "a(b[" && node make.js test' } }),
      'Makefile.js': 'require("shelljs/make");\ntarget.test = function () { exec(`mocha ${',
      'make.js': 'require("shelljs/make");\ntarget.test = () => { exec("mocha " + ' + '('.repeat(5000) + ' }',
      'test/a.js': '',
    });
    const { files, notes } = await discover(root);
    assert.deepEqual(files, {});
    assert.ok(notes.some((n) => n.includes('`a(b[` is not a target name')), notes.join('\n'));
  });
});

