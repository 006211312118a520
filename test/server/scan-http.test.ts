import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';

// Scanning as a client sees it: shared concurrent scans, rescans that update rows, and an HTTP thread that
// stays free while a scan runs. Everything goes through the real server on port 0.

/** A jest project of `count` test files and one dev-server port, big enough that a scan spans many turns. */
function bigProject(count: number): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ scripts: { test: 'jest', dev: 'vite --port 5173' }, devDependencies: { jest: '30', vite: '7' } }),
  };
  for (let i = 0; i < count; i++) files[`packages/p${i % 40}/src/deep/f${i}.test.js`] = "test('a', () => {});\n";
  return files;
}

suite('scanning over HTTP', () => {
  test('concurrent POST /scan of one project share one walk: identical answers, one scan started', async (t) => {
    const root = makeTree(t, bigProject(4000));
    const running = await serve(t);
    const { url } = running;
    assert.equal((await call(`${url}/api/projects`, 'POST', { name: 'p', path: root })).status, 201);
    // Every scan that really runs publishes one `scan.started`, however many requests wait on it.
    const started: number[] = [];
    const off = running.events.subscribe((e) => { if (e.type === 'scan.started') started.push(e.data.id as number); });
    t.after(off);
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    assert.deepEqual(started, [1]);

    // Six requests at once, over six connections, while the first of them is still walking 4,000 files.
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(`${url}/api/projects/1/scan`, 'POST')));
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.equal(answer.body.testsFound, 4000);
      assert.deepEqual(answer.body, answers[0]!.body, 'every waiter gets the one scan\'s answer');
    }
    assert.deepEqual(started, [1, 1], `scans started for 6 concurrent requests: ${started.length - 1}`);

    // Once they are done, the next request scans again (sharing is only for scans in flight).
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    assert.deepEqual(started, [1, 1, 1]);
  });

  test('a rescan updates cases and framework of rows that already exist, keeping their ids', async (t) => {
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '30' } }),
      'src/a.test.js': "test('a', () => {});\ntest('b', () => {});\n",
      'src/b.test.js': "test('only', () => {});\n",
    });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    const before = (await call(`${url}/api/projects/1/tests`)).body;
    assert.deepEqual(before.map((x: any) => [x.file_path, x.framework, x.cases]), [['src/a.test.js', 'jest', 2], ['src/b.test.js', 'jest', 1]]);

    // The project moves from Jest to Vitest and a.test.js gains a case; b.test.js is untouched.
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { test: 'vitest' }, devDependencies: { vitest: '3' } }));
    writeFileSync(join(root, 'src', 'a.test.js'), "test('a', () => {});\ntest('b', () => {});\nit('c', () => {});\n");
    const rescan = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(rescan.status, 200);
    const after = (await call(`${url}/api/projects/1/tests`)).body;
    assert.deepEqual(after.map((x: any) => [x.file_path, x.framework, x.cases]), [['src/a.test.js', 'vitest', 3], ['src/b.test.js', 'vitest', 1]]);
    assert.deepEqual(after.map((x: any) => x.id), before.map((x: any) => x.id), 'rows are updated in place');
    assert.deepEqual(rescan.body.tests, after, 'the scan answer shows the updated rows too');
  });

  test('an unchanged rescan answers the stored list exactly, with the project as it now is', async (t) => {
    const root = makeTree(t, bigProject(30));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    const stored = await fetch(`${url}/api/projects/1/tests`).then((r) => r.text());
    assert.equal((await call(`${url}/api/projects/1`, 'PUT', { name: 'renamed', tags: ['x'] })).status, 200);
    const rescan = await fetch(`${url}/api/projects/1/scan`, { method: 'POST' }).then((r) => r.text());
    const answer = JSON.parse(rescan);
    assert.equal(answer.testsFound, 30);
    assert.deepEqual([answer.project.name, answer.project.tags], ['renamed', ['x']]);
    assert.ok(rescan.includes(`"tests":${stored},"ports":`), 'the answer holds the stored list byte for byte');
    assert.equal(await fetch(`${url}/api/projects/1/tests`).then((r) => r.text()), stored);
    const [listed] = (await call(`${url}/api/projects`)).body;
    assert.deepEqual(listed, answer.project, 'the project list shows what the rescan answered');
  });

  test('a first big scan into a database file answers exactly the list GET /tests then gives', async (t) => {
    const root = makeTree(t, bigProject(1500));
    const { url } = await serve(t, { db: join(makeTree(t), 'projdex.db') });
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    const answer = await fetch(`${url}/api/projects/1/scan`, { method: 'POST' }).then((r) => r.text());
    const stored = await fetch(`${url}/api/projects/1/tests`).then((r) => r.text());
    assert.equal(JSON.parse(stored).length, 1500);
    assert.ok(answer.includes(`"tests":${stored},"ports":`), 'the answer holds the stored list byte for byte');
  });

  test('/health answers again and again while a scan of a large tree is still in flight', async (t) => {
    const root = makeTree(t, bigProject(20_000));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    // The scan is held open by its size: 20,000 files take the scanner well over a second on this
    // machine, while 20 /health round trips take a few milliseconds. `settled` proves the overlap; no
    // time is compared.
    let settled = false;
    const scanning = call(`${url}/api/projects/1/scan`, 'POST').finally(() => { settled = true; });
    for (let i = 0; i < 20; i++) {
      const health = await call(`${url}/health`);
      assert.equal(health.status, 200);
      assert.equal(health.body.status, 'ok');
    }
    assert.equal(settled, false, 'all 20 /health answers came while the scan was still running');
    const scanned = await scanning;
    assert.equal(scanned.status, 200);
    assert.equal(scanned.body.testsFound, 20_000);
  });

  test('a big list is streamed to a slow reader without piling up listeners on the response', async (t) => {
    const root = makeTree(t, bigProject(20_000));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    const warnings: string[] = [];
    const onWarning = (w: Error): void => { warnings.push(`${w.name}: ${w.message}`); };
    process.on('warning', onWarning);
    t.after(() => process.off('warning', onWarning));
    // Read the 20k-row list slowly, so the server waits for `drain` many times on one response.
    const res = await fetch(`${url}/api/projects/1/tests`);
    const reader = res.body!.getReader();
    let bytes = 0;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.length;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    assert.equal(JSON.parse(await (await fetch(`${url}/api/projects/1/tests`)).text()).length, 20_000);
    assert.ok(bytes > 1_000_000, `${bytes} bytes`);
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    assert.deepEqual(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')), []);
  });

  test('a scan never blocks the HTTP thread for long (event-loop delay over the whole scan)', async (t) => {
    const root = makeTree(t, bigProject(2000));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'p', path: root });
    await call(`${url}/api/projects/1/scan`, 'POST'); // starts the scanning thread or process
    // The server runs in this process: a synchronous stall of its main thread during a scan (a sync
    // walk, a busy wait, a blocking read) shows as event-loop delay here. Normal is tens of ms; the
    // bound is a generous deadline for "never frozen", not a speed figure.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    for (let i = 0; i < 3; i++) assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    delay.disable();
    const maxMs = delay.max / 1e6;
    assert.ok(maxMs < 1000, `the HTTP thread was blocked for ${Math.round(maxMs)} ms during a scan`);
  });
});
