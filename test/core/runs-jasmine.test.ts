// Jasmine results as projdex's reporter module writes them (lines captured from a real run of Jasmine 5.13),
// plus lines without a file (jasmine-core before 5.7 gives none) and broken ones.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { suite, test } from 'node:test';
import { jasmine } from '../../src/core/runs/reporters/jasmine.ts';
import { makeTree } from '../helpers/index.ts';

const LINES = [
  '{"file":"/p/spec/skip.spec.js","name":"skip later","status":"skipped","ms":1,"message":null}',
  '{"file":"/p/spec/fail.spec.js","name":"fail fine","status":"passed","ms":1,"message":null}',
  '{"file":"/p/spec/fail.spec.js","name":"fail adds wrong","status":"failed","ms":1,"message":"Expected 2 to be 3."}',
  '{"file":"/p/spec/pass.spec.js","name":"pass adds","status":"passed","ms":1,"message":null}',
];

suite('runs: Jasmine results', () => {
  test('each spec on its file; specs without a file are a sentence, not a silence', async (t) => {
    const ctx = { cwd: '/p', reportDir: makeTree(t), known: [], words: ['jasmine'] };
    writeFileSync(`${ctx.reportDir}/jasmine.jsonl`, [...LINES, '{"cut', ''].join('\n'));
    assert.deepEqual((await jasmine.read!(ctx)).map((o) => [o.file, o.name, o.status, o.message ?? null]), [
      ['/p/spec/skip.spec.js', 'skip later', 'skipped', null], ['/p/spec/fail.spec.js', 'fail fine', 'passed', null],
      ['/p/spec/fail.spec.js', 'fail adds wrong', 'failed', 'Expected 2 to be 3.'], ['/p/spec/pass.spec.js', 'pass adds', 'passed', null]]);
    writeFileSync(`${ctx.reportDir}/jasmine.jsonl`, '{"file":null,"name":"a","status":"passed","ms":1,"message":null}\n');
    await assert.rejects(jasmine.read!(ctx), /gave no spec its file/);
    await assert.rejects(jasmine.read!({ ...ctx, reportDir: makeTree(t) }), /Jasmine reported no spec/);
    assert.deepEqual(jasmine.args({ ...ctx, files: ['/p/spec/a.spec.js'] }), [`--reporter=${ctx.reportDir}/pjx-jasmine-reporter.cjs`, '/p/spec/a.spec.js']);
    assert.match(jasmine.refuse!({ argv: [], last: ['jasmine', '--reporter=./r.js'] })!, /own --reporter/);
  });
});
