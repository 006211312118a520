import assert from 'node:assert/strict';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';

// GET /api/export and POST /api/import through the real server on port 0.

suite('export and import', () => {
  test('export lists what the user set; import into another server gives the same registry', async (t) => {
    const root = makeTree(t, { 'a/': '', 'b/': '', 'c d/': '' });
    const one = await serve(t);
    await call(`${one.url}/api/projects`, 'POST', { name: 'a', path: join(root, 'a') });
    await call(`${one.url}/api/projects`, 'POST', { name: 'b', path: join(root, 'b') });
    await call(`${one.url}/api/projects`, 'POST', { name: 'c', path: join(root, 'c d') });
    await call(`${one.url}/api/projects/2`, 'PUT', { description: 'the b one', framework: 'vite', tags: ['web', 'x'] });
    await call(`${one.url}/api/settings/theme`, 'PUT', { value: 'dark' });
    await call(`${one.url}/api/settings/__proto__`, 'PUT', { value: 'odd key' });
    const exported = await call(`${one.url}/api/export`);
    assert.equal(exported.status, 200);
    assert.equal(exported.body.format, 'projdex-registry');
    assert.deepEqual(exported.body.projects[1], { name: 'b', path: join(root, 'b'), description: 'the b one', framework: 'vite', tags: ['web', 'x'] });
    assert.deepEqual(exported.body.settings, JSON.parse('{"__proto__":"odd key","theme":"dark"}'));

    const two = await serve(t);
    const imported = await call(`${two.url}/api/import`, 'POST', exported.body);
    assert.equal(imported.status, 200);
    assert.deepEqual([imported.body.added.length, imported.body.updated, imported.body.missing, imported.body.settings], [3, [], [], 2]);
    const again = await call(`${two.url}/api/export`);
    assert.deepEqual({ ...again.body, exported_at: 0 }, { ...exported.body, exported_at: 0 });
  });

  test('merges by path: a registered path takes the imported fields; a missing path is reported, not registered', async (t) => {
    const root = makeTree(t, { 'a/': '', 'b/': '' });
    const { url } = await serve(t);
    await call(`${url}/api/projects`, 'POST', { name: 'old name', path: join(root, 'a') });
    await call(`${url}/api/settings/keep`, 'PUT', { value: 'kept' });
    const answer = await call(`${url}/api/import`, 'POST', {
      format: 'projdex-registry', version: 1,
      projects: [
        // Another spelling of a registered directory: the same project.
        { name: 'a', path: `${root}/b/../a/`, tags: ['t'] },
        { name: 'b', path: join(root, 'b') },
        { name: 'gone', path: join(root, 'nowhere') },
        { name: 'rel', path: 'relative/path' },
      ],
      settings: { theme: 'light' },
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.updated.map((p: { id: number; name: string; tags: string[] }) => [p.id, p.name, p.tags]), [[1, 'a', ['t']]]);
    assert.deepEqual(answer.body.added.map((p: { id: number; name: string }) => [p.id, p.name]), [[2, 'b']]);
    assert.deepEqual(answer.body.missing, [
      { name: 'gone', path: join(root, 'nowhere'), error: 'Path does not exist' },
      { name: 'rel', path: 'relative/path', error: 'Path must be absolute' },
    ]);
    assert.equal((await call(`${url}/api/projects`)).body.length, 2);
    assert.deepEqual((await call(`${url}/api/settings`)).body, { keep: 'kept', theme: 'light' });
  });

  test('a bad document is a 400 naming the field, and changes nothing', async (t) => {
    const root = makeTree(t, { 'a/': '' });
    const { url } = await serve(t);
    const good = { name: 'a', path: join(root, 'a') };
    const cases: Array<[unknown, RegExp]> = [
      [{ version: 1, projects: [good] }, /^format must be "projdex-registry"/],
      [{ format: 'projdex-registry', version: 2, projects: [good] }, /^version must be 1$/],
      [{ format: 'projdex-registry', version: 1, projects: {} }, /^projects must be an array/],
      [{ format: 'projdex-registry', version: 1, projects: [good, { name: '', path: '/x' }] }, /^projects\[1\]\.name must be a non-empty string$/],
      [{ format: 'projdex-registry', version: 1, projects: [good, { name: 'x', path: '/x', tags: 'web' }] }, /^projects\[1\]\.tags must be an array/],
      [{ format: 'projdex-registry', version: 1, projects: [good, 7] }, /^projects\[1\] must be an object$/],
      [{ format: 'projdex-registry', version: 1, projects: [good], settings: { k: 1 } }, /^settings\.k must be a string$/],
      [{ format: 'projdex-registry', version: 1, projects: [good], settings: [] }, /^settings must be an object/],
    ];
    for (const [body, message] of cases) {
      const answer = await call(`${url}/api/import`, 'POST', body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.match(answer.body.error, message);
    }
    assert.deepEqual((await call(`${url}/api/projects`)).body, []);
    assert.deepEqual((await call(`${url}/api/settings`)).body, {});
  });

  test('with a token set, both routes need it', async (t) => {
    const { url } = await serve(t, { token: 'secret-token-0123456789' });
    assert.equal((await call(`${url}/api/export`)).status, 401);
    assert.equal((await call(`${url}/api/import`, 'POST', { format: 'projdex-registry', version: 1 })).status, 401);
    assert.equal((await call(`${url}/api/export`, 'GET', undefined, { authorization: 'Bearer secret-token-0123456789' })).status, 200);
  });
});
