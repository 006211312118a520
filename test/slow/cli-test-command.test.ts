// Spawn-heavy (a bin, a private server and a test runner per command): in the slow suite.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { basename } from 'node:path';
import { suite, test } from 'node:test';
import { makeTree } from '../helpers/index.ts';
import { BIN, DEADLINE_MS, eventually, run, waitFor } from '../helpers/cli.ts';
import { NODE_PROJECT, processesMentioning } from '../helpers/runs.ts';

const env = (dataDir: string): Record<string, string | undefined> => ({ PROJDEX_HOME: dataDir, PROJDEX_TOKEN: undefined, NODE_TEST_CONTEXT: undefined });

suite('projdex test', () => {
  test('streams the output, sums up per file (failed first), exits 1 on a failure and 0 when all passed; ls shows the last run', async (t) => {
    const root = makeTree(t, NODE_PROJECT);
    const data = makeTree(t);
    assert.equal((await run(['add', root], env(data))).code, 0);
    assert.match((await run(['ls'], env(data))).stdout, /LAST RUN +GIT +PATH\n1 .* never +\S+ +\//);
    const all = await run(['test', root], env(data));
    assert.equal(all.code, 1, all.stderr);
    assert.match(all.stdout, /^\$ node --test --test-reporter=spec/m);
    assert.match(all.stdout, /✖ adds/);
    const summary = all.stdout.slice(all.stdout.indexOf('--- summary ---'));
    assert.match(summary, /^--- summary ---\n✗ FAIL  test\/fail\.test\.mjs .*\n {10}adds: .*3.*\n✓ pass  test\/pass\.test\.mjs.*\n- skip  test\/skip\.test\.mjs/);
    assert.match(summary, /3 files: 1 failed, 1 passed, 1 skipped -- run #1 failed, exit code 1\n$/);
    assert.match((await run(['ls'], env(data))).stdout, /\n1 .* ✗ \d{4}-\d\d-\d\d \d\d:\d\d +\S+ +\//);

    // A file of the project, named from inside it: the project is the one holding it.
    const one = await run(['test', 'test/pass.test.mjs'], env(data), { cwd: root });
    assert.equal(one.code, 0, one.stderr);
    assert.match(one.stdout, /1 file: 0 failed, 1 passed, 0 skipped -- run #2 passed\n$/);
    assert.match((await run(['ls'], env(data))).stdout, /\n1 .* ✓ \d{4}-/);
    const failed = await run(['test', basename(root), '--failed', '--json'], env(data));
    assert.equal(failed.code, 1);
    const record = JSON.parse(failed.stdout);
    assert.deepEqual(record.files.map((f: any) => f.file_path), ['test/fail.test.mjs']);
    const usage = await run(['test', '1', 'test/a.mjs', '--failed'], env(data));
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /Give files or --failed, not both/);
    const unknown = await run(['test', 'nope-name'], env(data));
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /nope-name is neither a project id, a directory nor a project's name/);
  });

  test('Ctrl-C cancels the run, leaves no process, and exits 130', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/hang.test.mjs': "import test from 'node:test';\ntest('hangs', () => { console.log('started'); return new Promise(() => {}); });\n",
    }, 'projdex-sigint-');
    const data = makeTree(t);
    assert.equal((await run(['add', root], env(data))).code, 0);
    const child = spawn(process.execPath, [BIN, 'test', root], { env: { ...process.env, ...env(data) }, stdio: ['ignore', 'pipe', 'pipe'], timeout: DEADLINE_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    await waitFor(() => stdout, /started/);
    await eventually(() => processesMentioning(root).length > 0, 'the test file runs');
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /run #1 canceled/);
    assert.deepEqual(processesMentioning(root), []);
    const ls = JSON.parse((await run(['ls', '--json'], env(data))).stdout);
    assert.equal(ls[0].last_run.status, 'canceled');
  });
});
