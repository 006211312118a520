import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, fixture, makeTree, serve } from '../helpers/index.ts';

suite('health', () => {
  test('answers ok with an ISO timestamp in UTC with milliseconds', async (t) => {
    const { url } = await serve(t, { now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
    const res = await call(`${url}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', timestamp: '2026-01-02T03:04:05.006Z' });
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin');
  });
});

suite('POST /api/projects', () => {
  test('creates a project with the contract fields and 201', async (t) => {
    const dir = makeTree(t, { 'package.json': '{}' });
    const { url } = await serve(t, { now: () => 1_700_000_000_500 });
    const res = await call(`${url}/api/projects`, 'POST', { name: 'app', path: dir });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body, { id: 1, name: 'app', path: dir, description: null, framework: null, tags: [], last_scanned: null, created_at: 1_700_000_000, last_run: null, git: null, git_note: null });
  });

  for (const body of [{}, { name: 'a' }, { path: '/tmp' }, { name: '', path: '/tmp' }, { name: 'a', path: null }]) {
    test(`400 "Name and path are required" for ${JSON.stringify(body)}`, async (t) => {
      const { url } = await serve(t);
      const res = await call(`${url}/api/projects`, 'POST', body);
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { error: 'Name and path are required' });
    });
  }

  test('a POST without any body is answered by the field rule', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/projects`, 'POST');
    assert.deepEqual([res.status, res.body], [400, { error: 'Name and path are required' }]);
  });

  test('400 for a path that does not exist, a file, a relative path and a root', async (t) => {
    const dir = makeTree(t, { 'file.txt': 'x' });
    const { url } = await serve(t);
    const cases: Array<[string, string]> = [
      [join(dir, 'missing'), 'Path does not exist'],
      [join(dir, 'file.txt'), 'Path must be a directory'],
      [join(dir, 'file.txt', 'below'), 'Path must be a directory'],
      ['relative/dir', 'Path must be absolute'],
      ['/', 'Refusing to register a filesystem root'],
      [`${dir}/../../../../../../../..`, 'Refusing to register a filesystem root'],
      [`${dir}/bad\u0000byte`, 'path must not contain NUL bytes'],
      [`/${'a'.repeat(100_000)}`, 'path must be at most 4096 characters'],
    ];
    for (const [path, error] of cases) {
      const res = await call(`${url}/api/projects`, 'POST', { name: 'x', path });
      assert.deepEqual([res.status, res.body], [400, { error }], path.slice(0, 80));
    }
    assert.deepEqual((await call(`${url}/api/projects`)).body, []);
  });

  test('wrong field types are 400 naming the field', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    assert.deepEqual((await call(`${url}/api/projects`, 'POST', { name: 42, path: dir })).body, { error: 'name must be a non-empty string' });
    assert.deepEqual((await call(`${url}/api/projects`, 'POST', { name: 'a', path: ['/'] })).body, { error: 'path must be a non-empty string' });
  });

  test('409 with the existing project for the same directory spelled another way', async (t) => {
    const dir = makeTree(t, { 'real/x': '' });
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const { url } = await serve(t);
    const first = await call(`${url}/api/projects`, 'POST', { name: 'one', path: join(dir, 'real') });
    assert.equal(first.status, 201);
    for (const spelling of [join(dir, 'real') + '/', join(dir, 'link'), `${dir}/real/../real`]) {
      const res = await call(`${url}/api/projects`, 'POST', { name: 'two', path: spelling });
      assert.equal(res.status, 409, spelling);
      assert.deepEqual(res.body, { error: 'Project with this path already exists', project: first.body });
    }
  });

  test('expands ~/ to the home directory', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/projects`, 'POST', { name: 'home', path: '~/' });
    // The home directory exists on every machine that runs this suite; it is not a root.
    assert.equal(res.status, 201);
    assert.equal(res.body.path, (await import('node:fs')).realpathSync((await import('node:os')).homedir()));
  });

  test('concurrent registrations of one path give exactly one 201', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${url}/api/projects`, 'POST', { name: `n${i}`, path: dir })));
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    assert.equal(results.filter((r) => r.status === 409).length, 19);
  });

  test('names and paths with quotes, spaces and unicode round-trip', async (t) => {
    const root = makeTree(t);
    const dir = join(root, `it's "quoted" ünïcødé 目录 ; DROP TABLE projects; --`);
    mkdirSync(dir);
    const { url } = await serve(t);
    const name = `Robert'); DROP TABLE projects;-- 🚀`;
    const created = await call(`${url}/api/projects`, 'POST', { name, path: dir });
    assert.equal(created.status, 201);
    assert.deepEqual((await call(`${url}/api/projects/${created.body.id}`)).body, { ...created.body, name, path: dir });
  });
});

