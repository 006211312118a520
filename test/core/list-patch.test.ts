// After a rescan that changed a few rows, the tests list is the one it had with those rows patched in:
// byte for byte what a fresh connection builds from every row (`store.testsJson`), whatever the paths hold.
import assert from 'node:assert/strict';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, makeTree, serve } from '../helpers/index.ts';
import { openStore } from '../../src/core/store/store.ts';

// Names whose orders differ by UTF-16 and by UTF-8 bytes (SQLite sorts by bytes), quotes and backslashes
// (escaped in JSON), and names that are prefixes of others.
const NAMES = ['a.test.js', 'a-b.test.js', 'a/b.test.js', 'B.test.js', 'é.test.js', '\uff5a.test.js', '😀.test.js',
  'q"uote.test.js', 'back\\slash.test.js', 'z/a.test.js', 'z/z.test.js'];

const TREE: Record<string, string> = {
  'package.json': JSON.stringify({ scripts: { test: 'jest' }, devDependencies: { jest: '^29' } }),
  ...Object.fromEntries(NAMES.filter((_, i) => i % 2 === 0).map((name) => [`src/${name}`, "test('a', () => {});\n"])),
};

test('a rescan that changed a few rows answers the stored list, byte for byte, however its paths sort', async (t) => {
  const root = makeTree(t, TREE);
  const db = join(makeTree(t), 'projdex.db');
  const server = await serve(t, { db });
  const fresh = openStore(db);
  t.after(() => fresh.close());
  const { body: project } = await call(`${server.url}/api/projects`, 'POST', { name: 'p', path: root });
  const listed = async (): Promise<string> => (await fetch(`${server.url}/api/projects/${project.id}/tests`)).text();
  await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
  await server.settled();
  assert.equal(await listed(), fresh.testsJson(project.id).toString());
  const modes: unknown[] = [];
  server.events.subscribe((event) => { if (event.type === 'scan.finished') modes.push(event.data.mode); });
  // Each step adds, edits and removes a few files; every answer is the list SQLite builds from all rows.
  const steps: Array<() => void> = [
    () => { for (const name of NAMES.filter((_, i) => i % 2 === 1)) writeFileSync(join(root, 'src', name), "test('b', () => {});\n"); },
    () => { rmSync(join(root, 'src', NAMES[0]!)); appendFileSync(join(root, 'src', NAMES[6]!), "test('c', () => {});\n"); },
    () => { rmSync(join(root, 'src', NAMES[NAMES.length - 1]!)); writeFileSync(join(root, 'src', NAMES[0]!), "test('d', () => {});\n"); },
    () => { for (const name of NAMES.slice(1, 5)) rmSync(join(root, 'src', name)); },
  ];
  for (const step of steps) {
    step();
    const answer = await call(`${server.url}/api/projects/${project.id}/scan`, 'POST');
    assert.equal(answer.status, 200);
    await server.settled();
    const expected = fresh.testsJson(project.id).toString();
    assert.deepEqual(answer.body.tests, JSON.parse(expected));
    assert.equal(await listed(), expected);
  }
  assert.ok(modes.every((mode) => mode === 'incremental'), modes.join());
  assert.equal(JSON.parse(await listed()).length, 6);
});
