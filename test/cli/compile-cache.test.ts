import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { BIN, cleanEnv, makeTree } from '../helpers/index.ts';

// The bin keeps Node's compile cache in a directory of its user's only (see enableCompileCache in bin.ts).

const cacheName = `projdex-compile-cache-${process.getuid?.() ?? 'user'}`;
const run = (env: Record<string, string>): void => {
  const base = cleanEnv(env);
  delete base.NODE_COMPILE_CACHE;
  delete base.NODE_DISABLE_COMPILE_CACHE;
  execFileSync(process.execPath, [BIN, '--version'], { env: { ...base, ...env }, stdio: 'ignore' });
};

suite('compile cache', () => {
  test('made private in the temp dir and filled by a run', (t) => {
    const tmp = makeTree(t);
    run({ TMPDIR: tmp });
    const dir = join(tmp, cacheName);
    assert.equal(lstatSync(dir).mode & 0o777, 0o700);
    assert.ok(readdirSync(dir).length > 0, 'the run wrote its compiled modules');
  });

  test('a directory others can write to is not used', { skip: process.platform === 'win32' }, (t) => {
    const tmp = makeTree(t);
    const dir = join(tmp, cacheName);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    run({ TMPDIR: tmp });
    assert.deepEqual(readdirSync(dir), []);
  });

  test('NODE_DISABLE_COMPILE_CACHE turns it off', (t) => {
    const tmp = makeTree(t);
    run({ TMPDIR: tmp, NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.deepEqual(readdirSync(tmp), []);
  });
});
