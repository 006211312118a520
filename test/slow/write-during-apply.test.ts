// Writes made on the HTTP thread while a big save's last transaction holds the database's write lock in
// its own thread: they wait for it asynchronously, so /health is answered meanwhile, and they land after
// it in the order they came. No timing is asserted: the order of answers against the lock says it all.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { suite, test } from 'node:test';
import { call, serve } from '../helpers/index.ts';

const COUNT = 100_000;
const tests = (cases: number) => Array.from({ length: COUNT }, (_, i) => ({
  file: `src/d${i % 100}/f${String(i).padStart(6, '0')}.test.ts`, framework: 'vitest' as const, cases,
}));

suite('writes during a big save', { timeout: 300_000 }, () => {
  test('writes sent while the save holds the write lock wait for it in order, without holding /health', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'projdex-apply-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const running = await serve(t, { db: join(dir, 'projdex.db') });
    const { id } = running.store.insertProject({ name: 'big', path: '/nowhere' })!;
    assert.equal(await running.store.saveScanSliced(id, { tests: tests(1), ports: [], framework: null }), true);

    // A third connection that never waits: BEGIN IMMEDIATE fails at once while anyone holds the write lock.
    const probe = new DatabaseSync(join(dir, 'projdex.db'));
    t.after(() => probe.close());
    probe.exec('PRAGMA busy_timeout = 0');
    const locked = (): boolean => {
      try {
        probe.exec('BEGIN IMMEDIATE');
        probe.exec('ROLLBACK');
        return false;
      } catch {
        return true;
      }
    };

    // Every row changes: the last transaction rewrites 100k rows in the apply thread.
    let saved = false;
    const saving = running.store.saveScanSliced(id, { tests: tests(2), ports: [], framework: null }).finally(() => { saved = true; });
    // This thread's own slices run synchronously between turns, so a lock seen from here is the apply thread's.
    while (!saved && !locked()) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(saved, false, 'the save ended before its last transaction was seen');

    const order: string[] = [];
    const note = (what: string) => (res: { status: number }) => { order.push(`${what}:${res.status}${locked() ? ':locked' : ''}`); return res; };
    const writes = [
      call(`${running.url}/api/settings/theme`, 'PUT', { value: 'dark' }).then(note('setting')),
      call(`${running.url}/api/projects/${id}`, 'PUT', { name: 'renamed' }).then(note('project')),
      call(`${running.url}/api/settings/gone`, 'DELETE').then(note('delete')),
    ];
    // Writes of this thread queued behind the save run after it, in the order they came, with the lock free.
    const ran: string[] = [];
    const queued = [1, 2, 3].map((n) => running.store.write(() => {
      ran.push(`${n}${locked() ? ':locked' : ''}`);
      running.store.putSetting('order', String(n));
    }));
    const started = performance.now();
    const health = await call(`${running.url}/health`).then(note('health'));
    t.diagnostic(`/health answered in ${(performance.now() - started).toFixed(1)} ms while the write lock was held`);
    assert.equal(health.status, 200);
    await Promise.all([...writes, ...queued, saving]);

    // /health came back while the lock was still held and before any write; every write landed.
    assert.equal(order[0], 'health:200:locked', order.join(' '));
    assert.deepEqual(order.slice(1).map((o) => o.replace(/:locked$/, '')).sort(), ['delete:404', 'project:200', 'setting:200']);
    assert.deepEqual(ran, ['1', '2', '3']);
    assert.equal((await call(`${running.url}/api/settings/theme`)).body.value, 'dark');
    assert.equal((await call(`${running.url}/api/settings/order`)).body.value, '3');
    assert.equal((await call(`${running.url}/api/projects/${id}`)).body.name, 'renamed');
    const list = running.store.listTests(id);
    assert.equal(list.length, COUNT);
    assert.ok(list.every((row) => row.cases === 2));
  });
});
