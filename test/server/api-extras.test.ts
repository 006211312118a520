import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { findRoots } from '../../src/core/roots.ts';
import { call, makeTree, serve } from '../helpers/index.ts';

suite('GET /api/projects filters', () => {
  test('tag (exact), framework (any case), q (substring of name, path, description; % and _ are literal)', async (t) => {
    const root = makeTree(t, { 'alpha/': '', 'beta/': '', 'gamma_100%/': '' });
    const { url } = await serve(t);
    for (const name of ['alpha', 'beta', 'gamma_100%']) await call(`${url}/api/projects`, 'POST', { name, path: join(root, name) });
    await call(`${url}/api/projects/1`, 'PUT', { tags: ['web', 'ui'], framework: 'Next' });
    await call(`${url}/api/projects/2`, 'PUT', { tags: ['web2'], description: 'The Payments service' });
    const names = async (query: string): Promise<string[]> => ((await call(`${url}/api/projects${query}`)).body as Array<{ name: string }>).map((p) => p.name);
    assert.deepEqual(await names('?tag=web'), ['alpha']);
    assert.deepEqual(await names('?framework=next'), ['alpha']);
    assert.deepEqual(await names('?q=PAYMENTS'), ['beta']);
    assert.deepEqual(await names('?q=%25'), ['gamma_100%']);
    assert.deepEqual(await names('?q=a_1'), ['gamma_100%']);
    assert.deepEqual(await names('?q=_'), ['gamma_100%']);
    assert.deepEqual(await names(`?q=${encodeURIComponent(root)}`), ['alpha', 'beta', 'gamma_100%']);
    assert.deepEqual(await names('?tag=web&framework=vite'), []);
    assert.deepEqual(await names('?tag=&q='), ['alpha', 'beta', 'gamma_100%'], 'empty values do not filter');
    const long = await call(`${url}/api/projects?q=${'x'.repeat(1025)}`);
    assert.deepEqual([long.status, long.body], [400, { error: 'q must be at most 1024 characters of well-formed Unicode' }]);
  });
});

suite('settings by key', () => {
  test('GET and DELETE /api/settings/:key', async (t) => {
    const { url } = await serve(t);
    await call(`${url}/api/settings/a%2Fb`, 'PUT', { value: 3 });
    assert.deepEqual((await call(`${url}/api/settings/a%2Fb`)).body, { key: 'a/b', value: '3' });
    assert.deepEqual(await call(`${url}/api/settings/nope`).then((r) => [r.status, r.body]), [404, { error: 'Setting not found' }]);
    assert.equal((await call(`${url}/api/settings/a%2Fb`, 'DELETE')).status, 204);
    assert.deepEqual(await call(`${url}/api/settings/a%2Fb`, 'DELETE').then((r) => [r.status, r.body]), [404, { error: 'Setting not found' }]);
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
  });
});

suite('POST /api/projects/discover', () => {
  test('registers repository and package roots, skipping installs, hidden folders and known ones', async (t) => {
    const root = makeTree(t, {
      'code/a/.git/HEAD': 'x', 'code/a/sub/package.json': '{}',
      'code/group/b/pyproject.toml': '', 'code/group/c/Cargo.toml': '',
      'code/node_modules/d/package.json': '{}', 'code/.hidden/e/go.mod': '', 'code/deep/1/2/3/4/5/f/go.mod': '',
      'code/plain/readme': '',
    });
    symlinkSync(join(root, 'code', 'a'), join(root, 'code', 'link'));
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'known', path: join(root, 'code', 'group', 'c') });
    const res = await call(`${url}/api/projects/discover`, 'POST', { root: join(root, 'code') });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.added.map((p: { name: string; path: string }) => [p.name, p.path]), [['a', join(root, 'code', 'a')], ['b', join(root, 'code', 'group', 'b')]]);
    assert.deepEqual(res.body.existing.map((p: { name: string }) => p.name), ['known']);
    assert.equal(res.body.truncated, false);
    const deeper = await call(`${url}/api/projects/discover`, 'POST', { root: join(root, 'code'), depth: 7 });
    assert.deepEqual(deeper.body.added.map((p: { name: string }) => p.name), ['f']);
    for (const [body, error] of [[{}, 'root must be a non-empty string'], [{ root: 'rel' }, 'Path must be absolute'], [{ root: root, depth: 17 }, 'depth must be an integer from 0 to 16'], [{ root: '/' }, 'Refusing to register a filesystem root']] as const) {
      assert.deepEqual(await call(`${url}/api/projects/discover`, 'POST', body).then((r) => [r.status, r.body]), [400, { error }]);
    }
  });

  test('the search stops at its directory budget and says so', async (t) => {
    const root = makeTree(t, Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`d${i}/x/`, ''])));
    const found = await findRoots(root, { maxDirs: 10 });
    assert.deepEqual(found, { roots: [], truncated: true });
  });
});

suite('errors that name the fix', () => {
  test('Origin not allowed names --allowed-origin', async (t) => {
    const { url } = await serve(t);
    const res = await call(`${url}/api/projects`, 'GET', undefined, { origin: 'http://localhost:5173' });
    assert.deepEqual([res.status, res.body], [403, { error: 'Origin not allowed: start projdex with --allowed-origin http://localhost:5173 to allow it' }]);
  });
});

suite('the library scan()', () => {
  test('answers with the API field names: tests carry file_path, framework, cases', async (t) => {
    const { scan } = await import('../../src/index.ts');
    const root = makeTree(t, {
      'package.json': JSON.stringify({ scripts: { test: 'node --test', dev: 'vite --port 5173' } }),
      'test/a.test.js': "import { test } from 'node:test';\ntest('a', () => {});\n",
    });
    const result = await scan(root);
    assert.deepEqual(result.tests, [{ file_path: 'test/a.test.js', framework: 'node-test', cases: 1 }]);
    assert.deepEqual(result.ports, [{ port: 5173, script_name: 'dev', config_source: 'package.json', kind: 'listen' }]);
    assert.deepEqual(Object.keys(result).sort(), ['framework', 'mode', 'notes', 'ports', 'runs', 'snapshot', 'tests', 'truncated', 'unreadable']);
    // The snapshot makes the next library scan of this root incremental (see README, Rescans).
    assert.equal(result.mode, 'full');
    assert.ok(result.snapshot instanceof Uint8Array);
    const again = await scan(root, { previous: result.snapshot });
    assert.notEqual(again.mode, 'full');
    assert.deepEqual(again.tests, result.tests);
  });
});