suite('GET /api/projects and /api/projects/:id', () => {
  test('lists projects in id order; ids are never reused after delete', async (t) => {
    const root = makeTree(t, { 'a/': '', 'b/': '', 'c/': '' });
    const { url } = await serve(t);
    for (const name of ['a', 'b']) await call(`${url}/api/projects`, 'POST', { name, path: join(root, name) });
    assert.equal((await call(`${url}/api/projects/2`, 'DELETE')).status, 204);
    const c = await call(`${url}/api/projects`, 'POST', { name: 'c', path: join(root, 'c') });
    assert.equal(c.body.id, 3);
    assert.deepEqual((await call(`${url}/api/projects`)).body.map((p: { id: number }) => p.id), [1, 3]);
  });

  for (const id of ['abc', '0', '-1', '1.5', '1e3', '0x10', '99999999999999999999', '%00', '01']) {
    test(`400 "Invalid project ID" for ${id} on every :id route`, async (t) => {
      const { url } = await serve(t);
      for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['GET', '/tests'], ['GET', '/ports'], ['POST', '/scan']] as const) {
        const res = await call(`${url}/api/projects/${id}${suffix}`, method, method === 'PUT' ? { name: 'x' } : undefined);
        assert.deepEqual([res.status, res.body], [400, { error: 'Invalid project ID' }], `${method} ${suffix}`);
      }
    });
  }

  test('404 "Project not found" for an unknown id on every :id route', async (t) => {
    const { url } = await serve(t);
    for (const [method, suffix] of [['GET', ''], ['PUT', ''], ['DELETE', ''], ['GET', '/tests'], ['GET', '/ports'], ['POST', '/scan']] as const) {
      const res = await call(`${url}/api/projects/7${suffix}`, method, method === 'PUT' ? { name: 'x' } : undefined);
      assert.deepEqual([res.status, res.body], [404, { error: 'Project not found' }], `${method} ${suffix}`);
    }
  });
});

suite('PUT /api/projects/:id', () => {
  test('changes only the fields given; tags are deduplicated in order', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    const created = (await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir })).body;
    const res = await call(`${url}/api/projects/1`, 'PUT', { description: 'desc', tags: ['web', 'api', 'web'], path: '/elsewhere', id: 9 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ...created, description: 'desc', tags: ['web', 'api'] });
    const renamed = await call(`${url}/api/projects/1`, 'PUT', { name: 'b', framework: 'vite' });
    assert.deepEqual(renamed.body, { ...created, name: 'b', framework: 'vite', description: 'desc', tags: ['web', 'api'] });
    const cleared = await call(`${url}/api/projects/1`, 'PUT', { description: null });
    assert.equal(cleared.body.description, null);
  });

  test('an unknown project is 404 even when the body has no updatable field', async (t) => {
    const { url } = await serve(t);
    assert.deepEqual(await call(`${url}/api/projects/5`, 'PUT', {}).then((r) => [r.status, r.body]), [404, { error: 'Project not found' }]);
  });

  test('400 "No valid fields to update" when nothing updatable is sent', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
    for (const body of [{}, { path: '/x' }, { unknown: 1 }]) {
      const res = await call(`${url}/api/projects/1`, 'PUT', body);
      assert.deepEqual([res.status, res.body], [400, { error: 'No valid fields to update' }]);
    }
  });

  test('400 naming the field for wrong types, and nothing changes', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    const created = (await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir })).body;
    const cases: Array<[object, string]> = [
      [{ name: '' }, 'name must be a non-empty string'],
      [{ name: 3 }, 'name must be a non-empty string'],
      [{ description: 5 }, 'description must be a string or null'],
      [{ framework: {} }, 'framework must be a string or null'],
      [{ tags: 'web' }, 'tags must be an array of non-empty strings'],
      [{ tags: ['ok', 1] }, 'tags must be an array of non-empty strings'],
      [{ name: 'fine', tags: [''] }, 'tags must be an array of non-empty strings'],
    ];
    for (const [body, error] of cases) {
      const res = await call(`${url}/api/projects/1`, 'PUT', body);
      assert.deepEqual([res.status, res.body], [400, { error }], JSON.stringify(body));
    }
    assert.deepEqual((await call(`${url}/api/projects/1`)).body, created);
  });
});

