import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createEvents } from '../../src/core/events.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { startWatching } from '../../src/core/watch.ts';
import { watchController } from '../../src/core/watch-setting.ts';

/** A real store on a temp file, closed under the timers: every later query throws. */
function brokenStore(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'projdex-watch-setting-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return openStore(join(dir, 'projdex.db'));
}

/** Resolves once `log` holds an entry naming `what`, or rejects after a 10x margin over the tick. */
function logged(log: unknown[][], what: string, ms = 5_000): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const hit = log.find((entry) => String(entry[0]).includes(what));
      if (hit) { clearInterval(poll); resolve(hit); } else if (Date.now() - started > ms) {
        clearInterval(poll); reject(new Error(`nothing logged about ${what}`));
      }
    }, 5);
  });
}

suite('timers survive a failing database', () => {
  test('the `watch` setting poll logs a store error and keeps polling', async (t) => {
    const store = brokenStore(t);
    const events = createEvents();
    const scanner = createScanner(store, {}, {}, { events });
    const log: unknown[][] = [];
    const controller = watchController({ store, scanner, events, syncMs: 10, logger: { error: (...a) => log.push(a) } });
    t.after(() => controller.close());
    store.close();
    const [what, error] = await logged(log, 'watch setting');
    assert.match(String(what), /watch setting failed/);
    assert.ok(error instanceof Error);
    // A settings event reaches the same check through the event hub: logged again, not thrown at the publisher.
    const before = log.length;
    events.emit('settings.changed', { key: 'watch', value: 'on' });
    assert.ok(log.length > before, 'the event-driven check was logged too');
    await scanner.close();
  });

  test("watch mode's project sync logs a store error and keeps running", async (t) => {
    const store = brokenStore(t);
    const events = createEvents();
    const scanner = createScanner(store, {}, {}, { events });
    const log: unknown[][] = [];
    const watching = startWatching({ store, scanner, events, syncMs: 10, logger: { error: (...a) => log.push(a) } });
    t.after(() => watching.close());
    store.close();
    await logged(log, 'watch: project sync');
    assert.deepEqual(watching.status(), { watched: 0, polled: 0, watchers: 0 });
  });
});
