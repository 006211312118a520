import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';
import { openStore } from '../../src/core/store/store.ts';
import { openRunsStore } from '../../src/core/store/runs.ts';
import { NODE_PROJECT, processesMentioning, running, waitRun } from '../helpers/runs.ts';
import { ofType, openStream } from '../helpers/sse.ts';

async function project(url: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  const { status, body } = await call(`${url}/api/projects`, 'POST', { name: 'fx', path }, headers);
  assert.equal(status, 201);
  return body.id as number;
}

suite('test runs: node --test', () => {
  test('records every file\'s result, the tests\' status and the project\'s last run, with events', async (t) => {
    const root = makeTree(t, NODE_PROJECT);
    const { url } = await serve(t);
    const id = await project(url, root);
    const stream = await openStream(`${url}/api/events`);
    t.after(() => stream.close());
    const started = await call(`${url}/api/projects/${id}/runs`, 'POST');
    assert.equal(started.status, 202);
    assert.equal(started.body.project_id, id);
    assert.match(started.body.status, /^(running|queued)$/);
    const run = await waitRun(url, started.body.id);
    assert.equal(run.status, 'failed');
    assert.equal(run.exit_code, 1);
    assert.deepEqual(run.files.map((f: any) => [f.file_path, f.status]), [
      ['test/fail.test.mjs', 'failed'], ['test/pass.test.mjs', 'passed'], ['test/skip.test.mjs', 'skipped']]);
    assert.deepEqual(run.counts, { passed: 1, failed: 1, skipped: 1 });
    assert.deepEqual(run.files[0].failures.map((f: any) => f.name), ['adds']);
    assert.match(run.files[0].failures[0].message, /2 !== 3|2 == 3/);
    assert.equal(run.steps.length, 1);
    assert.equal(run.steps[0].runner, 'node-test');
    assert.match(run.steps[0].command, /^node --test --test-reporter=spec/);
    assert.match(run.output, /adds/);
    const tests = (await call(`${url}/api/projects/${id}/tests`)).body;
    assert.deepEqual(tests.map((x: any) => [x.file_path, x.status, x.last_run === run.finished_at]), [
      ['test/fail.test.mjs', 'failed', true], ['test/pass.test.mjs', 'passed', true], ['test/skip.test.mjs', 'skipped', true]]);
    const record = (await call(`${url}/api/projects/${id}`)).body;
    assert.deepEqual(record.last_run, { id: run.id, status: 'failed', finished_at: run.finished_at });
    assert.deepEqual((await call(`${url}/api/projects`)).body[0].last_run, record.last_run);
    await stream.next((e) => e.event === 'run.finished');
    assert.equal(ofType(stream.received, 'run.started').length, 1);
    assert.deepEqual(ofType(stream.received, 'run.file').map((e) => e.data.file.file_path).sort(),
      ['test/fail.test.mjs', 'test/pass.test.mjs', 'test/skip.test.mjs']);
    assert.match(ofType(stream.received, 'run.output').map((e) => e.data.text).join(''), /✖ adds/);
    assert.equal(ofType(stream.received, 'run.finished')[0]!.data.status, 'failed');

    // Only the failed files, then only named files; the others keep their status.
    const again = await waitRun(url, (await call(`${url}/api/projects/${id}/runs`, 'POST', { failed: true })).body.id);
    assert.deepEqual(again.files.map((f: any) => f.file_path), ['test/fail.test.mjs']);
    const named = await waitRun(url, (await call(`${url}/api/projects/${id}/runs`, 'POST', { files: ['test/pass.test.mjs'] })).body.id);
    assert.equal(named.status, 'passed');
    assert.deepEqual(named.files.map((f: any) => [f.file_path, f.status]), [['test/pass.test.mjs', 'passed']]);
    assert.equal((await call(`${url}/api/projects/${id}`)).body.last_run.status, 'passed');
    assert.equal((await call(`${url}/api/projects/${id}/tests`)).body[0].status, 'failed');
    const page = (await call(`${url}/api/projects/${id}/runs?limit=2`)).body;
    assert.deepEqual(page.runs.map((r: any) => r.id), [named.id, again.id]);
    assert.equal(page.total, 3);
    assert.deepEqual((await call(`${url}/api/projects/${id}/runs?before=${page.next}`)).body.runs.map((r: any) => r.id), [run.id]);
  });

  test('refuses what cannot run, with a sentence', async (t) => {
    const root = makeTree(t, { ...NODE_PROJECT, 'empty/README.md': 'no tests\n' });
    const { url } = await serve(t);
    const id = await project(url, root);
    const empty = await project(url, join(root, 'empty'));
    const none = await call(`${url}/api/projects/${empty}/runs`, 'POST');
    assert.equal(none.status, 409);
    assert.match(none.body.error, /^No runnable test command/);
    assert.equal((await call(`${url}/api/projects/${id}/runs`, 'POST', { files: ['nope.js'] })).status, 400);
    assert.equal((await call(`${url}/api/projects/${id}/runs`, 'POST', { files: 'test/pass.test.mjs' })).status, 400);
    assert.equal((await call(`${url}/api/projects/${id}/runs`, 'POST', { failed: 'yes' })).status, 400);
    const nothingFailed = await call(`${url}/api/projects/${id}/runs`, 'POST', { failed: true });
    assert.equal(nothingFailed.status, 409);
    assert.match(nothingFailed.body.error, /nothing to re-run/);
    assert.equal((await call(`${url}/api/projects/99/runs`, 'POST')).status, 404);
    assert.equal((await call(`${url}/api/runs/99`)).status, 404);
    assert.equal((await call(`${url}/api/runs/abc`)).status, 400);
    assert.equal((await call(`${url}/api/runs/99`, 'DELETE')).status, 404);
    // GETs and scans never start a run.
    await call(`${url}/api/projects/${id}/scan`, 'POST');
    assert.equal((await call(`${url}/api/projects/${id}/runs`)).body.total, 0);
  });

  test('two requests while a never-scanned project is scanned start one run; a missing program is an error with a note', async (t) => {
    const root = makeTree(t, {
      ...NODE_PROJECT,
      'nojest/package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '30' } }),
      'nojest/a.test.js': "test('a', () => {});\n",
    });
    const { url } = await serve(t, { runs: { env: { PATH: '/nonexistent' } } });
    const id = await project(url, root);
    const answers = await Promise.all([call(`${url}/api/projects/${id}/runs`, 'POST'), call(`${url}/api/projects/${id}/runs`, 'POST')]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [202, 409]);
    const nojest = await project(url, join(root, 'nojest'));
    const run = await waitRun(url, (await call(`${url}/api/projects/${nojest}/runs`, 'POST')).body.id);
    assert.equal(run.status, 'error');
    assert.equal(run.reason, 'a step could not start (see its notes)');
    assert.deepEqual(run.steps[0].notes, ['could not start: jest is not installed (not found on PATH)']);
  });

  test('cancel ends the whole process group, a grandchild included; one run per project', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/hang.test.mjs': `import test from 'node:test';
import { spawn } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
test('hangs', async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  // Written whole, then named: the test waits for the name, and must never read a file still empty.
  writeFileSync('PIDS.part', JSON.stringify([process.pid, child.pid]));
  renameSync('PIDS.part', 'PIDS');
  await new Promise(() => {});
});
`,
    }, 'projdex-cancel-');
    const { url } = await serve(t);
    const id = await project(url, root);
    const started = (await call(`${url}/api/projects/${id}/runs`, 'POST')).body;
    const second = await call(`${url}/api/projects/${id}/runs`, 'POST');
    assert.equal(second.status, 409);
    assert.equal(second.body.error, 'A run is already in progress for this project');
    const pidsFile = join(root, 'PIDS');
    for (let i = 0; i < 600 && !existsSync(pidsFile); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
    assert.ok(pids.every(running), 'the test file and its grandchild run');
    // While it runs, its record shows the output so far.
    assert.match((await call(`${url}/api/runs/${started.id}`)).body.output, /^\$ node --test /);
    assert.ok(processesMentioning(root).length >= 2);
    const t0 = Date.now();
    const canceled = await call(`${url}/api/runs/${started.id}`, 'DELETE');
    assert.ok(Date.now() - t0 < 5_000, `cancel took ${Date.now() - t0} ms`);
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.status, 'canceled');
    assert.deepEqual(pids.filter(running), []);
    assert.deepEqual(processesMentioning(root), []);
    assert.equal((await call(`${url}/api/runs/${started.id}`, 'DELETE')).status, 409);
    assert.equal((await call(`${url}/api/projects/${id}`)).body.last_run.status, 'canceled');

    // Unregistering the project stops its run too.
    const again = (await call(`${url}/api/projects/${id}/runs`, 'POST')).body;
    for (let i = 0; i < 600 && processesMentioning(root).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await call(`${url}/api/projects/${id}`, 'DELETE')).status, 204);
    for (let i = 0; i < 200 && processesMentioning(root).length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(processesMentioning(root), []);
    assert.equal((await call(`${url}/api/runs/${again.id}`)).status, 404, 'its runs went with it');
  });

  test('a run past its deadline is stopped and recorded as error', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/slow.test.mjs': "import test from 'node:test';\ntest('sleeps', () => new Promise((r) => setTimeout(r, 60_000)));\n",
    }, 'projdex-deadline-');
    const { url } = await serve(t, { runs: { deadlineMs: 1_000 } });
    const id = await project(url, root);
    const t0 = Date.now();
    const run = await waitRun(url, (await call(`${url}/api/projects/${id}/runs`, 'POST')).body.id, 30_000);
    assert.ok(Date.now() - t0 < 30_000);
    assert.equal(run.status, 'error');
    assert.match(run.reason, /deadline of 1 s/);
    assert.deepEqual(processesMentioning(root), []);
  });

  test('a step\'s environment has no PROJDEX_ variable nor the token, and CI=true NO_COLOR=1; the token is required', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/env.test.mjs': `import test from 'node:test';
import assert from 'node:assert/strict';
test('env', () => {
  assert.deepEqual(Object.keys(process.env).filter((k) => k.startsWith('PROJDEX_')), []);
  assert.ok(!Object.values(process.env).some((v) => v.includes('s3cret-token')));
  assert.equal(process.env.CI, 'true');
  assert.equal(process.env.NO_COLOR, '1');
});
`,
    });
    const token = 's3cret-token-0123456789';
    const { url } = await serve(t, { token, runs: { env: { ...process.env, PROJDEX_TOKEN: token, PROJDEX_PORT: '1', OTHER: token } } });
    const auth = { authorization: `Bearer ${token}` };
    const id = await project(url, root, auth);
    assert.equal((await call(`${url}/api/projects/${id}/runs`, 'POST')).status, 401);
    const started = await call(`${url}/api/projects/${id}/runs`, 'POST', undefined, auth);
    assert.equal(started.status, 202);
    let run;
    for (;;) {
      run = (await call(`${url}/api/runs/${started.body.id}`, 'GET', undefined, auth)).body;
      if (run.status !== 'running' && run.status !== 'queued') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(run.status, 'passed', run.output);
    assert.deepEqual(run.files.map((f: any) => f.status), ['passed']);
  });

  test('10,000 lines of output: the record keeps the last 1 MiB and /health answers meanwhile', async (t) => {
    const line = 'x'.repeat(150);
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/loud.test.mjs': `import test from 'node:test';
test('loud', async () => {
  for (let i = 0; i < 10000; i++) {
    process.stdout.write('line ' + i + ' ${line}\\n');
    if (i % 500 === 0) await new Promise((r) => setImmediate(r));
  }
});
`,
    });
    const { url } = await serve(t);
    const id = await project(url, root);
    const started = (await call(`${url}/api/projects/${id}/runs`, 'POST')).body;
    const latencies: number[] = [];
    for (;;) {
      const t0 = performance.now();
      assert.equal((await call(`${url}/health`)).status, 200);
      latencies.push(performance.now() - t0);
      if ((await call(`${url}/api/runs/${started.id}`)).body.status !== 'running') break;
    }
    const run = await waitRun(url, started.id);
    assert.equal(run.status, 'passed');
    const bytes = Buffer.byteLength(run.output);
    assert.ok(bytes <= 1024 * 1024 && bytes > 900 * 1024, `kept ${bytes} bytes`);
    assert.match(run.output, /line 9999 x+/);
    assert.doesNotMatch(run.output, /line 0 x/);
    assert.match(run.output, /^line \d+ x+\n/, 'the kept output starts at a line');
    latencies.sort((a, b) => a - b);
    // A wide bound: the figure measured on an idle machine is in the note; this only catches a stalled server.
    assert.ok(latencies.at(-1)! < 2_000, `slowest /health: ${latencies.at(-1)} ms`);
  });

  test('a chain gets the reporter on its last command; a piped command runs as written, its exit code deciding', async (t) => {
    const root = makeTree(t, {
      'chain/package.json': JSON.stringify({ scripts: { test: 'echo building && node --test' } }),
      'chain/test/a.test.mjs': "import test from 'node:test';\ntest('ok', () => {});\n",
      'piped/package.json': JSON.stringify({ scripts: { test: 'node --test | cat' } }),
      'piped/test/a.test.mjs': "import test from 'node:test';\ntest('bad', () => { throw new Error('no'); });\n",
      'spec/package.json': JSON.stringify({ scripts: { test: 'node --test --test-reporter=spec' } }),
      'spec/test/a.test.mjs': "import test from 'node:test';\ntest('bad', () => { throw new Error('no'); });\n",
    });
    const { url } = await serve(t);
    const chain = await project(url, join(root, 'chain'));
    const first = await waitRun(url, (await call(`${url}/api/projects/${chain}/runs`, 'POST')).body.id);
    assert.equal(first.status, 'passed');
    assert.match(first.output, /^\$ echo building && node --test --test-reporter=spec/);
    assert.match(first.output, /\nbuilding\n/);
    assert.deepEqual(first.files.map((f: any) => [f.file_path, f.status]), [['test/a.test.mjs', 'passed']]);
    const piped = await project(url, join(root, 'piped'));
    const second = await waitRun(url, (await call(`${url}/api/projects/${piped}/runs`, 'POST')).body.id);
    // `| cat` hides node's exit code from the shell: the command as written passes, and no file is reported.
    assert.equal(second.status, 'passed');
    assert.deepEqual(second.files, []);
    assert.match(second.steps[0].notes[0], /^no per-file result: `node --test \| cat` does not start node-test as its last command/);
    assert.deepEqual((await call(`${url}/api/projects/${piped}/tests`)).body.map((x: any) => x.status), [null]);
    // The command's own reporter (a common script) keeps writing to stdout beside projdex's.
    const spec = await project(url, join(root, 'spec'));
    const third = await waitRun(url, (await call(`${url}/api/projects/${spec}/runs`, 'POST')).body.id);
    assert.equal(third.status, 'failed');
    assert.match(third.steps[0].command, /^node --test --test-reporter=spec --test-reporter-destination=stdout --test-reporter=\//);
    assert.deepEqual(third.files.map((f: any) => [f.file_path, f.status]), [['test/a.test.mjs', 'failed']]);
    assert.match(third.output, /✖ bad/);
  });

  test('a run the server left in progress is recorded as error when it starts again', async (t) => {
    const root = makeTree(t, NODE_PROJECT);
    const file = join(root, 'projdex.db');
    const store = openStore(file);
    const id = store.insertProject({ name: 'fx', path: root })!.id;
    const left = openRunsStore(store).createRun(id, 'running');
    store.close();
    const { url } = await serve(t, { db: file });
    const run = (await call(`${url}/api/runs/${left.id}`)).body;
    assert.equal(run.status, 'error');
    assert.equal(run.reason, 'the server stopped while this run was in progress');
    assert.equal((await call(`${url}/api/projects/${id}`)).body.last_run.status, 'error');
  });

  test('runs past the concurrency setting queue, and a queued run can be canceled', async (t) => {
    const slow = "import test from 'node:test';\ntest('waits', () => new Promise((r) => setTimeout(r, 1500)));\n";
    const root = makeTree(t, {
      'a/package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'a/test/a.test.mjs': slow,
      'b/package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'b/test/b.test.mjs': slow,
      'c/package.json': JSON.stringify({ scripts: { test: 'node --test' } }), 'c/test/c.test.mjs': slow,
    });
    const { url } = await serve(t);
    assert.equal((await call(`${url}/api/settings/run_concurrency`, 'PUT', { value: '1' })).status, 200);
    const [a, b, c] = [await project(url, join(root, 'a')), await project(url, join(root, 'b')), await project(url, join(root, 'c'))];
    const first = (await call(`${url}/api/projects/${a}/runs`, 'POST')).body;
    const second = (await call(`${url}/api/projects/${b}/runs`, 'POST')).body;
    const third = (await call(`${url}/api/projects/${c}/runs`, 'POST')).body;
    assert.deepEqual([first.status, second.status, third.status], ['running', 'queued', 'queued']);
    const canceled = await call(`${url}/api/runs/${third.id}`, 'DELETE');
    assert.deepEqual([canceled.status, canceled.body.status], [200, 'canceled']);
    const done = [await waitRun(url, first.id), await waitRun(url, second.id)];
    assert.deepEqual(done.map((r) => r.status), ['passed', 'passed']);
    // One at a time: the queued run started once the first had finished.
    assert.ok(done[1].started_at >= done[0].finished_at);
  });
});
