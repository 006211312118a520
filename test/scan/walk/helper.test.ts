// The helper thread's life: a thread that dies answers what it had with `undefined`; one that carries the
// scan process's watchdog (`watch`) is started again at once, so the pool keeps hearing how far a scan got.
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { createHelper, type Helper } from '../../../src/scan/walk/helper.ts';

/** Waits until `ready()` holds (a thread loading on a busy machine: up to 20 s). */
async function until(ready: () => boolean): Promise<boolean> {
  for (let i = 0; i < 2000 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return ready();
}

/** A request the thread fails on (a stamp request without its counter): the thread dies of it. */
const killing = (helper: Helper): Promise<unknown> => helper.ask({ kind: 'stamp' });

suite('createHelper(): a helper thread that dies', () => {
  test('answers with undefined; carrying no watchdog, it is started again only when asked', async (t) => {
    const helper = createHelper();
    t.after(() => helper.close());
    helper.start();
    assert.ok(await until(helper.idle), 'the thread loads');
    assert.equal(await killing(helper), undefined);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(helper.idle(), false, 'no thread runs after the death');
    helper.start();
    assert.ok(await until(helper.idle), 'a new thread on the next start');
  });

  test('carrying the watchdog, is started again at once, and not after close()', async (t) => {
    const helper = createHelper();
    t.after(() => helper.close());
    // A status cell no scan has begun in (id 0): the watchdog writes nothing.
    assert.equal(helper.watch(new SharedArrayBuffer(1044)), true);
    assert.ok(await until(helper.idle), 'the thread loads');
    assert.equal(await killing(helper), undefined);
    assert.ok(await until(helper.idle), 'a new thread without being asked');
    await helper.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(helper.idle(), false, 'none after close()');
  });
});