suite('GET /api/projects/tags', () => {
  test('returns every tag once, alphabetically', async (t) => {
    const root = makeTree(t, { 'a/': '', 'b/': '' });
    const { url } = await serve(t);
    assert.deepEqual((await call(`${url}/api/projects/tags`)).body, []);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: join(root, 'a') });
    await call(`${url}/api/projects`, 'POST', { name: 'b', path: join(root, 'b') });
    await call(`${url}/api/projects/1`, 'PUT', { tags: ['web', 'api'] });
    await call(`${url}/api/projects/2`, 'PUT', { tags: ['cli', 'web'] });
    assert.deepEqual((await call(`${url}/api/projects/tags`)).body, ['api', 'cli', 'web']);
  });
});

suite('DELETE /api/projects/:id', () => {
  test('204 with an empty body, and the project, its tests and ports are gone', async (t) => {
    const dir = makeTree(t, { 'package.json': '{"scripts":{"test":"jest"},"devDependencies":{"jest":"30"}}', 'a.test.js': '' });
    const { url, store } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
    await call(`${url}/api/projects/1/scan`, 'POST');
    const res = await fetch(`${url}/api/projects/1`, { method: 'DELETE' });
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    assert.equal(res.headers.get('content-type'), null);
    assert.deepEqual(store.listTests(1), []);
    assert.equal((await call(`${url}/api/projects/1`)).status, 404);
  });
});

suite('scanning', () => {
  test('POST /:id/scan returns project, testsFound and tests; GET /tests agrees', async (t) => {
    const dir = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^30.0.0' } }),
      'src/sum.js': 'module.exports = (a, b) => a + b;',
      'src/sum.test.js': "test('adds', () => {}); test('adds again', () => {});",
      'src/__tests__/util.js': "it('works', () => {});",
      'src/latest.js': '',
    });
    const { url } = await serve(t, { now: () => 1_800_000_000_000 });
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 200);
    assert.equal(res.body.testsFound, 2);
    assert.deepEqual(res.body.tests.map((x: { file_path: string; framework: string }) => [x.file_path, x.framework]), [
      ['src/__tests__/util.js', 'jest'],
      ['src/sum.test.js', 'jest'],
    ]);
    assert.deepEqual(Object.keys(res.body.tests[0]).sort(), ['cases', 'created_at', 'file_path', 'framework', 'id', 'last_run', 'project_id', 'status']);
    assert.equal(res.body.tests[0].status, null);
    assert.equal(res.body.project.last_scanned, 1_800_000_000);
    assert.deepEqual((await call(`${url}/api/projects/1/tests`)).body, res.body.tests);
  });

  test('test ids stay stable across rescans while the file is still found', async (t) => {
    const dir = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', 'a.test.ts': '', 'b.test.ts': '' });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
    const first = (await call(`${url}/api/projects/1/scan`, 'POST')).body.tests;
    rmSync(join(dir, 'a.test.ts'));
    writeFileSync(join(dir, 'c.test.ts'), '');
    const second = (await call(`${url}/api/projects/1/scan`, 'POST')).body.tests;
    assert.deepEqual(second.map((x: { file_path: string }) => x.file_path), ['b.test.ts', 'c.test.ts']);
    assert.equal(second[0].id, first.find((x: { file_path: string }) => x.file_path === 'b.test.ts').id);
    assert.ok(second[1].id > Math.max(...first.map((x: { id: number }) => x.id)));
  });

  test('a scan fills a null framework but never overwrites one set by PUT', async (t) => {
    const root = makeTree(t, { 'a/package.json': '{"dependencies":{"next":"15"}}', 'b/package.json': '{"dependencies":{"next":"15"}}' });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: join(root, 'a') });
    await call(`${url}/api/projects`, 'POST', { name: 'b', path: join(root, 'b') });
    await call(`${url}/api/projects/2`, 'PUT', { framework: 'mine' });
    assert.equal((await call(`${url}/api/projects/1/scan`, 'POST')).body.project.framework, 'next');
    assert.equal((await call(`${url}/api/projects/2/scan`, 'POST')).body.project.framework, 'mine');
  });

  test('409 naming the path when the directory is gone; the project stays', async (t) => {
    const root = makeTree(t, { 'gone/': '' });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: join(root, 'gone') });
    rmSync(join(root, 'gone'), { recursive: true });
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 409);
    assert.match(res.body.error, new RegExp(join(root, 'gone').replace(/[/.]/g, '\\$&')));
    assert.equal((await call(`${url}/api/projects/1`)).status, 200);
  });

  test('scan/all scans every project and survives one whose directory is gone', async (t) => {
    const root = makeTree(t, { 'a/x.test.js': '', 'a/package.json': '{"devDependencies":{"jest":"30"}}', 'b/': '', 'c/test_x.py': 'def test_a(): pass', 'c/pytest.ini': '[pytest]\n' });
    const { url } = await serve(t);
    for (const name of ['a', 'b', 'c']) await call(`${url}/api/projects`, 'POST', { name, path: join(root, name) });
    rmSync(join(root, 'b'), { recursive: true });
    const res = await call(`${url}/api/projects/scan/all`, 'POST');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.map((r: { project: { id: number }; testsFound: number }) => [r.project.id, r.testsFound]), [[1, 1], [2, 0], [3, 1]]);
    assert.match(res.body[1].error, /no longer exists/);
    assert.deepEqual(res.body[1].tests, []);
    assert.equal(res.body[0].error, null);
    // A failed entry has the same keys as a successful one.
    assert.deepEqual(Object.keys(res.body[1]).sort(), Object.keys(res.body[0]).sort());
  });

  test('GET /ports after a scan returns what the scan found, by port then script name', async (t) => {
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'mono', path: fixture('ports-monorepo') });
    const scanned = await call(`${url}/api/projects/1/scan`, 'POST');
    const ports = (await call(`${url}/api/projects/1/ports`)).body;
    assert.ok(ports.length >= 5, JSON.stringify(ports));
    assert.deepEqual(ports, scanned.body.ports);
    const order = ports.map((p: { port: number; script_name: string | null }) => [p.port, p.script_name ?? '']);
    assert.deepEqual(order, [...order].sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)));
    for (const p of ports) {
      assert.deepEqual(Object.keys(p).sort(), ['config_source', 'created_at', 'id', 'kind', 'last_detected', 'port', 'project_id', 'script_name']);
      assert.ok(Number.isInteger(p.port) && p.port >= 1 && p.port <= 65535);
    }
  });

  test('a scan that runs out of the scan process\'s memory is a 500 saying so, and the server goes on', async (t) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`pkg${i % 30}/src/deep/er/file-number-${i}.test.ts`] = "test('x', () => {});";
    const dir = makeTree(t, { 'package.json': '{"devDependencies":{"vitest":"3"}}', ...files });
    const { url, logs } = await serve(t, { scanWorker: { heapMb: 8, fallbackHeapMb: null } });
    await call(`${url}/api/projects`, 'POST', { name: 'big', path: dir });
    const res = await call(`${url}/api/projects/1/scan`, 'POST');
    assert.equal(res.status, 500);
    assert.match(res.body.error, /^The scan ran out of memory \(8 MB heap\)/);
    assert.equal(logs.length, 1);
    assert.equal((await call(`${url}/health`)).status, 200);
    assert.deepEqual((await call(`${url}/api/projects/1/tests`)).body, []);
  });

  test('GET /ports is empty before a scan', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'a', path: dir });
    assert.deepEqual((await call(`${url}/api/projects/1/ports`)).body, []);
  });
});

