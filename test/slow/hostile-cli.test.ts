/**
 * The CLI against a hostile or careless setting: a stale server.json whose pid was reused (here: the
 * test's own pid, certainly alive) and whose port another program answers; a token that could never be
 * sent; a token kept out of `ps`.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, runBin, spawnBin } from '../helpers/index.ts';

test('the CLI checks the answering server holds server.json\'s instance before it sends the token', { timeout: 60_000 }, async (t) => {
  const seen: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];
  // An impostor that answers like projdex: `/health` says ok, everything else an empty list.
  const impostor = createServer((req, res) => {
    seen.push({ url: req.url, headers: req.headers });
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/health' ? JSON.stringify({ status: 'ok', timestamp: new Date().toISOString(), proof: 'x' }) : '[]');
  });
  impostor.listen(0, '127.0.0.1');
  await once(impostor, 'listening');
  t.after(() => impostor.close());
  const { port } = impostor.address() as AddressInfo;
  const dataDir = join(makeTree(t), 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  writeFileSync(join(dataDir, 'server.json'), JSON.stringify({
    url: `http://127.0.0.1:${port}`, port, pid: process.pid, instance: 'a-secret-instance', token: 'the-real-token',
  }), { mode: 0o600 });

  const ls = await runBin(t, ['ls', '--json', '--data-dir', dataDir]);
  assert.equal(ls.code, 0, ls.stderr);
  const stop = await runBin(t, ['stop', '--data-dir', dataDir]);
  assert.equal(stop.code, 0, stop.stderr);
  assert.match(stop.stdout, /not running/);
  // The impostor was asked for proof and nothing else; no request carried the token.
  assert.ok(seen.length > 0, 'server.json was read');
  assert.deepEqual(seen.map((r) => r.url), seen.map(() => '/health'));
  assert.ok(seen.every((r) => r.headers.authorization === undefined));
});

test('a token that no client could send is refused at start, in one line; --token-file keeps it out of ps', { timeout: 60_000 }, async (t) => {
  const dataDir = join(makeTree(t), 'data');
  const spaced = await runBin(t, ['serve', '--port', '0', '--token', 'two words', '--data-dir', dataDir]);
  assert.equal(spaced.code, 1);
  assert.match(spaced.stderr, /^ERROR: The `token` option must be 1 to 512 characters/);
  assert.doesNotMatch(spaced.stderr, /\n\s+at /, 'no stack trace');

  const file = join(makeTree(t, { token: 'from-a-file-0123456789\n' }), 'token');
  const server = spawnBin(t, ['serve', '--port', '0', '--token-file', file, '--data-dir', dataDir]);
  const [url] = await server.waitFor(/http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(server.child.spawnargs.join(' '), /from-a-file/);
  assert.equal((await call(`${url}/api/projects`)).status, 401);
  assert.equal((await call(`${url}/api/projects`, 'GET', undefined, { authorization: 'Bearer from-a-file-0123456789' })).status, 200);
  const missing = await runBin(t, ['ls', '--token-file', join(dataDir, 'nope'), '--data-dir', dataDir]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^ERROR: Cannot read the token file .*nope: ENOENT/);
});
