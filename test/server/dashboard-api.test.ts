import assert from 'node:assert/strict';
import { request } from 'node:http';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';

suite('the dashboard files', () => {
  test('GET / serves the page with a strict Content-Security-Policy', async (t) => {
    const server = await serve(t);
    const res = await fetch(`${server.url}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, /^default-src 'self'; script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.match(html, /<script type="module" src="\/ui\/app\.js"><\/script>/);
    assert.doesNotMatch(html, /<script>|<script type="module">|\son[a-z]+=|style=/, 'no inline script, handler or style');
    // Everything the page links (stylesheet, icon, preloaded modules) is served.
    const links = [...html.matchAll(/(?:href|src)="(\/ui\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(links.length >= 12, String(links));
    for (const link of links) assert.equal((await fetch(`${server.url}${link}`)).status, 200, link);
  });

  test('serves the assets by flat name only, with types and ETags', async (t) => {
    const server = await serve(t);
    const js = await fetch(`${server.url}/ui/app.js`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const etag = js.headers.get('etag')!;
    const again = await fetch(`${server.url}/ui/app.js`, { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    assert.equal((await fetch(`${server.url}/ui/app.css`)).headers.get('content-type'), 'text/css; charset=utf-8');
    for (const path of ['/ui/nope.js', '/ui/%2e%2e%2fapi%2fstatic.ts', '/ui/../api/static.ts', '/ui/', '/index.htm']) {
      const res = await call(`${server.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { error: 'Not found' });
    }
    assert.equal((await call(`${server.url}/`, 'POST')).status, 404);
    const head = await fetch(`${server.url}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('the page needs no token and opens from a cross-site link; the API still refuses both', async (t) => {
    const server = await serve(t, { token: 'tok' });
    assert.equal((await fetch(`${server.url}/`, { headers: { 'sec-fetch-site': 'cross-site' } })).status, 200);
    assert.equal((await call(`${server.url}/api/projects`)).status, 401);
    assert.equal((await call(`${server.url}/api/projects`, 'GET', undefined, { authorization: 'Bearer tok', 'sec-fetch-site': 'cross-site' })).status, 403);
  });

  test('without a token, a foreign Host is still refused for the page', async (t) => {
    const server = await serve(t);
    // fetch cannot set Host; node:http can.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      request(`${server.url}/`, { headers: { host: 'evil.example' } }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject).end();
    });
    assert.equal(status, 403);
  });
});

suite('the API the dashboard reads', () => {
  test('the page\'s own origin may write: a LAN address in token mode, an allowed host name', async (t) => {
    const lan = await serve(t, { token: 'tok' });
    const put = (port: number, host: string, headers: Record<string, string> = {}) => new Promise<number | undefined>((resolve, reject) => {
      request({ port, host: '127.0.0.1', method: 'PUT', path: '/api/settings/k', headers: { host, origin: `http://${host}`, 'content-type': 'application/json', ...headers } },
        (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject).end('{"value":"v"}');
    });
    assert.equal(await put(lan.port, `192.168.1.20:${lan.port}`, { authorization: 'Bearer tok' }), 200);
    assert.equal(await put(lan.port, `192.168.1.20:${lan.port}`), 401, 'the token is still needed');
    const named = await serve(t, { allowedHosts: ['projdex.test'] });
    assert.equal(await put(named.port, `projdex.test:${named.port}`), 200);
    assert.equal(await put(named.port, `evil.test:${named.port}`), 403, 'a Host not allowed stays refused');
    // Another origin than the Host is still cross-origin.
    const other = await new Promise<number | undefined>((resolve, reject) => {
      request({ port: named.port, host: '127.0.0.1', method: 'PUT', path: '/api/settings/k',
        headers: { host: `projdex.test:${named.port}`, origin: 'http://evil.test', 'content-type': 'application/json' } },
      (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject).end('{"value":"v"}');
    });
    assert.equal(other, 403);
  });

  test('GET /api/projects/:id/scan keeps the last scan\'s notes, runs and truncation', async (t) => {
    const server = await serve(t, { scan: { maxEntries: 3 } });
    const dir = makeTree(t, { 'package.json': '{"scripts":{"test":"jest"}}', 'a.test.js': '', 'b.test.js': '', 'c.test.js': '' });
    const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'a', path: dir });
    assert.deepEqual((await call(`${server.url}/api/projects/${project.id}/scan`)).body, { notes: [], runs: [], truncated: null, scanned_at: null });
    const scanned = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    const summary = await call(`${server.url}/api/projects/${project.id}/scan`);
    assert.equal(summary.status, 200);
    assert.deepEqual(summary.body.notes, scanned.body.notes);
    assert.deepEqual(summary.body.runs, scanned.body.runs);
    assert.equal(summary.body.truncated, scanned.body.truncated);
    assert.match(summary.body.truncated, /entry limit/);
    assert.equal(summary.body.scanned_at, scanned.body.project.last_scanned);
    assert.equal((await call(`${server.url}/api/projects/99/scan`)).status, 404);
    assert.equal((await call(`${server.url}/api/projects/x/scan`)).status, 400);
  });

  test('GET /api/projects/overview counts tests, cases and runners, and lists ports, per project', async (t) => {
    const server = await serve(t);
    const a = makeTree(t, {
      'package.json': '{"scripts":{"dev":"vite --port 5173","test":"vitest"},"devDependencies":{"vitest":"1"}}',
      'src/a.test.ts': "test('a', () => {}); test('b', () => {});",
      'src/b.test.ts': "test('c', () => {});",
    });
    const b = makeTree(t, { 'x.txt': '' });
    const pa = (await call(`${server.url}/api/projects`, 'POST', { name: 'a', path: a })).body;
    const pb = (await call(`${server.url}/api/projects`, 'POST', { name: 'b', path: b })).body;
    await call(`${server.url}/api/projects/${pa.id}/scan`, 'POST');
    const overview = await call(`${server.url}/api/projects/overview`);
    assert.equal(overview.status, 200);
    assert.deepEqual(overview.body, [
      { project_id: pa.id, tests: 2, cases: 3, runners: { vitest: 2 }, ports: [5173] },
      { project_id: pb.id, tests: 0, cases: 0, runners: {}, ports: [] },
    ]);
  });
});
