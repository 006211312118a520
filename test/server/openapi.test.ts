import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite, test } from 'node:test';
import { createRoutes } from '../../src/server/api/routes.ts';
import { createScanner } from '../../src/core/scanner.ts';
import { renderApiDoc } from '../../scripts/api-doc.ts';
import { call, makeTree, serve } from '../helpers/index.ts';
import { validate } from '../helpers/schema-check.ts';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }> }>> };

suite('GET /api/openapi.json', () => {
  test('describes every route of the table, and only those', async (t) => {
    const running = await serve(t);
    const doc = (await call(`${running.url}/api/openapi.json`)).body as Doc & { openapi: string };
    assert.equal(doc.openapi, '3.1.0');
    const scanner = createScanner(running.store);
    t.after(() => scanner.close());
    const table = createRoutes(running.store, scanner, { events: running.events }).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort();
    const described = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();
    assert.deepEqual(described, table);
  });

  test('real responses validate against the document', async (t) => {
    const root = makeTree(t, {
      'app/package.json': JSON.stringify({ scripts: { test: 'vitest', dev: 'vite --port 5173' }, devDependencies: { vitest: '3' } }),
      'app/src/a.test.ts': "it('a', () => {}); it('b', () => {});",
      'gone/': '',
      'repos/one/go.mod': 'module one\n',
      'hang/package.json': JSON.stringify({ scripts: { test: 'node --test' } }),
      'hang/test/hang.test.mjs': "import test from 'node:test';\ntest('hangs', () => new Promise(() => {}));\n",
    });
    const running = await serve(t);
    const doc = (await call(`${running.url}/api/openapi.json`)).body as Doc;
    const json = (body: unknown): Record<string, string> => (body === undefined ? {} : { 'content-type': 'application/json' });
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/health'],
      ['GET', '/api/openapi.json'],
      ['POST', '/api/projects', { name: 'app', path: join(root, 'app') }],
      ['POST', '/api/projects', { name: 'gone', path: join(root, 'gone') }],
      ['POST', '/api/projects', { name: 'again', path: join(root, 'app') }],
      ['POST', '/api/projects', { name: 'x' }],
      ['POST', '/api/projects/discover', { root: join(root, 'repos'), depth: 2 }],
      ['POST', '/api/projects/discover', { root: 'relative' }],
      ['PUT', '/api/projects/1', { tags: ['web', 'web', 'ui'], description: 'the app' }],
      ['PUT', '/api/projects/1', {}],
      ['GET', '/api/projects'],
      ['GET', '/api/projects?tag=web&q=APP'],
      ['GET', '/api/projects/tags'],
      ['GET', '/api/projects/1'],
      ['GET', '/api/projects/abc'],
      ['GET', '/api/projects/99'],
      ['POST', '/api/projects/1/scan'],
      ['GET', '/api/projects/1/tests'],
      ['GET', '/api/projects/1/ports'],
      ['GET', '/api/projects/1/ports?kind=all'],
      ['GET', '/api/projects/1/ports?kind=sideways'],
      ['GET', '/api/projects/1/scan'],
      ['GET', '/api/projects/overview'],
      ['GET', '/api/ports'],
      ['GET', '/api/ports?live=1'],
      ['GET', '/api/ports/live'],
      ['GET', '/api/ports?conflicts=1'],
      ['GET', '/api/export'],
      ['POST', '/api/projects/1/processes', { script: 'test' }],
      ['POST', '/api/projects/1/processes', { script: 'nope' }],
      ['GET', '/api/processes'],
      ['GET', '/api/processes/1'],
      ['DELETE', '/api/processes/1'],
      ['GET', '/api/processes/x'],
      ['POST', '/api/import', { format: 'projdex-registry', version: 1, projects: [{ name: 'app', path: join(root, 'app') }, { name: 'n', path: join(root, 'nope') }], settings: { a: 'b' } }],
      ['POST', '/api/import', { format: 'other' }],
      ['POST', '/api/projects/scan/all', 'gone'],
      ['PUT', '/api/settings/theme', { value: 'dark' }],
      ['PUT', '/api/settings/theme', {}],
      ['GET', '/api/settings'],
      ['GET', '/api/setting-keys'],
      ['PUT', '/api/settings/watch', { value: 'maybe' }],
      ['GET', '/api/settings/theme'],
      ['GET', '/api/settings/none'],
      ['DELETE', '/api/settings/theme'],
      ['DELETE', '/api/settings/theme'],
      ['DELETE', '/api/projects/3'],
      ['POST', '/api/projects', { name: 'hang', path: join(root, 'hang') }],
      ['POST', '/api/projects/4/runs'],
      ['POST', '/api/projects/4/runs', { failed: 'yes' }],
      ['GET', '/api/projects/4/runs?limit=5'],
      ['GET', '/api/runs/1'],
      ['DELETE', '/api/runs/1'],
      ['GET', '/api/runs/99'],
      ['PATCH', '/api/projects'],
    ];
    const answered = new Set<string>();
    for (const [method, target, body] of calls) {
      if (body === 'gone') rmSync(join(root, 'gone'), { recursive: true, force: true });
      const sent = body === 'gone' ? undefined : body;
      const res = await call(`${running.url}${target}`, method, sent, json(sent));
      const path = target.split('?')[0]!;
      const [template, ops] = Object.entries(doc.paths).find(([p]) => new RegExp(`^${p.replace(/\{\w+\}/g, '[^/]+')}$`).test(path)) ?? [];
      assert.ok(template && ops, `${method} ${path} is not in the document`);
      const op = ops[method.toLowerCase()];
      const label = `${method} ${target} -> ${res.status}`;
      if (!op) {
        assert.equal(res.status, 405, label);
        continue;
      }
      const response = op.responses[String(res.status)];
      assert.ok(response, `${label} is not documented`);
      const schema = Object.values(response.content ?? {})[0]?.schema;
      if (schema) assert.deepEqual(validate(schema, res.body, doc), [], label);
      else assert.equal(res.body, undefined, label);
      if (res.status < 300) answered.add(`${method} ${template}`);
    }
    // A stream never ends: its status and media type are checked, then the request is dropped.
    for (const [path, ops] of Object.entries(doc.paths)) {
      const stream = ops.get?.responses['200']?.content?.['text/event-stream'];
      if (!stream) continue;
      const controller = new AbortController();
      const res = await fetch(`${running.url}${path}`, { signal: controller.signal });
      assert.deepEqual([res.status, res.headers.get('content-type')?.split(';')[0]], [200, 'text/event-stream'], path);
      controller.abort();
      answered.add(`GET ${path}`);
    }
    const all = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    assert.deepEqual(all.filter((r) => !answered.has(r)), [], 'every route answered successfully at least once');
  });

  test('docs/api.md is the rendering of the route docs and schemas', () => {
    const committed = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'api.md'), 'utf8');
    assert.equal(committed, renderApiDoc(), 'run `node scripts/api-doc.ts > docs/api.md`');
  });
});
