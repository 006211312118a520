import assert from 'node:assert/strict';
import { once } from 'node:events';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { suite, test } from 'node:test';
import { walk } from '../../src/scan/walk/walk.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { openStore } from '../../src/core/store/store.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { ofType, openStream } from '../helpers/sse.ts';

/** Polls `check` until it is true or the deadline passes. */
async function until(check: () => boolean, what: string, deadlineMs = 5_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

suite('GET /api/events', () => {
  test('streams project and settings changes in order, with increasing ids', async (t) => {
    const server = await serve(t);
    const dir = makeTree(t, { 'a.txt': 'x' });
    const stream = await openStream(`${server.url}/api/events`);
    t.after(() => stream.close());
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
    assert.equal(stream.headers['cache-control'], 'no-store');
    const ready = await stream.next((e) => e.event === 'ready', 'ready');
    assert.equal(ready.id, '0');
    const { lastId, instance } = JSON.parse(ready.data!);
    assert.equal(lastId, 0);
    assert.equal(instance, server.events.instance);
    const other = await serve(t);
    assert.notEqual(other.events.instance, instance, 'each server life has its own instance');

    const created = await call(`${server.url}/api/projects`, 'POST', { name: 'a', path: dir });
    await call(`${server.url}/api/projects/${created.body.id}`, 'PUT', { tags: ['x'] });
    await call(`${server.url}/api/settings/theme`, 'PUT', { value: 'dark' });
    await call(`${server.url}/api/projects/${created.body.id}`, 'DELETE');
    await stream.next((e) => e.event === 'project.deleted', 'project.deleted');

    const seen = stream.received.filter((e) => e.event && e.event !== 'ready');
    assert.deepEqual(seen.map((e) => e.event), ['project.created', 'project.updated', 'settings.changed', 'project.deleted']);
    assert.deepEqual(seen.map((e) => Number(e.id)), [1, 2, 3, 4]);
    assert.deepEqual(JSON.parse(seen[0]!.data!).project, created.body);
    assert.deepEqual(JSON.parse(seen[1]!.data!).project.tags, ['x']);
    assert.deepEqual(JSON.parse(seen[2]!.data!), { key: 'theme', value: 'dark' });
    assert.deepEqual(JSON.parse(seen[3]!.data!), { id: created.body.id });
  });

  test('a failed request publishes nothing', async (t) => {
    const server = await serve(t);
    await call(`${server.url}/api/projects`, 'POST', { name: 'a', path: '/does/not/exist' });
    await call(`${server.url}/api/projects/9`, 'PUT', { name: 'b' });
    await call(`${server.url}/api/projects/9`, 'DELETE');
    await call(`${server.url}/api/settings/k`, 'PUT', {});
    assert.equal(server.events.lastId, 0);
  });

  test('a scan publishes started, progress (files walked, tests found) and finished; a missing directory fails', async (t) => {
    const server = await serve(t);
    const dir = makeTree(t, {
      'package.json': '{"scripts":{"test":"vitest"},"devDependencies":{"vitest":"1"}}',
      'src/a.test.ts': "test('a', () => {})", 'src/b.test.ts': '', 'src/c.ts': '',
    });
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'a', path: dir });
    const stream = await openStream(`${server.url}/api/events`);
    t.after(() => stream.close());
    await stream.next((e) => e.event === 'ready', 'ready');
    const scanned = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(scanned.body.testsFound, 2);
    await stream.next((e) => e.event === 'scan.finished', 'scan.finished');

    const types = stream.received.filter((e) => e.event?.startsWith('scan.')).map((e) => e.event);
    assert.equal(types[0], 'scan.started');
    assert.equal(types.at(-1), 'scan.finished');
    assert.ok(types.slice(1, -1).every((type) => type === 'scan.progress') && types.length >= 3, String(types));
    const progress = ofType(stream.received, 'scan.progress');
    assert.deepEqual(progress.at(-1)!.data, { id: project.id, files: 4, tests: 2 });
    const finished = ofType(stream.received, 'scan.finished')[0]!.data;
    assert.equal(finished.testsFound, 2);
    assert.equal(finished.project.id, project.id);

    rmSync(dir, { recursive: true });
    assert.equal((await call(`${server.url}/api/projects/${project.id}/scan`, 'POST')).status, 409);
    const failed = ofType([await stream.next((e) => e.event === 'scan.failed', 'scan.failed')], 'scan.failed')[0]!.data;
    assert.equal(failed.id, project.id);
    assert.match(failed.error, /no longer exists/);
  });

  test('Last-Event-ID replays the missed events, then goes live', async (t) => {
    const server = await serve(t);
    for (const key of ['a', 'b', 'c', 'd']) await call(`${server.url}/api/settings/${key}`, 'PUT', { value: key });
    const stream = await openStream(`${server.url}/api/events`, { 'last-event-id': '2' });
    t.after(() => stream.close());
    await stream.next((e) => e.event === 'ready', 'ready');
    await call(`${server.url}/api/settings/e`, 'PUT', { value: 'e' });
    await stream.next((e) => e.id === '5', 'event 5');
    const ids = stream.received.filter((e) => e.event === 'settings.changed').map((e) => Number(e.id));
    assert.deepEqual(ids, [3, 4, 5]);
    assert.equal(stream.received.find((e) => e.event === 'ready')!.id, '4');

    // The same through the query, for clients that cannot set the header.
    const byQuery = await openStream(`${server.url}/api/events?lastEventId=3`);
    t.after(() => byQuery.close());
    await byQuery.next((e) => e.event === 'ready', 'ready');
    assert.deepEqual(byQuery.received.filter((e) => e.event === 'settings.changed').map((e) => e.id), ['4', '5']);
  });

  test('an id that cannot be resumed gets one reset event', async (t) => {
    const server = await serve(t);
    for (let i = 0; i < 1005; i++) server.events.emit('settings.changed', { key: String(i), value: '' });
    for (const lastId of ['1', '99999', 'abc', '-1']) {
      const stream = await openStream(`${server.url}/api/events`, { 'last-event-id': lastId });
      await stream.next((e) => e.event === 'ready', 'ready');
      stream.close();
      assert.deepEqual(stream.received.filter((e) => e.event).map((e) => e.event), ['reset', 'ready'], lastId);
      assert.equal(JSON.parse(stream.received.find((e) => e.event === 'reset')!.data!).lastId, 1005);
    }
    // One still kept: replay, no reset.
    const stream = await openStream(`${server.url}/api/events`, { 'last-event-id': '1003' });
    await stream.next((e) => e.event === 'ready', 'ready');
    stream.close();
    assert.deepEqual(stream.received.filter((e) => e.event).map((e) => e.id), ['1004', '1005', '1005']);
  });

  test('sends heartbeats', async (t) => {
    const server = await serve(t, { sse: { heartbeatMs: 30 } });
    const stream = await openStream(`${server.url}/api/events`);
    t.after(() => stream.close());
    await stream.next((e) => e.comment === 'heartbeat', 'heartbeat');
    await until(() => stream.received.filter((e) => e.comment === 'heartbeat').length >= 2, 'a second heartbeat');
  });

  test('caps the listeners: one too many gets 503, a freed slot is reused', async (t) => {
    const server = await serve(t, { sse: { maxClients: 2 } });
    const internal = server.events.listenerCount; // the server's own (watch mode follows the `watch` setting)
    const a = await openStream(`${server.url}/api/events`);
    const b = await openStream(`${server.url}/api/events`);
    t.after(() => { a.close(); b.close(); });
    const c = await openStream(`${server.url}/api/events`);
    await c.ended;
    assert.equal(c.status, 503);
    assert.equal(c.headers['retry-after'], '5');
    assert.deepEqual(JSON.parse(c.body()), { error: 'Too many event streams open (limit 2)' });
    a.close();
    await until(() => server.events.listenerCount === internal + 1, 'the freed slot');
    const d = await openStream(`${server.url}/api/events`);
    t.after(() => d.close());
    assert.equal(d.status, 200);
  });

  test('leaves no listener behind after clients disconnect, and shutdown ends open streams', async (t) => {
    const server = await serve(t, { sse: { heartbeatMs: 20 } });
    const internal = server.events.listenerCount; // the server's own (watch mode follows the `watch` setting)
    const streams = await Promise.all(Array.from({ length: 10 }, () => openStream(`${server.url}/api/events`)));
    await Promise.all(streams.map((s) => s.next((e) => e.event === 'ready', 'ready')));
    assert.equal(server.events.listenerCount, internal + 10);
    for (const s of streams) s.close();
    await until(() => server.events.listenerCount === internal, 'listeners to go');
    // Events after the disconnects reach no one and do not fail.
    await call(`${server.url}/api/settings/x`, 'PUT', { value: '1' });

    const open = await openStream(`${server.url}/api/events`);
    await open.next((e) => e.event === 'ready', 'ready');
    await server.close();
    await open.ended;
    assert.equal(server.events.listenerCount, 0);
  });

  test('a client that stops reading is cut instead of buffered without bound', async (t) => {
    const server = await serve(t, { sse: { maxBuffered: 64 * 1024 } });
    const internal = server.events.listenerCount; // the server's own (watch mode follows the `watch` setting)
    const socket = connect(server.port, '127.0.0.1');
    t.after(() => socket.destroy());
    await once(socket, 'connect');
    socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
    socket.pause(); // Never reads: the kernel buffers fill, then the server's.
    await until(() => server.events.listenerCount === internal + 1, 'the stream to open');
    const big = 'x'.repeat(100 * 1024);
    for (let i = 0; i < 400 && server.events.listenerCount > internal; i++) {
      server.events.emit('settings.changed', { key: 'big', value: big });
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(server.events.listenerCount, internal, 'the stalled stream was not cut');
  });

  test('needs the token in token mode, as a header', async (t) => {
    const server = await serve(t, { token: 'secret-token' });
    const refused = await openStream(`${server.url}/api/events`);
    await refused.ended;
    assert.equal(refused.status, 401);
    const stream = await openStream(`${server.url}/api/events`, { authorization: 'Bearer secret-token' });
    t.after(() => stream.close());
    assert.equal(stream.status, 200);
    await stream.next((e) => e.event === 'ready', 'ready');
  });

  test('HEAD answers the headers and ends', async (t) => {
    const server = await serve(t);
    const internal = server.events.listenerCount; // the server's own (watch mode follows the `watch` setting)
    const res = await fetch(`${server.url}/api/events`, { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /event-stream/);
    assert.equal(server.events.listenerCount, internal);
  });
});

suite('scan progress', () => {
  test('the walk reports files seen as it goes, then its total', async (t) => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let f = 0; f < 10; f++) files[`d${d}/f${f}.txt`] = '';
    const root = makeTree(t, files);
    const seen: number[] = [];
    const tree = await walk(root, { onProgress: (n) => seen.push(n), concurrency: 2 });
    assert.ok(seen.length > 2, `only ${seen.length} reports`);
    assert.deepEqual([...seen].sort((a, b) => a - b), seen, 'counts only grow');
    assert.equal(seen.at(-1), tree.files.length);
    assert.equal(tree.files.length, 200);
  });

  test('scanProject(project, { onProgress }) reports files walked, then the tests found; a joining caller gets the rest', async (t) => {
    const store = openStore(':memory:');
    const scanner = createScanner(store);
    t.after(async () => { await scanner.close(); store.close(); });
    const dir = makeTree(t, { 'package.json': '{"scripts":{"test":"vitest"}}', 'a.test.ts': '', 'b.test.ts': '', 'c.txt': '' });
    const project = store.insertProject({ name: 'a', path: dir })!;
    const first: Array<{ files: number; tests: number }> = [];
    const second: Array<{ files: number; tests: number }> = [];
    const [a, b] = await Promise.all([
      scanner.scanProject(project, { onProgress: (p) => first.push(p) }),
      scanner.scanProject(project, { onProgress: (p) => second.push(p) }),
    ]);
    assert.equal(a, b, 'one shared scan');
    assert.deepEqual(first.at(-1), { files: 4, tests: 2 });
    assert.deepEqual(second.at(-1), { files: 4, tests: 2 });
    assert.ok(first.slice(0, -1).every((p) => p.tests <= 2 && p.files <= 4), JSON.stringify(first));
    // Kept for the project page.
    assert.deepEqual(store.getScanSummary(project.id).notes, a.notes);
  });
});
