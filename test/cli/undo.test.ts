import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';
import { BIN, portRange, run, start } from '../helpers/cli.ts';

const TREE = {
  'code/api/go.mod': 'module example.com/api\n',
  'code/api/internal/db/db_test.go': 'package db\n',
  'code/web/package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
  'code/web/test/a.test.js': "import { test } from 'node:test';\ntest('a', () => {});\n",
  'code/py/requirements.txt': 'pytest\n',
  'code/rb/Gemfile': "source 'https://rubygems.org'\n",
  'code/java/build.gradle.kts': 'plugins { java }\n',
  'code/dotnet/App.sln': '\n',
  'code/deno/deno.json': '{}',
  'code/php/composer.json': '{}',
  'code/plain/notes.txt': 'not a project',
};

suite('a CLI that can undo', () => {
  test('rm, edit, tag by id, name, directory and a folder inside a project', async (t) => {
    const root = makeTree(t, TREE);
    const data = ['--data-dir', join(root, 'data')];
    const cli = (args: string[], cwd = root) => run([...args, ...data], {}, { cwd });
    assert.equal((await cli(['add', join(root, 'code/api')])).code, 0);
    assert.equal((await cli(['add', 'code/web'])).code, 0);

    // A folder inside a registered project means that project.
    const tagged = await cli(['tag', '.', 'add', 'backend', 'go'], join(root, 'code/api/internal/db'));
    assert.deepEqual([tagged.code, tagged.stdout], [0, '#1 api: backend, go\n'], tagged.stderr);
    const byName = await cli(['tag', 'api', 'rm', 'go', '--json']);
    assert.deepEqual(JSON.parse(byName.stdout), ['backend']);

    const edited = await cli(['edit', 'web', '--name', 'Web UI', '--description', 'the shop front', '--framework', 'vitest']);
    assert.equal(edited.stdout, `updated #2 Web UI  ${root}/code/web\n  description: the shop front\n  framework: vitest\n`, edited.stderr);
    const cleared = JSON.parse((await cli(['edit', '2', '--description', '', '--json'])).stdout);
    assert.deepEqual([cleared.name, cleared.description, cleared.framework], ['Web UI', null, 'vitest']);
    const byDir = await cli(['edit', 'code/web/test', '--framework', '']);
    assert.match(byDir.stdout, /^updated #2 Web UI .*\n  framework: - \(the next scan fills it\)\n$/);

    // Resolution failures name what was typed; nothing is removed when one of several names fails.
    const missing = await cli(['rm', 'api', 'nope']);
    assert.deepEqual([missing.code, missing.stderr], [1, 'ERROR: No project has the id, name or directory "nope"; `projdex ls` lists them\n']);
    const outside = await cli(['edit', 'code/plain', '--name', 'x']);
    assert.equal(outside.stderr, `ERROR: ${root}/code/plain is not in a registered project; add it with \`projdex add code/plain\`\n`);
    const removed = await cli(['rm', 'api', '2']);
    assert.equal(removed.stdout, `removed #1 api  ${root}/code/api\nremoved #2 Web UI  ${root}/code/web\n`
      + '(only the registry entry: the directories are untouched)\n', removed.stderr);
    assert.ok(existsSync(join(root, 'code/api/go.mod')));
    assert.match((await cli(['ls'])).stdout, /^no projects yet/);

    const usage: Array<[string[], RegExp]> = [
      [['rm'], /^ERROR: rm needs a project/],
      [['edit', '1'], /^ERROR: edit needs at least one of --name, --description, --framework\n/],
      [['tag', '1', 'put', 'x'], /^ERROR: tag takes add or rm, got "put"\n/],
      [['tag', '1', 'add'], /^ERROR: tag add needs at least one tag\n/],
      [['set', 'watch'], /^ERROR: set needs a key and a value/],
      [['edit', '1', '--nmae', 'x'], /^ERROR: Unknown option --nmae; did you mean --name\?\n/],
      [['ls', '--zzzzzz'], /^ERROR: Unknown option --zzzzzz\n/],
      [['edit', '1', '--name'], /^ERROR: --name needs a value\n/],
    ];
    for (const [args, pattern] of usage) {
      const result = await cli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(' '));
      assert.match(result.stderr, /\nRun `projdex --help` for more info\.\n$/);
    }
  });

  test('set and get: a value projdex cannot use for a key it reads is refused, not stored', async (t) => {
    const data = ['--data-dir', join(makeTree(t), 'data')];
    const bad = await run(['set', 'watch', 'maybe', ...data]);
    assert.deepEqual([bad.code, bad.stderr], [1, 'ERROR: watch must be on or off (also true/false, yes/no, 1/0), got "maybe"\n']);
    const unset = await run(['get', 'watch', ...data]);
    assert.match(unset.stdout, /^watch is not set \(Rescan projects when their files change/);
    assert.equal((await run(['set', 'watch', 'off', ...data])).stdout, 'watch = off\n');
    assert.equal((await run(['set', 'editor', 'code --wait', ...data])).stdout, 'editor = code --wait\n');
    assert.equal((await run(['get', 'watch', ...data])).stdout, 'off\n');
    const all = await run(['get', ...data]);
    assert.match(all.stdout, /^KEY +VALUE\neditor +code --wait\nwatch +off\n\nKeys projdex reads:\n  watch  Rescan/);
    assert.deepEqual(JSON.parse((await run(['get', '--json', ...data])).stdout), { editor: 'code --wait', watch: 'off' });
  });

  test('open prints the dashboard URL (no terminal, so no browser) and says how to start a server', async (t) => {
    const root = makeTree(t, TREE);
    const dataDir = join(root, 'data');
    const none = await run(['open', '--data-dir', dataDir]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^ERROR: projdex is not running for this data dir; start it with `projdex serve`/);
    const server = await start(t, ['serve', '--data-dir', dataDir], { PROJDEX_PORT_RANGE: portRange() });
    await run(['add', join(root, 'code/web'), '--data-dir', dataDir]);
    assert.equal((await run(['open', '--data-dir', dataDir])).stdout, `${server.url}/\n`);
    assert.equal((await run(['open', 'code/web/test', '--data-dir', dataDir], {}, { cwd: root })).stdout, `${server.url}/#/project/1\n`);
  });
});

suite('add refuses what a user does not mean', () => {
  test('the home directory and a parent of registered projects unless --force; / gets the API text', async (t) => {
    const root = makeTree(t, TREE);
    const env = { HOME: join(root, 'code') };
    const data = ['--data-dir', join(root, 'data')];
    const home = await run(['add', '~', ...data], env);
    assert.equal(home.code, 1);
    assert.match(home.stderr, /^ERROR: \S+\/code is your home directory: a scan would walk every cache and install in it/);
    assert.match(home.stderr, /add --force to register it anyway\n$/);
    assert.doesNotMatch(home.stderr, /--help/);
    assert.equal((await run(['add', '~/web', ...data], env)).code, 0, 'a quoted ~/x is expanded');
    const parent = await run(['add', join(root, 'code'), '--force', ...data], env);
    assert.equal(parent.code, 0, '--force registers the home directory');
    const nested = await run(['add', root, ...data], env);
    assert.match(nested.stderr, /^ERROR: \S+ holds 2 registered projects \(#1 web, #2 code\): registering it too would count their tests twice/);
    const slash = await run(['add', '/', ...data], env);
    assert.deepEqual([slash.code, slash.stderr], [1, 'ERROR: Refusing to register a filesystem root\n']);
    // `--data-dir '~/x'` is under HOME, not a folder named "~".
    const tilde = await run(['ls', '--data-dir', '~/state'], env);
    assert.equal(tilde.code, 0, tilde.stderr);
    assert.ok(existsSync(join(root, 'code', 'state', 'projdex.db')));
  });

  test('add --all finds the roots of every ecosystem the scanner reads', async (t) => {
    const root = makeTree(t, TREE);
    const added = await run(['add', '--all', join(root, 'code'), '--json', '--data-dir', join(root, 'data')]);
    const names = JSON.parse(added.stdout).added.map((p: { name: string }) => p.name);
    assert.deepEqual(names, ['api', 'deno', 'dotnet', 'java', 'php', 'py', 'rb', 'web']);
  });
});

suite('output', () => {
  test('ls shows test counts and marks a project whose directory is gone', async (t) => {
    const root = makeTree(t, TREE);
    const data = ['--data-dir', join(root, 'data')];
    await run(['add', join(root, 'code/web'), ...data]);
    await run(['add', join(root, 'code/api'), ...data]);
    await run(['scan', 'web', ...data]);
    rmSync(join(root, 'code/api'), { recursive: true });
    const ls = await run(['ls', ...data]);
    assert.match(ls.stdout, /^ID +NAME +FRAMEWORK +TESTS +TAGS +SCANNED +LAST RUN +GIT +PATH\n1 +web +node +1 +- +\d{4}-.+ never +\S+ +\S+code\/web\n2 +api +- +- +- +never +never +- +\S+code\/api  \(gone\)\n/);
    assert.match(ls.stdout, /\n1 project directory is gone \(marked\); `projdex rm ID` forgets a project\n$/);
  });

  test('a reader that closes the pipe early ends the command quietly', async (t) => {
    const files: Record<string, string> = { 'app/package.json': JSON.stringify({ scripts: { test: 'node --test' } }) };
    for (let i = 0; i < 2000; i++) files[`app/test/case-number-${i}.test.js`] = '';
    const root = makeTree(t, files);
    const data = `--data-dir "${join(root, 'data')}"`;
    spawnSync(process.execPath, [BIN, 'add', join(root, 'app'), '--data-dir', join(root, 'data')]);
    const piped = spawnSync('sh', ['-c', `"${process.execPath}" "${BIN}" scan --all --json ${data} | head -1`],
      { encoding: 'utf8', timeout: 60_000 });
    assert.equal(piped.stdout, '[\n');
    assert.equal(piped.stderr, '', 'no EPIPE stack trace');
  });
});