suite('settings', () => {
  test('PUT stores a value; GET returns every key as one object', async (t) => {
    const { url } = await serve(t);
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
    assert.deepEqual((await call(`${url}/api/settings/theme`, 'PUT', { value: 'dark' })).body, { key: 'theme', value: 'dark' });
    assert.deepEqual((await call(`${url}/api/settings/theme`, 'PUT', { value: 'light' })).body, { key: 'theme', value: 'light' });
    assert.deepEqual((await call(`${url}/api/settings/max`, 'PUT', { value: 3 })).body, { key: 'max', value: '3' });
    assert.deepEqual((await call(`${url}/api/settings/on`, 'PUT', { value: false })).body, { key: 'on', value: 'false' });
    assert.deepEqual((await call(`${url}/api/settings/a%2Fb%20c`, 'PUT', { value: '' })).body, { key: 'a/b c', value: '' });
    assert.deepEqual((await call(`${url}/api/settings`)).body, { 'a/b c': '', max: '3', on: 'false', theme: 'light' });
  });

  test('400 "Value is required" without value; null, objects and arrays are 400', async (t) => {
    const { url } = await serve(t);
    assert.deepEqual((await call(`${url}/api/settings/k`, 'PUT', {})).body, { error: 'Value is required' });
    assert.deepEqual((await call(`${url}/api/settings/k`, 'PUT')).body, { error: 'Value is required' });
    for (const value of [null, {}, []]) {
      const res = await call(`${url}/api/settings/k`, 'PUT', { value });
      assert.deepEqual([res.status, res.body], [400, { error: 'value must be a string, number or boolean' }]);
    }
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
  });

  test('__proto__ and constructor are ordinary keys and pollute nothing', async (t) => {
    const { url } = await serve(t);
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      assert.equal((await call(`${url}/api/settings/${key}`, 'PUT', { value: `v-${key}` })).status, 200);
    }
    const res = await fetch(`${url}/api/settings`);
    const text = await res.text();
    assert.match(text, /"__proto__":"v-__proto__"/);
    const settings = JSON.parse(text);
    assert.equal(Object.hasOwn(settings, '__proto__'), true);
    assert.equal(settings.constructor, 'v-constructor');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((await call(`${url}/api/settings/x`, 'PUT', JSON.stringify({ value: 'v', __proto__: { polluted: true } }))).status, 200);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('SQL metacharacters round-trip literally', async (t) => {
    const { url } = await serve(t);
    const value = `'; DROP TABLE settings; -- % _ \\ "`;
    await call(`${url}/api/settings/${encodeURIComponent("k'%_")}`, 'PUT', { value });
    assert.deepEqual((await call(`${url}/api/settings`)).body, { "k'%_": value });
  });
});

suite('protocol errors', () => {
  test('unknown path is 404 JSON; wrong method is 405 with Allow', async (t) => {
    const { url } = await serve(t);
    assert.deepEqual(await call(`${url}/nope`).then((r) => [r.status, r.body]), [404, { error: 'Not found' }]);
    const res = await call(`${url}/api/projects`, 'PATCH');
    assert.deepEqual([res.status, res.body], [405, { error: 'Method not allowed' }]);
    assert.equal(res.headers.get('allow'), 'GET, POST');
    assert.equal((await call(`${url}/api/projects/scan/all`)).headers.get('allow'), 'POST');
    assert.equal((await call(`${url}/api/settings`, 'DELETE')).headers.get('allow'), 'GET');
  });

  test('415 for a body that is not JSON, 400 for broken JSON or a non-object', async (t) => {
    const dir = makeTree(t);
    const { url } = await serve(t);
    const body = JSON.stringify({ name: 'a', path: dir });
    assert.equal((await call(`${url}/api/projects`, 'POST', body, { 'content-type': 'text/plain' })).status, 415);
    assert.equal((await call(`${url}/api/projects`, 'POST', body, { 'content-type': 'text/plain; application/json' })).status, 415);
    assert.equal((await call(`${url}/api/projects`, 'POST', body, { 'content-type': 'application/json; charset=utf-8' })).status, 201);
    for (const [raw, error] of [['{"name":', 'Request body is not valid JSON'], ['[]', 'Request body must be a JSON object'], ['null', 'Request body must be a JSON object'], ['42', 'Request body must be a JSON object'], ['"x"', 'Request body must be a JSON object']]) {
      assert.deepEqual(await call(`${url}/api/settings/k`, 'PUT', raw).then((r) => [r.status, r.body]), [400, { error }]);
    }
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
  });

  test('413 for a body over 1 MiB, and the server keeps serving', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/settings/k`, 'PUT', JSON.stringify({ value: 'x'.repeat(1_100_000) }));
    assert.deepEqual([res.status, res.body], [413, { error: 'Request body too large' }]);
    assert.equal((await call(`${url}/health`)).status, 200);
  });

  test('a malformed percent-escape is 400, not a crash', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/settings/%E0%A4%A`, 'PUT', { value: 'x' });
    assert.deepEqual([res.status, res.body], [400, { error: 'Malformed percent-encoding in URL' }]);
  });
});

suite('persistence', () => {
  test('projects, scans and settings survive a restart on the same data dir', async (t) => {
    const dir = makeTree(t, { 'project/package.json': '{"devDependencies":{"vitest":"3"}}', 'project/a.test.ts': '' });
    const dataDir = join(dir, 'data');
    const first = await serve(t, { dataDir });
    await call(`${first.url}/api/projects`, 'POST', { name: 'p', path: join(dir, 'project') });
    await call(`${first.url}/api/projects/1`, 'PUT', { tags: ['x'] });
    const scanned = (await call(`${first.url}/api/projects/1/scan`, 'POST')).body;
    await call(`${first.url}/api/settings/k`, 'PUT', { value: 'v' });
    await first.close();
    const second = await serve(t, { dataDir });
    assert.deepEqual((await call(`${second.url}/api/projects/1`)).body, scanned.project);
    assert.deepEqual((await call(`${second.url}/api/projects/1/tests`)).body, scanned.tests);
    assert.deepEqual((await call(`${second.url}/api/settings`)).body, { k: 'v' });
  });
});
