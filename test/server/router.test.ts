import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { createRouter, route } from '../../src/server/router.ts';

suite('router.match()', () => {
  const router = createRouter([
    route('GET', '/api/projects', 'list'),
    route('POST', '/api/projects', 'create'),
    route('GET', '/api/projects/tags', 'tags'),
    route('GET', '/api/projects/:id', 'get'),
    route('PUT', '/api/projects/:id', 'update'),
    route('GET', '/api/projects/:id/tests', 'tests'),
    route('PUT', '/api/settings/:key', 'setting'),
  ]);

  test('matches literal paths by method, with or without a trailing slash', () => {
    assert.equal((router.match('GET', '/api/projects') as { handler: string }).handler, 'list');
    assert.equal((router.match('POST', '/api/projects/') as { handler: string }).handler, 'create');
  });

  test('a literal route listed before a parameter route wins', () => {
    assert.equal((router.match('GET', '/api/projects/tags') as { handler: string }).handler, 'tags');
  });

  test('captures parameters into a null-prototype object', () => {
    const found = router.match('GET', '/api/projects/42/tests') as { handler: string; params: Record<string, string> };
    assert.equal(found.handler, 'tests');
    assert.deepEqual({ ...found.params }, { id: '42' });
    assert.equal(Object.getPrototypeOf(found.params), null);
    const proto = router.match('PUT', '/api/settings/__proto__') as { params: Record<string, string> };
    assert.equal(Object.hasOwn(proto.params, 'key'), true);
    assert.equal(proto.params.key, '__proto__');
  });

  test('returns the allowed methods when only the method differs', () => {
    assert.deepEqual(router.match('DELETE', '/api/projects'), { allowed: ['GET', 'POST'] });
    assert.deepEqual(router.match('POST', '/api/projects/7'), { allowed: ['GET', 'PUT'] });
  });

  test('HEAD is answered by the GET route', () => {
    assert.equal((router.match('HEAD', '/api/projects') as { handler: string }).handler, 'list');
  });

  test('returns null for unknown paths, empty segments and extra segments', () => {
    assert.equal(router.match('GET', '/api/nope'), null);
    assert.equal(router.match('GET', '/api/projects/7/tests/extra'), null);
    assert.equal(router.match('PUT', '/api/settings//x'), null);
  });

  test('treats regex metacharacters in patterns literally', () => {
    const r = createRouter([route('GET', '/a.b/(c)', 'x')]);
    assert.equal(r.match('GET', '/aXb/(c)'), null);
    assert.equal((r.match('GET', '/a.b/(c)') as { handler: string }).handler, 'x');
  });

  test('refuses a duplicate route at registration, naming it', () => {
    assert.throws(() => createRouter([route('GET', '/x', 1), route('GET', '/x', 2)]), { message: 'Route already registered: GET /x' });
  });
});
