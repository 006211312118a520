import assert from 'node:assert/strict';
import { after, before, suite, test } from 'node:test';
import { makeTree } from '../../helpers/index.ts';
import { stampPaths, stampShared } from '../../../src/scan/incremental/stamper.ts';
import { createHelper } from '../../../src/scan/walk/helper.ts';

// Never racy: every stamp is the file's own, so two takes of an unchanged tree are equal.
const CLOCK = { since: 0, racyMs: 0, granularityMs: 0 };

/** A tree of `n` directories (several of the chunks the threads claim), and their paths with a missing one. */
function directories(t: { after(fn: () => unknown): void }, n: number): { root: string; paths: string[] } {
  const files: Record<string, string> = {};
  for (let i = 0; i < n; i++) files[`d${Math.floor(i / 40)}/e${i}/f.txt`] = '';
  const root = makeTree(t, files) + '/';
  const paths = ['', ...Object.keys(files).map((file) => file.slice(0, file.lastIndexOf('/'))), 'gone'];
  return { root, paths };
}

suite('stampShared(): the quick check shared with the helper thread', () => {
  const helper = createHelper();
  before(async () => {
    helper.start();
    for (let i = 0; i < 500 && !helper.idle(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  after(() => helper.close());

  test('every path gets the stamp one thread alone gives it: with the helper, without one, one still loading',
    async (t) => {
    const { root, paths } = directories(t, 1300);
    const alone = stampPaths(root, paths, CLOCK, root);
    assert.ok(Number.isNaN(alone[alone.length - 1]), 'a missing path is a stamp that never matches');
    for (let round = 0; round < 3; round++) {
      let first = false;
      // This thread's own work takes a while here, so the helper (idle, loaded) claims chunks meanwhile;
      // however many it gets, the stamps must be the same.
      const shared = stampShared(root, paths.join('\0'), paths, CLOCK, root, helper, () => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
        first = true;
      })();
      assert.ok(first, 'this thread\'s own work runs');
      assert.deepEqual(new Float64Array(shared), alone);
      // Let the helper reply, so the next round finds it idle.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const none = stampShared(root, paths.join('\0'), paths, CLOCK, root, undefined, () => {})();
    assert.deepEqual(new Float64Array(none), alone);
    // Started by the request itself: this thread has stamped everything before the helper has loaded.
    const late = createHelper();
    t.after(() => late.close());
    const loading = stampShared(root, paths.join('\0'), paths, CLOCK, root, late, () => {})();
    assert.deepEqual(new Float64Array(loading), alone);
  });
});
