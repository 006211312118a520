import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { main, type CliIo } from '../../src/cli.ts';
import { makeTree } from '../helpers/index.ts';
import { NODE_PROJECT, processesMentioning } from '../helpers/runs.ts';

/** An io collecting what is written, whose SIGINT listener the test can fire. */
function io(): CliIo & { out: string; err: string; interrupt: () => void } {
  const listeners: Array<() => void> = [];
  const self = {
    out: '',
    err: '',
    stdout: { write: (text: string) => { self.out += text; } },
    stderr: { write: (text: string) => { self.err += text; } },
    once: (signal: string, listener: () => void) => { if (signal === 'SIGINT') listeners.push(listener); return self; },
    interrupt: () => { for (const l of listeners.splice(0)) l(); },
  };
  return self;
}

suite('projdex test, main() in process', () => {
  test('streams, sums up failed first, exits 1; --failed re-runs the failed file; ls shows the run', async (t) => {
    const root = makeTree(t, NODE_PROJECT);
    const data = ['--data-dir', join(root, '.data')];
    assert.equal(await main(['add', root, ...data], {}, io()), 0);
    const first = io();
    assert.equal(await main(['test', root, ...data], {}, first), 1);
    assert.match(first.err, /^run #1 of #1 /);
    assert.match(first.out, /✖ adds/);
    assert.match(first.out, /--- summary ---\n✗ FAIL  test\/fail\.test\.mjs .*\n {10}adds: .*\n✓ pass {2}test\/pass\.test\.mjs.*\n- skip  test\/skip\.test\.mjs.*\n3 files: 1 failed, 1 passed, 1 skipped -- run #1 failed, exit code 1\n$/);
    const again = io();
    assert.equal(await main(['test', '1', '--failed', '--json', ...data], {}, again), 1);
    assert.deepEqual(JSON.parse(again.out).files.map((f: any) => f.file_path), ['test/fail.test.mjs']);
    const one = io();
    assert.equal(await main(['test', '1', join(root, 'test/pass.test.mjs'), ...data], {}, one), 0);
    assert.match(one.out, /1 file: 0 failed, 1 passed, 0 skipped -- run #3 passed\n$/);
    const ls = io();
    assert.equal(await main(['ls', ...data], {}, ls), 0);
    assert.match(ls.out, /LAST RUN +GIT +PATH\n1 .* ✓ \d{4}-\d\d-\d\d \d\d:\d\d +\S+ +\//);
    const usage = io();
    assert.equal(await main(['test', '1', 'x.js', '--failed', ...data], {}, usage), 2);
    assert.match(usage.err, /Give files or --failed, not both/);
  });

  test('Ctrl-C cancels the run and exits 130, leaving no process', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'test/hang.test.mjs': "import test from 'node:test';\ntest('hangs', () => { console.log('started'); return new Promise(() => {}); });\n",
    }, 'projdex-sigint-');
    const data = ['--data-dir', join(root, '.data')];
    assert.equal(await main(['add', root, ...data], {}, io()), 0);
    const cli = io();
    const exit = main(['test', root, ...data], {}, cli);
    for (let i = 0; i < 600 && !cli.out.includes('started'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    cli.interrupt();
    assert.equal(await exit, 130);
    assert.match(cli.err, /canceling the run \.\.\.\nrun #1 canceled\n$/);
    assert.deepEqual(processesMentioning(root).filter((p) => p.pid !== process.pid), []);
  });
});
