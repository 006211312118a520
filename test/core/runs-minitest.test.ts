// minitest results as projdex's plugin writes them (lines captured from a real `rake test` with minitest
// 5.15 and rake 13: a pass, an assertion, an exception, a skip), plus broken lines.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import { minitest } from '../../src/core/runs/reporters/minitest.ts';
import { makeTree } from '../helpers/index.ts';

const LINES = [
  '{"file":"/p/test/fail_test.rb","name":"FailTest#test_fine","status":"passed","ms":0.020260999008314684,"message":null}',
  '{"file":"/p/test/fail_test.rb","name":"FailTest#test_wrong","status":"failed","ms":0.058166000599157996,'
    + '"message":"Minitest::Assertion: wrong sum.\\nExpected: 3\\n  Actual: 2"}',
  '{"file":"/p/test/fail_test.rb","name":"FailTest#test_raises","status":"failed","ms":0.06499899973277934,'
    + '"message":"Minitest::UnexpectedError: ArgumentError: boom\\n    /p/test/fail_test.rb:13:in `test_raises\'"}',
  '{"file":"/p/test/pass_test.rb","name":"PassTest#test_adds","status":"passed","ms":0.009837000106927007,"message":null}',
  '{"file":"/p/test/skip_test.rb","name":"SkipTest#test_later","status":"skipped","ms":0.03557499985618051,"message":null}',
];

suite('runs: minitest results', () => {
  test('each line on its source file; lines without a file or status, or cut, are skipped', async (t) => {
    const ctx = { cwd: '/p', reportDir: makeTree(t), known: [], words: ['rake', 'test'], env: { RUBYOPT: '-W0' } };
    writeFileSync(`${ctx.reportDir}/minitest.jsonl`, [...LINES, '{"file":null,"status":"passed"}', '{"file":"/p/x.rb","status":"odd"}', '{"cut'].join('\n'));
    const outcomes = await minitest.read!(ctx);
    assert.deepEqual(outcomes.map((o) => [o.file, o.name, o.status]), [
      ['/p/test/fail_test.rb', 'FailTest#test_fine', 'passed'], ['/p/test/fail_test.rb', 'FailTest#test_wrong', 'failed'],
      ['/p/test/fail_test.rb', 'FailTest#test_raises', 'failed'], ['/p/test/pass_test.rb', 'PassTest#test_adds', 'passed'],
      ['/p/test/skip_test.rb', 'SkipTest#test_later', 'skipped']]);
    assert.equal(outcomes[1]!.message, 'Minitest::Assertion: wrong sum.\nExpected: 3\n  Actual: 2');
    await assert.rejects(minitest.read!({ ...ctx, reportDir: makeTree(t) }), /minitest reported no result/);
    assert.deepEqual(minitest.env!(ctx), { PJX_MINITEST_REPORT: `${ctx.reportDir}/minitest.jsonl`, RUBYOPT: `-I${ctx.reportDir}/rubylib -W0` });
    assert.equal(minitest.commandIn!(makeTree(t, { 'Rakefile': '', 'Gemfile.lock': '' })), 'bundle exec rake test');
    assert.equal(minitest.commandIn!(makeTree(t, { 'bin/rails': '' })), 'bin/rails test');
  });

  test('single files: `bin/rails test` takes paths, `rake test` one file through TEST=, others run whole', () => {
    const files = ['/p/test/a_test.rb', '/p/test/b_test.rb'];
    const ctx = (words: string[], asked: string[]) => ({ cwd: '/p', reportDir: '/r', known: [], words, files: asked });
    assert.equal(minitest.wholeFor!(files, ['bin/rails', 'test']), undefined);
    assert.deepEqual(minitest.args(ctx(['bin/rails', 'test'], files)), ['test/a_test.rb', 'test/b_test.rb']);
    assert.equal(minitest.wholeFor!(files.slice(0, 1), ['bundle', 'exec', 'rake', 'test']), undefined);
    assert.deepEqual(minitest.args(ctx(['rake', 'test'], files.slice(0, 1))), ['TEST=test/a_test.rb']);
    assert.match(minitest.wholeFor!(files, ['rake', 'test'])!, /one file at a time/);
    assert.match(minitest.wholeFor!(files.slice(0, 1), ['rake'])!, /chooses its own files/);
    assert.deepEqual(minitest.args({ cwd: '/p', reportDir: '/r', known: [], words: ['rake', 'test'] }), []);
  });
});
