import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree } from '../helpers/index.ts';
import { portRange, run, start } from '../helpers/cli.ts';

/** Three projects and a folder that must not count: an install. */
const CODE = {
  'code/api/.git/HEAD': 'ref: refs/heads/main\n',
  'code/api/go.mod': 'module example.com/api\n',
  'code/api/server_test.go': 'package main\n',
  'code/web/package.json': JSON.stringify({ scripts: { test: 'node --test', dev: 'vite --port 5173' } }),
  'code/web/test/a.test.js': "import { test } from 'node:test';\ntest('a', () => {});\ntest('b', () => {});\n",
  'code/web/node_modules/dep/package.json': '{}',
  'code/admin/package.json': JSON.stringify({ scripts: { dev: 'vite --port 5173' } }),
  'code/notes/readme.txt': 'not a project',
};

suite('CLI commands on the data dir directly (no server running)', () => {
  test('add --all, ls, scan --all, tests, ports, in human and --json form', async (t) => {
    const root = makeTree(t, CODE);
    const data = ['--data-dir', join(root, 'data')];

    const added = await run(['add', '--all', join(root, 'code'), ...data]);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.stdout, [
      `added #1 admin  ${root}/code/admin`, `added #2 api  ${root}/code/api`, `added #3 web  ${root}/code/web`,
      '3 added, 0 already registered', ''].join('\n'));
    const again = await run(['add', '--all', join(root, 'code'), '--json', ...data]);
    const againBody = JSON.parse(again.stdout);
    assert.deepEqual([againBody.added.length, againBody.existing.map((p: { name: string }) => p.name)], [0, ['admin', 'api', 'web']]);
    assert.equal(existsSync(join(root, 'data', 'server.json')), false, 'a direct command publishes no server.json');

    const ls = await run(['ls', ...data]);
    assert.match(ls.stdout, /^ID +NAME +FRAMEWORK +TESTS +TAGS +SCANNED +LAST RUN +GIT +PATH\n1 +admin +- +- +- +never +never +- +\S+\/code\/admin\n/);
    const lsJson = JSON.parse((await run(['ls', '--json', ...data])).stdout);
    assert.deepEqual(lsJson.map((p: { name: string }) => p.name), ['admin', 'api', 'web']);

    const scanned = await run(['scan', '--all', ...data]);
    assert.equal(scanned.code, 0, scanned.stderr);
    assert.match(scanned.stdout, /^#1 admin: 0 test files, 1 port/m);
    assert.match(scanned.stdout, /^#2 api: 1 test file, 0 ports \(go\)$/m);
    assert.match(scanned.stdout, /^#3 web: 1 test file, 1 port/m);
    assert.match(scanned.stdout, /^3 projects scanned\n$/m);
    assert.equal(scanned.stderr, '', 'no progress line when stderr is not a terminal');

    const one = JSON.parse((await run(['scan', join(root, 'code', 'web'), '--json', ...data])).stdout);
    assert.deepEqual([one.project.name, one.testsFound, one.tests.map((x: { file_path: string }) => x.file_path)], ['web', 1, ['test/a.test.js']]);

    const tests = await run(['tests', '3', ...data]);
    assert.equal(tests.stdout, 'FILE            FRAMEWORK  CASES\ntest/a.test.js  node-test  2\n1 test file in #3 web\n');
    const byDir = JSON.parse((await run(['tests', join(root, 'code', 'api'), '--json', ...data])).stdout);
    assert.deepEqual(byDir.map((x: { file_path: string; framework: string }) => [x.file_path, x.framework]), [['server_test.go', 'go']]);

    const ports = await run(['ports', ...data]);
    assert.equal(ports.code, 0, ports.stderr);
    assert.match(ports.stdout, /^5173 ! +#1 admin +dev +package\.json\n5173 ! +#3 web +dev +package\.json\n1 port is claimed by more than one project \(marked !\)\n$/m);
    const conflicts = JSON.parse((await run(['ports', '--conflicts', '--json', ...data])).stdout);
    assert.deepEqual(conflicts, [{ port: 5173, conflict: true, projects: [
      { project_id: 1, name: 'admin', scripts: ['dev'], sources: ['package.json'] },
      { project_id: 3, name: 'web', scripts: ['dev'], sources: ['package.json'] }] }]);
  });

  test('add DIR, add again, --name, and ls filters', async (t) => {
    const root = makeTree(t, CODE);
    const data = ['--data-dir', join(root, 'data')];
    const first = await run(['add', join(root, 'code', 'web'), '--name', 'Web UI', ...data]);
    assert.equal(first.stdout, `added #1 Web UI  ${root}/code/web\n`);
    const dup = await run(['add', join(root, 'code', 'web'), ...data]);
    assert.deepEqual([dup.code, dup.stdout], [0, `already registered: #1 Web UI  ${root}/code/web\n`]);
    const dupJson = JSON.parse((await run(['add', join(root, 'code', 'web', '.'), '--json', ...data])).stdout);
    assert.deepEqual([dupJson.added, dupJson.project.id], [false, 1]);
    // Default: the current directory.
    const here = await run(['add', ...data], {}, { cwd: join(root, 'code', 'api') });
    assert.equal(here.stdout, `added #2 api  ${root}/code/api\n`);

    assert.equal((await run(['ls', '--search', 'web ui', ...data])).stdout.split('\n').length, 3, 'header, one row, end');
    assert.equal((await run(['ls', '--tag', 'nope', ...data])).stdout, 'no project matches\n');
    const empty = await run(['ls', '--data-dir', join(root, 'other')]);
    assert.match(empty.stdout, /^no projects yet; register one with `projdex add DIR`/);
  });

  test('errors: unknown id, unregistered dir, missing argument, foreign options', async (t) => {
    const root = makeTree(t, CODE);
    const data = ['--data-dir', join(root, 'data')];
    const cases: Array<[string[], number, RegExp]> = [
      [['scan', '7'], 1, /^ERROR: Project not found\n/],
      [['tests', join(root, 'code', 'web')], 1, /code\/web is not in a registered project; add it with `projdex add /],
      [['tests', join(root, 'missing')], 1, /^ERROR: No project has the id, name or directory "\S+missing"; `projdex ls` lists them\n$/],
      [['tests'], 2, /^ERROR: tests needs a project/],
      [['add', '--all'], 2, /^ERROR: add --all needs a folder/],
      [['add', '--all', root, '--depth', 'x'], 2, /--depth must be an integer/],
      [['ls', '--port', '1'], 2, /^ERROR: --port is not an option of `projdex ls`\n/],
      [['add', 'a', 'b'], 2, /^ERROR: Unexpected argument "b"\n/],
      [['add', join(root, 'missing')], 1, /^ERROR: Path does not exist: \S+missing\n$/],
      [['add', join(root, 'code', 'notes', 'readme.txt')], 1, /^ERROR: Path must be a directory: \S+readme\.txt\n$/],
      [['add', '--all', root, '--depth', '99'], 2, /^ERROR: --depth must be an integer from 0 to 16, got "99"\n/],
      [['add', root, '--depth', '2'], 2, /^ERROR: --depth goes with --all/],
    ];
    for (const [args, code, pattern] of cases) {
      const result = await run([...args, ...data]);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern, args.join(' '));
      // Only a usage error points at --help; a runtime error's sentence says what to do itself.
      if (code === 2) assert.match(result.stderr, /\nRun `projdex --help` for more info\.\n$/);
      else assert.doesNotMatch(result.stderr, /--help/);
    }
  });

  test('status and stop with no server say so', async (t) => {
    const data = ['--data-dir', join(makeTree(t), 'data')];
    const status = await run(['status', ...data]);
    assert.deepEqual([status.code, status.stdout], [3, `projdex is not running; data: ${data[1]}\n`]);
    assert.deepEqual(JSON.parse((await run(['status', '--json', ...data])).stdout), { running: false, dataDir: data[1] });
    const stop = await run(['stop', ...data]);
    assert.deepEqual([stop.code, stop.stdout], [0, `projdex is not running; data: ${data[1]}\n`]);
  });

  test('help: the whole CLI and one command', async () => {
    const all = await run(['--help']);
    for (const word of ['Commands', 'add --all DIR', 'scan [ID|DIR]', 'ports', 'status', 'stop', '--port-range', '--log', '--json']) assert.ok(all.stdout.includes(word), word);
    const add = await run(['add', '--help']);
    assert.match(add.stdout, /projdex add --all DIR \[--depth N\]/);
  });
});

suite('CLI commands through a running server', () => {
  test('status, add, ls and scan go to the server; stop ends it and removes server.json', async (t) => {
    const root = makeTree(t, CODE);
    const dataDir = join(root, 'data');
    const env = { PROJDEX_PORT_RANGE: portRange() };
    const server = await start(t, ['serve', '--data-dir', dataDir, '--log'], env);
    const info = JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8'));
    assert.equal(info.url, server.url);

    const status = await run(['status', '--data-dir', dataDir]);
    assert.deepEqual([status.code, status.stdout], [0, `projdex is running at ${server.url} (pid ${server.child.pid}); data: ${dataDir}\n`]);
    const added = await run(['add', join(root, 'code', 'web'), '--data-dir', dataDir]);
    assert.equal(added.code, 0, added.stderr);
    // The request went to the server (its --log line), and the server sees the new project.
    assert.match(server.stderr(), /POST \/api\/projects 201 /);
    assert.equal((await call(`${server.url}/api/projects`)).body.length, 1);
    const scanned = await run(['scan', '1', '--data-dir', dataDir]);
    assert.match(scanned.stdout, /^#1 web: 1 test file, 1 port/);
    assert.match(server.stderr(), /POST \/api\/projects\/1\/scan 200 /);
    // --full asks the server to ignore what the last scan kept (same findings).
    const full = await run(['scan', '1', '--full', '--data-dir', dataDir]);
    assert.equal(full.stdout, scanned.stdout);
    assert.match(server.stderr(), /POST \/api\/projects\/1\/scan\?full=1 200 /);
    assert.equal(server.stderr().match(/POST \/api\/projects\/1\/scan\S* 200 /g)?.length, 2);

    const stopped = await run(['stop', '--data-dir', dataDir, '--json']);
    assert.deepEqual(JSON.parse(stopped.stdout), { stopped: true, dataDir, url: server.url, pid: server.child.pid });
    assert.equal(await server.exited, 0);
    assert.equal(existsSync(join(dataDir, 'server.json')), false);
  });
});
