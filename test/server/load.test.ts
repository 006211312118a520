import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '../../src/core/store/store.ts';
import { makeTree, serve, writeTree } from '../helpers/index.ts';

// 50 clients at once, every endpoint, a fixed number of requests each (never a time budget: the same
// work on a fast or a busy machine): no 5xx and no lost write. Throughput is measured in bench/.

const CLIENTS = 50;
/** Requests per client: two passes over the 12-step mix. */
const STEPS = 24;

interface Answer { status: number; body: any }

test(`${CLIENTS} concurrent clients, ${STEPS} requests each over every endpoint: zero 5xx, zero lost writes`, { timeout: 90_000 }, async (t) => {
  const root = makeTree(t);
  const files: Record<string, string> = {};
  for (let c = 0; c < CLIENTS; c++) {
    files[`c${c}/package.json`] = JSON.stringify({ devDependencies: { vitest: '3' }, scripts: { dev: `vite --port ${5000 + c}` } });
    for (let f = 0; f < 5; f++) files[`c${c}/src/f${f}.test.ts`] = "it('a', () => {}); it('b', () => {});";
  }
  writeTree(root, files);
  const dataDir = join(root, 'data');
  const { url, close } = await serve(t, { dataDir });

  const statuses = new Map<number, number>();
  const failures: string[] = [];
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const res = await fetch(`${url}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const text = await res.text();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) failures.push(`${method} ${path} -> ${res.status} ${text}`);
    return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
  };

  // What each client's answered writes say the final state is. A client is sequential, so its last
  // answered write to a key or project is the truth (no other client touches them).
  const settings = new Map<string, string>();
  const projects = new Map<number, { name: string; tags: string[]; path: string }>();
  const deleted = new Set<number>();

  const client = async (c: number): Promise<void> => {
    const path = join(root, `c${c}`);
    let created = await call('POST', '/api/projects', { name: `c${c}`, path });
    assert.equal(created.status, 201);
    let id: number = created.body.id;
    projects.set(id, { name: `c${c}`, tags: [], path: created.body.path });
    for (let n = 0; n < STEPS; n++) {
      switch (n % 12) {
        case 0: case 6: {
          const key = `c${c}.k${n % 4}`;
          const value = `v${n}`;
          if ((await call('PUT', `/api/settings/${key}`, { value })).status === 200) settings.set(key, value);
          break;
        }
        case 1: {
          const update = { name: `c${c}-n${n}`, tags: [`c${c}`, `n${n % 3}`] };
          const res = await call('PUT', `/api/projects/${id}`, update);
          assert.equal(res.status, 200);
          Object.assign(projects.get(id)!, update);
          break;
        }
        case 2: assert.equal((await call('GET', '/api/projects')).status, 200); break;
        case 3: assert.equal((await call('POST', `/api/projects/${id}/scan`)).body.testsFound, 5); break;
        case 4: assert.equal((await call('GET', `/api/projects/${id}/tests`)).status, 200); break;
        case 5: assert.equal((await call('GET', `/api/projects/${id}/ports`)).status, 200); break;
        case 7: assert.equal((await call('GET', '/api/settings')).status, 200); break;
        case 8: assert.equal((await call('GET', '/api/projects/tags')).status, 200); break;
        case 9: {
          // A few clients also sweep everything; the rest probe errors and health.
          if (c % 10 === 0) assert.equal((await call('POST', '/api/projects/scan/all')).status, 200);
          else assert.equal((await call('GET', `/api/projects/${c % 2 ? 'abc' : 999_999}`)).status, c % 2 ? 400 : 404);
          break;
        }
        case 10: assert.equal((await call('GET', '/health')).status, 200); break;
        case 11: {
          if (c % 5 !== 0) break;
          // Delete and register again: a fresh id, the old one gone for good.
          assert.equal((await call('DELETE', `/api/projects/${id}`)).status, 204);
          projects.delete(id);
          deleted.add(id);
          created = await call('POST', '/api/projects', { name: `c${c}`, path });
          assert.equal(created.status, 201);
          id = created.body.id;
          projects.set(id, { name: `c${c}`, tags: [], path: created.body.path });
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

  assert.deepEqual(failures, []);
  // Every request of every client was answered: one registration each, every step but step 11, and
  // for every fifth client a delete and a registration at each step 11.
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  const passes = STEPS / 12;
  assert.equal(total, CLIENTS * (1 + STEPS - passes) + Math.ceil(CLIENTS / 5) * passes * 2);

  // Over HTTP and straight from the file after a clean shutdown.
  const over = await call('GET', '/api/settings');
  for (const [key, value] of settings) assert.equal(over.body[key], value, key);
  await close();
  const store = openStore(join(dataDir, 'projdex.db'));
  try {
    assert.equal(store.integrityCheck(), 'ok');
    const saved = store.getSettings();
    for (const [key, value] of settings) assert.equal(saved[key], value, key);
    for (const [id, expected] of projects) {
      const project = store.getProject(id);
      assert.deepEqual(project && { name: project.name, tags: project.tags, path: project.path }, expected, `project ${id}`);
    }
    for (const id of deleted) assert.equal(store.getProject(id), undefined, `deleted ${id}`);
    assert.equal(store.listProjects().length, CLIENTS);
  } finally {
    store.close();
  }
});
