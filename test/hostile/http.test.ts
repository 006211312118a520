import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { limitConnections } from '../../src/server/connections.ts';
import type { ProjdexEvent } from '../../src/core/events.ts';
import { startServer } from '../../src/server/server.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

/** Sends raw bytes on one connection and collects what comes back until `until` matches (5 s deadline). */
async function raw(port: number, bytes: string, until: RegExp): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.setEncoding('utf8').on('data', (d: string) => { text += d; });
  await once(socket, 'connect');
  socket.write(bytes);
  const deadline = Date.now() + 5_000;
  while (!until.test(text) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
  return text;
}

suite('the HTTP side under hostile input', { timeout: 60_000 }, () => {
  test('a setting value with a lone surrogate is refused like any other malformed string', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/settings/theme`, 'PUT', '{"value":"a\\ud800b"}');
    assert.deepEqual([res.status, res.body], [400, { error: 'value must be well-formed Unicode' }]);
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
  });

  test('pipelined requests are answered in order, and a GET after a PUT on one connection sees the PUT', async (t) => {
    const { port } = await serve(t);
    const body = '{"value":"dark"}';
    const put = `PUT /api/settings/theme HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const get = 'GET /api/settings HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const text = await raw(port, put + get, /\{"theme":"dark"\}|\r\n\r\n\{\}/);
    const bodies = text.split(/HTTP\/1\.1 /).filter(Boolean).map((r) => r.slice(r.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(bodies, ['{"key":"theme","value":"dark"}', '{"theme":"dark"}']);
  });

  test('a full database answers 507 with SQLite\'s own reason, keeps the stored rows, and the server goes on', async (t) => {
    const files: Record<string, string> = { 'package.json': '{"devDependencies":{"vitest":"3"}}' };
    for (let i = 0; i < 3000; i++) files[`src/deep/file-with-a-long-name-${i}.test.ts`] = '';
    const big = makeTree(t, files);
    const small = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', 'a.test.ts': '' });
    const { url } = await serve(t, { maxDbBytes: 96 * 1024 });
    await call(`${url}/api/projects`, 'POST', { name: 'small', path: small });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).status, 200);
    await call(`${url}/api/projects`, 'POST', { name: 'big', path: big });
    const res = await call(`${url}/api/projects/2/scan`, 'POST');
    assert.deepEqual([res.status, res.body], [507, { error: 'Database error: database or disk is full; free some disk space and retry' }]);
    assert.deepEqual((await call(`${url}/api/projects/1/tests`)).body.map((x: { file_path: string }) => x.file_path), ['a.test.ts']);
    assert.deepEqual((await call(`${url}/api/projects/2/tests`)).body, []);
    assert.equal((await call(`${url}/health`)).status, 200);
  });

  test('a damaged database is named at start-up with what to do', async (t) => {
    const dataDir = makeTree(t);
    writeFileSync(join(dataDir, 'projdex.db'), 'not sqlite at all '.repeat(300));
    await assert.rejects(startServer({ port: 0, dataDir }), (error: Error) => {
      assert.equal(error.message, `The database ${join(dataDir, 'projdex.db')} is damaged (file is not a database). Stop projdex, `
        + 'move that file and its -wal and -shm files aside (or restore a backup), and start again: a new empty database is created.');
      return true;
    });
  });

  test('256 silent connections do not lock clients out: a new one takes the place of the oldest silent one', async (t) => {
    const { port, url } = await serve(t);
    const held: Socket[] = [];
    t.after(() => { for (const s of held) s.destroy(); });
    for (let i = 0; i < 256; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => {});
      held.push(s);
      await once(s, 'connect');
    }
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    if (!held[0]!.closed) await once(held[0]!, 'close');
    assert.equal(held.at(-1)!.closed, false, 'only the oldest silent ones make room');
  });

  test('when every connection has a request in flight, one over the cap is closed at once', async (t) => {
    const { port, url } = await serve(t, { maxConnections: 3 });
    const streams = await Promise.all([0, 1, 2].map(() => new Promise<Socket>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.setEncoding('utf8').once('data', () => resolve(s));
      s.write('GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    })));
    t.after(() => { for (const s of streams) s.destroy(); });
    await assert.rejects(fetch(`${url}/health`, { signal: AbortSignal.timeout(10_000) }));
    assert.ok(streams.every((s) => !s.closed), 'the streams in flight are kept');
  });

  test('a connection that begins no request in time is closed; one that did is kept', async (t) => {
    const server = createHttpServer((_req, res) => res.end('ok'));
    limitConnections(server, { max: 8, firstRequestMs: 200 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.after(() => { server.closeAllConnections(); server.close(); });
    const { port } = server.address() as AddressInfo;
    const silent = connect(port, '127.0.0.1');
    const active = connect(port, '127.0.0.1');
    t.after(() => { silent.destroy(); active.destroy(); });
    active.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(silent, 'close');
    assert.equal(active.closed, false);
  });
});

suite('big lists are built while they are sent', { timeout: 120_000 }, () => {
  test('GET /tests of a 12k-test project and a scan answer over 10k tests come in pieces, equal to the whole', async (t) => {
    const files: Record<string, string> = { 'package.json': '{"devDependencies":{"vitest":"3"}}' };
    for (let i = 0; i < 10_050; i++) files[`src/d${i % 50}/f${i}.test.ts`] = '';
    const root = makeTree(t, files);
    const running = await serve(t);
    await call(`${running.url}/api/projects`, 'POST', { name: 'big', path: root });
    const res = await fetch(`${running.url}/api/projects/1/scan`, { method: 'POST' });
    assert.equal(res.headers.get('content-length'), null);
    const scanned = await res.json() as { testsFound: number; tests: Array<{ file_path: string }>; ports: unknown[]; truncated: unknown };
    assert.equal(scanned.testsFound, 10_050);
    assert.equal(scanned.tests.length, 10_050);
    assert.deepEqual(scanned.ports, []);
    assert.equal(scanned.truncated, null);

    const { id } = running.store.insertProject({ name: 'synthetic', path: '/nowhere' })!;
    const tests = Array.from({ length: 12_345 }, (_, i) => ({ file: `p/${String(i).padStart(6, '0')}"\u00e9.test.js`, framework: 'jest' as const, cases: i % 4 }));
    await running.store.saveScanSliced(id, { tests, ports: [], framework: null });
    const list = await fetch(`${running.url}/api/projects/${id}/tests`);
    assert.equal(list.headers.get('transfer-encoding'), 'chunked');
    assert.deepEqual(await list.json(), JSON.parse(String(running.store.testsJson(id))));
  });
});

suite('the live-event buffer has a byte budget', () => {
  test('a long setting value is announced by its size, and big events leave the replay buffer sooner', async (t) => {
    const running = await serve(t);
    const value = 'v'.repeat(900 * 1024);
    assert.equal((await call(`${running.url}/api/settings/big`, 'PUT', { value })).status, 200);
    const [event] = running.events.since(running.events.lastId - 1)!;
    assert.deepEqual(event!.data, { key: 'big', size: value.length });
    // Emitted directly: the hub itself keeps at most 4 MiB of event data for replay, whatever the count.
    for (let i = 0; i < 100; i++) running.events.emit('scan.failed', { id: i, error: 'e'.repeat(256 * 1024) });
    let kept: ProjdexEvent[] | undefined;
    for (let from = 0; !(kept = running.events.since(from)); from++); // the oldest id still kept
    assert.ok(kept.length < 100, 'old big events were dropped');
    const bytes = kept.reduce((sum, e) => sum + JSON.stringify(e.data).length, 0);
    assert.ok(bytes <= 4 * 1024 * 1024, `${bytes} bytes kept`);
    assert.equal(kept.at(-1)!.id, running.events.lastId);
  });
});
